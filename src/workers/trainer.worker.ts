// The GRPO trainer in its own Web Worker: its own GPUDevice, the trained weights and the
// optimizer. Snapshots leave as one transferable buffer, or in a SharedArrayBuffer when the page is
// cross-origin isolated (then every rollout worker reads the same memory). Everything else is TrainerActor.
import * as Comlink from 'comlink';
import { acquireDevice, type FeatureLevelChoice } from '../gpu/device';
import { GpuRuntime } from '../gpu/runtime';
import type { ModelConfig } from '../model/config';
import { TrainerActor, type TrainStepOutput } from '../train/rl/async/actors';
import { canShareMemory, type PackedWeights, transferables, unpackWeights } from '../train/rl/async/weights';
import type { GrpoTrainerConfig } from '../train/rl/grpoTrainer';
import type { Trajectory } from '../train/rl/trajectory';

let trainer: TrainerActor | null = null;

function ready(): TrainerActor {
  if (!trainer) throw new Error('trainer worker: call init() first');
  return trainer;
}

const api = {
  async init(model: ModelConfig, initial: PackedWeights, cfg: GrpoTrainerConfig, featureLevel: FeatureLevelChoice = 'auto'): Promise<void> {
    const rt = new GpuRuntime(await acquireDevice({ featureLevel }));
    trainer = new TrainerActor(rt, model, new Map(unpackWeights(initial)), cfg);
  },
  train(trajs: Trajectory[], lr: number): Promise<TrainStepOutput> {
    return ready().train(trajs, lr);
  },
  async snapshot(): Promise<PackedWeights> {
    const p = await ready().snapshot(canShareMemory());
    return Comlink.transfer(p, transferables(p));
  },
};

export type TrainerWorkerApi = typeof api;

Comlink.expose(api);
