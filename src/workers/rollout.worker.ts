// A rollout actor in its own Web Worker: it acquires its own GPUDevice (a device cannot cross
// workers), holds a copy of the weights, and plays rollout jobs. Everything else is RolloutActor.
import * as Comlink from 'comlink';
import { acquireDevice, type FeatureLevelChoice } from '../gpu/device';
import { GpuRuntime } from '../gpu/runtime';
import { RolloutActor, type RolloutActorSpec, type RolloutJob, type RolloutResult } from '../train/rl/async/actors';
import type { PackedWeights } from '../train/rl/async/weights';

let actor: RolloutActor | null = null;

function ready(): RolloutActor {
  if (!actor) throw new Error('rollout worker: call init() first');
  return actor;
}

const api = {
  async init(spec: RolloutActorSpec, weights: PackedWeights, featureLevel: FeatureLevelChoice = 'auto'): Promise<void> {
    const rt = new GpuRuntime(await acquireDevice({ featureLevel }));
    actor = await RolloutActor.create(rt, spec, weights);
  },
  setWeights(weights: PackedWeights): void {
    ready().setWeights(weights);
  },
  rollout(job: RolloutJob): Promise<RolloutResult> {
    return ready().rollout(job);
  },
};

export type RolloutWorkerApi = typeof api;

Comlink.expose(api);
