// The pipeline's eval stage: greedy episodes on a split (validation to tune, test to report) for
// every task set of the run's mix, batched through the rollout loop (one generate() call per turn
// for a whole batch). Each episode is kept as a record (task set, breakdown key, success, reward
// components), so reports can show rates with intervals per task set and per tool / category, and
// score cheap baselines on exactly the same tasks.
import type { Split } from '../envs/splits';
import type { EnvFamily, TaskBase } from '../envs/types';
import type { Tokenizer } from '../tokenizer';
import { type PromptRenderer, type RolloutConfig, rolloutBatch, type TurnGenerator } from '../train/rl/rollout';
import { entryFamily, type TaskMixEntry, taskSetName } from '../envs/taskMix';

/** One evaluated episode. */
export interface EpisodeRecord {
  /** "function-calling/route8". */
  taskSet: string;
  taskId: string;
  /** Per-tool / per-category key (breakdownKey). */
  key: string;
  success: boolean;
  reward: number;
  components: Record<string, number>;
  truncated: boolean;
  turns: number;
  /** Tokens of the whole episode (prompt, turns, replies). */
  tokens: number;
}

export interface EvalRequest {
  mix: readonly TaskMixEntry[];
  split: Split;
  /** Tasks 0 … n−1 of each task set, per seed. */
  n: number;
  seeds: readonly number[];
  tokenizer: Tokenizer;
  generator: TurnGenerator;
  rollout: RolloutConfig;
  render?: PromptRenderer;
  /** Episodes per generate() call (default 64). */
  batch?: number;
}

/**
 * The breakdown key of a task: the function(s) a function-calling task expects ("weather",
 * "price+time", "(no call)" for irrelevance), the category for the other families.
 */
export function breakdownKey(task: TaskBase): string {
  const gt = (task as TaskBase & { groundTruth?: Record<string, unknown>[] }).groundTruth;
  if (task.family === 'function-calling' && Array.isArray(gt)) {
    return gt.length === 0 ? '(no call)' : gt.map((g) => Object.keys(g)[0]).sort().join('+');
  }
  return task.category;
}

/** The tasks an evaluation plays for one task set: tasks 0 … n−1 of each seed's stream of `split`. */
export function evalTasks(family: EnvFamily, split: Split, n: number, seeds: readonly number[]): TaskBase[] {
  return seeds.flatMap((seed) => Array.from({ length: n }, (_, i) => family.generateTask(seed, i, split)));
}

/** Plays every task of every task set once, greedily (pass a greedy generator). */
export async function evaluateSplit(req: EvalRequest): Promise<EpisodeRecord[]> {
  const batch = req.batch ?? 64;
  const records: EpisodeRecord[] = [];
  for (const entry of req.mix) {
    const family = entryFamily(entry);
    const name = taskSetName(entry);
    const tasks = evalTasks(family, req.split, req.n, req.seeds);
    for (let start = 0; start < tasks.length; start += batch) {
      const slice = tasks.slice(start, start + batch);
      const trajs = await rolloutBatch({
        family, tasks: slice, tokenizer: req.tokenizer, generator: req.generator, config: { ...req.rollout, groupSize: 1 },
        seed: start, policyVersion: 0, render: req.render,
      });
      trajs.forEach((t, i) => records.push({
        taskSet: name, taskId: t.taskId, key: breakdownKey(slice[i]), success: t.success, reward: t.reward.total,
        components: t.reward.components, truncated: t.truncated, turns: t.turns, tokens: t.ids.length,
      }));
    }
  }
  return records;
}
