// The page's ActorPool: the trainer and each rollout actor in their own Web Worker (Comlink), each
// with its own GPUDevice and copy of the weights. Weight snapshots travel as one transferable buffer
// per worker, or — when the page is cross-origin isolated — as one SharedArrayBuffer posted to every
// worker without copying. A crashed or hung rollout worker is terminated and replaced (coordinator).
import * as Comlink from 'comlink';
import type { FeatureLevelChoice } from '../gpu/device';
import type { RolloutWorkerApi } from './rollout.worker';
import type { TrainerWorkerApi } from './trainer.worker';
import type { GrpoTrainerConfig } from '../train/rl/grpoTrainer';
import type { RolloutActorSpec } from '../train/rl/async/actors';
import type { ActorPool, RolloutHandle } from '../train/rl/async/handles';
import { canShareMemory, packWeights, type PackedWeights, transferables } from '../train/rl/async/weights';

export interface WorkerPoolOptions {
  spec: RolloutActorSpec;
  trainer: GrpoTrainerConfig;
  /** The weights training starts from. */
  initial: Map<string, Float32Array>;
  /** Adapter level every worker asks for (default 'auto': core, else compatibility). */
  featureLevel?: FeatureLevelChoice;
}

// Literal `new Worker(new URL(…), …)` so Vite bundles the worker entry points.
const newTrainerWorker = () => new Worker(new URL('./trainer.worker.ts', import.meta.url), { type: 'module', name: 'tabforge-trainer' });
const newRolloutWorker = (i: number) => new Worker(new URL('./rollout.worker.ts', import.meta.url), { type: 'module', name: `tabforge-rollout-${i}` });

/** A snapshot ready to post to one worker: shared memory as is, otherwise a private copy to transfer. */
function forWorker(p: PackedWeights): PackedWeights {
  if (p.shared) return p;
  const copy = { ...p, data: p.data.slice() };
  return Comlink.transfer(copy, transferables(copy));
}

export async function workerPool(opts: WorkerPoolOptions): Promise<ActorPool> {
  const level = opts.featureLevel ?? 'auto';
  const trainerWorker = newTrainerWorker();
  const trainer = Comlink.wrap<TrainerWorkerApi>(trainerWorker);
  const initial = packWeights(opts.initial, 0, canShareMemory());
  await trainer.init(opts.spec.model, forWorker(initial), opts.trainer, level);
  const workers = new Set<Worker>([trainerWorker]);
  return {
    trainer: {
      train: (trajs, lr) => trainer.train(trajs, lr),
      snapshot: () => trainer.snapshot(),
      terminate: async () => trainerWorker.terminate(),
    },
    async createRollout(index, weights): Promise<RolloutHandle> {
      const worker = newRolloutWorker(index);
      workers.add(worker);
      const actor = Comlink.wrap<RolloutWorkerApi>(worker);
      await actor.init(opts.spec, forWorker(weights), level);
      return {
        setWeights: (p) => actor.setWeights(forWorker(p)),
        rollout: (job) => actor.rollout(job),
        terminate: async () => {
          workers.delete(worker);
          worker.terminate(); // a hung worker stops here; its in-flight episodes are lost
        },
      };
    },
    async close() {
      for (const w of workers) w.terminate();
      workers.clear();
    },
  };
}
