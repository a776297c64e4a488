// Named pipeline configurations: what `npm run learn`, `npm run demo`, the page's example buttons and
// the learning tests start from. Each is a plain PipelineConfig (validated), so a caller changes a
// field and gets the same runner; nothing here is special-cased in the runner.
import { type TaskMixEntry } from '../envs/taskMix';
import { taskSet } from '../envs/taskSets';
import type { PresetName } from '../model/config';
import { type ContextConfig, type CreditScheme, PIPELINE_CONFIG_VERSION, type PipelineConfig, parsePipelineConfig, type StageConfig } from './config';

/**
 * Episode shape per task set (by level), measured on the expert episodes of the train split (byte
 * tokenizer, compact tools): route4 prompts ≤ 214 tokens, route8 ≤ ~300, calls ≤ 58.
 */
export const TASK_SET_CONTEXT: Readonly<Record<string, ContextConfig>> = {
  route4: { maxTotalTokens: 288, maxNewTokensPerTurn: 64, maxTurns: 1 },
  route8: { maxTotalTokens: 384, maxNewTokensPerTurn: 64, maxTurns: 1 },
  'route8-multi': { maxTotalTokens: 448, maxNewTokensPerTurn: 128, maxTurns: 1 },
  bfcl: { maxTotalTokens: 1024, maxNewTokensPerTurn: 160, maxTurns: 2 },
  'bfcl-unseen-tools': { maxTotalTokens: 1024, maxNewTokensPerTurn: 160, maxTurns: 2 },
  retail: { maxTotalTokens: 2048, maxNewTokensPerTurn: 128, maxTurns: 8 },
  functions: { maxTotalTokens: 2048, maxNewTokensPerTurn: 256, maxTurns: 4 },
};

/** The context a mix needs: the largest of its task sets' in every field. */
export function contextForMix(mix: readonly TaskMixEntry[]): ContextConfig {
  const cs = mix.map((e) => {
    const level = taskSet(e.family, e.level).level;
    const c = TASK_SET_CONTEXT[level];
    if (!c) throw new Error(`no context is measured for task set ${e.family}/${level}: add it to TASK_SET_CONTEXT`);
    return c;
  });
  return {
    maxTotalTokens: Math.max(...cs.map((c) => c.maxTotalTokens)),
    maxNewTokensPerTurn: Math.max(...cs.map((c) => c.maxNewTokensPerTurn)),
    maxTurns: Math.max(...cs.map((c) => c.maxTurns)),
  };
}

export interface LearningOptions {
  preset: PresetName;
  seed: number;
  tasks: TaskMixEntry[];
  /** Verified expert conversations in the (fixed) SFT set, SFT steps over it, its lr and batch. */
  sftExamples: number;
  /** Copy drills mixed into the SFT set (data/copyDrills.ts; 0: none). */
  sftDrills: number;
  sftSteps: number;
  sftLr: number;
  sftBatch: number;
  /** GRPO: steps, groups per step, G, lr, KL β, credit scheme, sampling rounds, async staleness. */
  rlSteps: number;
  tasksPerStep: number;
  groupSize: number;
  lr: number;
  klCoef: number;
  credit: CreditScheme;
  samplingRounds: number;
  staleness?: number;
  /** Test tasks per task set per evaluation, the validation curve's period (0: none) and its size. */
  evalN: number;
  evalEvery: number;
  validationN: number;
  /** Evaluate the untrained model too. */
  evalBefore: boolean;
}

/**
 * The routing learning run (the CI learning test and `npm run learn`'s function-calling default):
 * SFT on a fixed set of verified expert trajectories of the train split, then GRPO on fresh train
 * tasks (the environment's reward, no answers), with TEST success before SFT, after SFT and after
 * GRPO, and a validation curve during GRPO (settings are chosen on validation).
 */
export const ROUTING_LEARNING: LearningOptions = {
  preset: 'nano', seed: 1, tasks: [{ family: 'function-calling', level: 'route8', weight: 1 }],
  sftExamples: 256, sftDrills: 0, sftSteps: 200, sftLr: 3e-3, sftBatch: 8,
  rlSteps: 100, tasksPerStep: 16, groupSize: 8, lr: 1e-3, klCoef: 0.1, credit: 'component', samplingRounds: 3,
  evalN: 256, evalEvery: 0, validationN: 128, evalBefore: false,
};

export function learningConfig(o: LearningOptions): PipelineConfig {
  const stages: StageConfig[] = [];
  const test = (label: string, baselines: boolean): StageConfig => ({ kind: 'eval', label, split: 'test', n: o.evalN, baselines });
  if (o.evalBefore) stages.push(test('before SFT', false));
  stages.push({ kind: 'sft', data: { source: 'synthetic', examples: o.sftExamples, drills: o.sftDrills }, steps: o.sftSteps, batchSize: o.sftBatch, lr: o.sftLr, warmupSteps: 10, minLrRatio: 1 });
  stages.push(test('after SFT', true));
  if (o.evalEvery > 0) stages.push({ kind: 'eval', label: 'validation after SFT', split: 'validation', n: o.validationN, baselines: false });
  stages.push({
    kind: 'grpo', steps: o.rlSteps, tasksPerStep: o.tasksPerStep, groupSize: o.groupSize, lr: o.lr, warmupSteps: 5, minLrRatio: 1,
    klCoef: o.klCoef, credit: o.credit, temperature: 1, samplingRounds: o.samplingRounds, evalEvery: o.evalEvery,
    ...(o.staleness === undefined ? {} : { staleness: o.staleness }),
  });
  stages.push(test('after GRPO', false));
  return parsePipelineConfig({ version: PIPELINE_CONFIG_VERSION, preset: o.preset, seed: o.seed, tasks: o.tasks, context: contextForMix(o.tasks), stages });
}
