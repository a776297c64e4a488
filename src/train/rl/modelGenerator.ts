// The TurnGenerator of a model on the GPU: batched KV-cache generation (model/generate.ts) with the
// rollout's sampling settings. Temperature 1 for RL: generate records log softmax(logits / t), and
// the trainer scores at t = 1, so only t = 1 makes the behaviour log-probs the trainer's policy.
import type { GpuRuntime } from '../../gpu/runtime';
import { generate } from '../../model/generate';
import type { SamplingOptions } from '../../model/sampling';
import type { GpuWeights } from '../../model/weights';
import type { TurnGenerator } from './rollout';

export function modelTurnGenerator(rt: GpuRuntime, w: GpuWeights, sampling: SamplingOptions): TurnGenerator {
  return {
    maxPositions: w.cfg.maxPositionEmbeddings,
    generate: (prompts, opts) => generate(rt, w, prompts, { ...sampling, maxNewTokens: opts.maxNewTokens, stopIds: [opts.stopId], seed: opts.seed, rowSeeds: opts.rowSeeds }),
  };
}
