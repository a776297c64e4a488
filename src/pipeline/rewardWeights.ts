// A GRPO stage's reward-weight overrides (GrpoStageConfig.rewardWeights) checked against its task mix
// when the run starts: every name must be a reward component of a family in the mix (a typo would
// otherwise leave the environment's weights in place silently), and the weights must leave some
// reward to train on. The overrides reach the trainer as GrpoConfig.rewardWeights (grpo/rewards.ts).
import { taskSet } from '../envs/taskSets';
import type { PipelineConfig } from './config';

/** Each component's default weight in the mix's families (the largest where families share a name). */
function mixComponents(cfg: Pick<PipelineConfig, 'tasks'>): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of cfg.tasks) {
    for (const [k, w] of Object.entries(taskSet(e.family, e.level).envFamily.defaultWeights)) out.set(k, Math.max(out.get(k) ?? 0, w));
  }
  return out;
}

/** One problem with a stage's overrides: `path` is the stage's rewardWeights field, `component` the name at fault (if one is). */
export interface RewardWeightError {
  path: string;
  component?: string;
  message: string;
}

/** What is wrong with the config's reward-weight overrides, one entry per problem ([] = fine). */
export function rewardWeightErrors(cfg: Pick<PipelineConfig, 'tasks' | 'stages'>): RewardWeightError[] {
  const errors: RewardWeightError[] = [];
  const known = mixComponents(cfg);
  cfg.stages.forEach((s, i) => {
    if (s.kind !== 'grpo' || s.rewardWeights === undefined) return;
    const path = `stages.${i}.rewardWeights`;
    const unknown = Object.keys(s.rewardWeights).filter((k) => !known.has(k));
    for (const k of unknown) errors.push({ path, component: k, message: `not a reward component of this task mix; its components are ${[...known.keys()].join(', ')}` });
    if (unknown.length > 0) return;
    const left = [...known].some(([k, w]) => (s.rewardWeights?.[k] ?? w) > 0);
    if (!left) errors.push({ path, message: 'every component weighs 0, so every episode would earn 0 and GRPO would learn nothing; give at least one component a weight above 0' });
  });
  return errors;
}

/** "stages.1.rewardWeights.exactmatch: not a reward component …": one error as the runner reports it. */
export function rewardWeightLine(e: RewardWeightError): string {
  return `${e.path}${e.component === undefined ? '' : `.${e.component}`}: ${e.message}`;
}

/**
 * "exact_match=1, function_choice=0" → [['exact_match', '1'], ['function_choice', '0']]: the form the CLI flag
 * and the page field share (each reads the numbers its own way); `bad` is the first part that is not COMPONENT=VALUE.
 */
export function weightPairs(text: string): { pairs: [string, string][]; bad?: string } {
  const pairs: [string, string][] = [];
  for (const part of text.split(',')) {
    const m = /^\s*([A-Za-z_][\w/]*)\s*=\s*(\S+)\s*$/.exec(part);
    if (m === null) return { pairs, bad: part };
    pairs.push([m[1], m[2]]);
  }
  return { pairs };
}
