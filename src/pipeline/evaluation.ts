// The pipeline's eval stage: greedy episodes on a split (validation to tune, test to report) for
// every task set of the run's mix, batched through the rollout loop (one generate() call per turn
// for a whole batch). Each episode becomes an Outcome (src/eval/report: breakdown keys, success,
// reward components) plus its shape (turns, tokens, truncation), so the report can show rates with
// intervals per task set and per tool / category, beside cheap baselines run on the same tasks.
import type { Split } from '../envs/splits';
import { entryFamily, type TaskMixEntry, taskSetName } from '../envs/taskMix';
import { taskSet } from '../envs/taskSets';
import type { EnvFamily, TaskBase } from '../envs/types';
import { outcomeOf, type Outcome } from '../eval/report';
import type { Tokenizer } from '../tokenizer';
import { type PromptRenderer, type RolloutConfig, rolloutBatch, type TurnGenerator } from '../train/rl/rollout';
import type { Trajectory } from '../train/rl/trajectory';

/** One evaluated episode. */
export interface EpisodeRecord {
  /** "function-calling/route8". */
  taskSet: string;
  outcome: Outcome;
  truncated: boolean;
  turns: number;
  /** Tokens of the whole episode (prompt, turns, replies). */
  tokens: number;
  /** Why it stopped, and the faults its steps reported (Trajectory.end, Trajectory.faults). */
  end: Trajectory['end'];
  faults: Record<string, number>;
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
  /** Sees each batch of played episodes (trajectory viewers). */
  onTrajectories?: (taskSet: string, trajs: readonly Trajectory[]) => void;
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
    const splits = taskSet(entry.family, entry.level).splits;
    if (!splits.includes(req.split)) throw new Error(`${name} has no ${req.split} split (it has ${splits.join(', ')}); evaluate it on one of those`);
    const tasks = evalTasks(family, req.split, req.n, req.seeds);
    for (let start = 0; start < tasks.length; start += batch) {
      const slice = tasks.slice(start, start + batch);
      const trajs = await rolloutBatch({
        family, tasks: slice, tokenizer: req.tokenizer, generator: req.generator, config: { ...req.rollout, groupSize: 1 },
        seed: start, policyVersion: 0, render: req.render,
      });
      req.onTrajectories?.(name, trajs);
      trajs.forEach((t, i) => records.push({ taskSet: name, outcome: outcomeOf(slice[i], t.success, t.reward), truncated: t.truncated, turns: t.turns, tokens: t.ids.length, end: t.end, faults: t.faults }));
    }
  }
  return records;
}
