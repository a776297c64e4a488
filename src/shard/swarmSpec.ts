// What every member derives from the run's PipelineConfig by itself, so nothing but a stage index
// needs to cross the wire: the rollout actor spec of a GRPO stage (exactly what the runner's async
// GRPO gives its in-process actors), the task ids of a job, and the payload bounds of the run.
import type { EnvFamily } from '../envs/types';
import type { ModelConfig } from '../model/config';
import { countParameters, parameterTable } from '../model/parameters';
import type { PipelineConfig } from '../pipeline/config';
import { grpoLoopConfig } from '../pipeline/loopSettings';
import type { RolloutActorSpec } from '../train/rl/async/actors';
import type { PackedWeights } from '../train/rl/async/weights';
import type { PayloadLimits } from './protocol';

/** The rollout actor spec of GRPO stage `stage` (throws when that stage is not GRPO). */
export function swarmRolloutSpec(cfg: PipelineConfig, stage: number, model: ModelConfig): RolloutActorSpec {
  const s = cfg.stages[stage];
  if (!s || s.kind !== 'grpo') throw new Error(`stage ${stage} of this run is ${s ? `'${s.kind}'` : 'missing'}, not GRPO: there is nothing to roll out`);
  const loop = grpoLoopConfig(cfg, s, stage);
  return { model, tasks: cfg.tasks, rollout: loop.rollout, taskSeed: loop.seed, ...(loop.randomValues ? { randomValues: loop.randomValues } : {}) };
}

/** Bytes of trajectory JSON one token may take at most (ids, mask, log-prob, turn, and its text escaped). */
const JSON_BYTES_PER_TOKEN = 256;

/** Payload bounds of a run: exact weight size, the largest honest result, the largest collective payload. */
export function payloadLimits(cfg: PipelineConfig, model: ModelConfig): PayloadLimits {
  let biggestJob = 1;
  for (const s of cfg.stages) if (s.kind === 'grpo') biggestJob = Math.max(biggestJob, s.tasksPerStep * s.groupSize);
  const parameters = countParameters(model);
  return {
    parameters,
    resultBytes: biggestJob * cfg.context.maxTotalTokens * JSON_BYTES_PER_TOKEN + (64 << 10),
    gatherBytes: 4 * parameters + (1 << 20),
  };
}

/** Task ids of `tasks` train tasks from `firstTask` (what a job's results must have played). */
export function jobTaskIds(family: EnvFamily, taskSeed: number, firstTask: number, tasks: number): string[] {
  return Array.from({ length: tasks }, (_, i) => family.generateTask(taskSeed, firstTask + i, 'train').id);
}

/** A snapshot from the weights' bytes as they arrive (parameter-table order; no names on the wire). */
export function weightsFromFloats(model: ModelConfig, version: number, data: Float32Array): PackedWeights {
  const table = parameterTable(model);
  const names: string[] = [];
  const offsets: number[] = [];
  const sizes: number[] = [];
  let at = 0;
  for (const p of table) {
    const n = p.shape.reduce((a, b) => a * b, 1);
    names.push(p.name);
    offsets.push(at);
    sizes.push(n);
    at += n;
  }
  if (at !== data.length) throw new Error(`weights of version ${version} have ${data.length} values; the model has ${at}`);
  return { version, names, offsets, sizes, data, shared: false };
}

/** Throws unless a snapshot is laid out in parameter-table order (what weightsFromFloats expects at the other end). */
export function checkTableOrder(model: ModelConfig, p: PackedWeights): void {
  const table = parameterTable(model);
  if (p.names.length !== table.length || table.some((t, i) => t.name !== p.names[i])) throw new Error('weight snapshot is not in parameter-table order');
  let at = 0;
  for (let i = 0; i < table.length; i++) {
    if (p.offsets[i] !== at) throw new Error(`weight snapshot: '${p.names[i]}' is not packed back to back`);
    at += p.sizes[i];
  }
}
