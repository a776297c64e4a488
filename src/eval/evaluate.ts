// Held-out evaluation: N tasks of a family, `samples` episodes per task (different policy seeds),
// summarised as success rate, pass@k, mean reward per component, per-category breakdown and mean
// turns. Deterministic: task i is family.generateTask(seed, i, split) and sample j of it gets the
// policy seed mixSeeds(seed, hash(family), i, j), whatever the concurrency.
import type { EnvFamily, EpisodeLimits, Policy, Split, TaskBase } from '../envs/types';
import { meanPassAtK } from './passAtK';
import { runEpisode, type Episode, type EpisodeEnd } from './rollout';
import { hashString, mixSeeds } from '../util/seeds';
import { wilson, type Rate } from './report/interval';

/** Builds the policy for one sample of one task (a model policy ignores the task; an expert reads it). */
export type PolicyFactory<T extends TaskBase = TaskBase> = (task: T, sampleSeed: number) => Policy;

/** The family's expert as a factory: evaluate(family, expertPolicyFor(family), …) should score ≈ 100 %. */
export function expertPolicyFor<T extends TaskBase>(family: EnvFamily<T>): PolicyFactory<T> {
  return (task, seed) => family.expertPolicy(task, seed);
}

/** One stateless policy for every task and sample (a model policy whose sampling is seeded elsewhere). */
export function samePolicy<T extends TaskBase>(policy: Policy): PolicyFactory<T> {
  return () => policy;
}

/** Options of one evaluation. */
export interface EvaluateOptions {
  /** Number of tasks (indices 0 … n−1 of the split). */
  n: number;
  /** Run seed: picks the tasks and the policy seeds. */
  seed: number;
  /** Which split the tasks come from: 'test' (default) for reported figures, 'validation' for choosing settings. */
  split?: Split;
  /** pass@k to report (default 1). */
  k?: number;
  /** Episodes per task, each with its own policy seed (default k; must be ≥ k). */
  samples?: number;
  /** Environment limit overrides (unset fields keep the family's defaults). */
  limits?: Partial<EpisodeLimits>;
  /** Reward weight overrides. */
  weights?: Partial<Record<string, number>>;
  /** Episodes in flight at once (policies may be slow async models); results do not depend on it. Default 1. */
  concurrency?: number;
  /** Keep every episode in the report (for viewers and tests); default false to save memory. */
  keepEpisodes?: boolean;
  /** Called after each finished episode (progress bars). */
  onEpisode?: (episode: Episode, done: number, total: number) => void;
}

/** Results of one category of tasks. */
export interface CategoryReport {
  /** task.category. */
  category: string;
  /** Tasks in this category. */
  tasks: number;
  /** Episodes run (tasks × samples). */
  episodes: number;
  /** Share of episodes that succeeded. */
  successRate: number;
  /** Its Wilson 95 % interval over the category's episodes. */
  successCI: Rate;
  /** Mean pass@k over the category's tasks. */
  passAtK: number;
  /** Mean total reward. */
  meanTotal: number;
}

/** Results of one family. */
export interface EvalReport {
  /** Family name. */
  family: TaskBase['family'];
  /** Split the tasks came from. */
  split: Split;
  /** Run seed. */
  seed: number;
  /** Number of tasks. */
  tasks: number;
  /** Episodes per task. */
  samplesPerTask: number;
  /** The k of passAtK. */
  k: number;
  /** Episodes run (tasks × samplesPerTask). */
  episodes: number;
  /** Share of all episodes that succeeded (the unbiased pass@1). */
  successRate: number;
  /** Its Wilson 95 % interval over the episodes (samples of one task are not independent: with samples > 1 it is optimistic). */
  successCI: Rate;
  /** Mean over tasks of the unbiased pass@k estimator (see passAtK.ts). */
  passAtK: number;
  /** Mean total reward over episodes. */
  meanTotal: number;
  /** Mean of each reward component over episodes (components the env never reported count as 0). */
  meanComponents: Record<string, number>;
  /** Mean assistant turns per episode. */
  meanTurns: number;
  /** Per-category results, sorted by category name. */
  byCategory: CategoryReport[];
  /** Count of episodes per abnormal end (policy-error, env-error, turn-cap); empty when all ended normally. */
  abnormalEnds: Partial<Record<EpisodeEnd, number>>;
  /** Up to three error messages of abnormal episodes, to show what went wrong. */
  exampleErrors: string[];
  /** Every episode, task-major (task i's samples at i·samples … ), when keepEpisodes was set. */
  episodeList?: Episode[];
}

/** Runs `jobs` with at most `concurrency` in flight, results in job order. */
async function runPool<R>(count: number, concurrency: number, job: (i: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await job(i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  return results;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Checks the options a caller can get wrong and says how to fix them. */
function checkOptions(opts: EvaluateOptions, k: number, samples: number): void {
  if (!Number.isInteger(opts.n) || opts.n < 1) throw new Error(`evaluate: n must be a positive integer number of tasks (got ${opts.n})`);
  if (!Number.isInteger(k) || k < 1) throw new Error(`evaluate: k must be a positive integer (got ${k})`);
  if (!Number.isInteger(samples) || samples < k) throw new Error(`evaluate: samples per task (${samples}) must be an integer ≥ k (${k}); raise samples or lower k`);
  if (opts.concurrency !== undefined && (!Number.isInteger(opts.concurrency) || opts.concurrency < 1)) {
    throw new Error(`evaluate: concurrency must be a positive integer (got ${opts.concurrency})`);
  }
}

/** Summarises episodes (task-major, `samples` per task) into a report. */
export function summarize(family: TaskBase['family'], episodes: readonly Episode[], samples: number, k: number, split: Split, seed: number): EvalReport {
  const perTask: { category: string; n: number; c: number }[] = [];
  for (let i = 0; i < episodes.length; i += samples) {
    const group = episodes.slice(i, i + samples);
    perTask.push({ category: group[0].category, n: group.length, c: group.filter((e) => e.success).length });
  }
  const componentNames = [...new Set(episodes.flatMap((e) => Object.keys(e.reward.weights).concat(Object.keys(e.reward.components))))];
  const meanComponents = Object.fromEntries(componentNames.map((name) => [name, mean(episodes.map((e) => e.reward.components[name] ?? 0))]));
  const categories = [...new Set(perTask.map((t) => t.category))].sort();
  const byCategory = categories.map((category): CategoryReport => {
    const eps = episodes.filter((e) => e.category === category);
    const tasks = perTask.filter((t) => t.category === category);
    return { category, tasks: tasks.length, episodes: eps.length, successRate: mean(eps.map((e) => (e.success ? 1 : 0))), successCI: wilson(eps.filter((e) => e.success).length, eps.length), passAtK: meanPassAtK(tasks, k), meanTotal: mean(eps.map((e) => e.reward.total)) };
  });
  const abnormal = episodes.filter((e) => e.end !== 'done');
  const abnormalEnds: Partial<Record<EpisodeEnd, number>> = {};
  for (const e of abnormal) abnormalEnds[e.end] = (abnormalEnds[e.end] ?? 0) + 1;
  return {
    family,
    split,
    seed,
    tasks: perTask.length,
    samplesPerTask: samples,
    k,
    episodes: episodes.length,
    successRate: mean(episodes.map((e) => (e.success ? 1 : 0))),
    successCI: wilson(episodes.filter((e) => e.success).length, episodes.length),
    passAtK: meanPassAtK(perTask, k),
    meanTotal: mean(episodes.map((e) => e.reward.total)),
    meanComponents,
    meanTurns: mean(episodes.map((e) => e.turns)),
    byCategory,
    abnormalEnds,
    exampleErrors: abnormal.slice(0, 3).map((e) => `${e.taskId}: ${e.error ?? e.end}`),
  };
}

/** Evaluates one family: n tasks × samples episodes. */
export async function evaluate<T extends TaskBase>(family: EnvFamily<T>, policyFor: PolicyFactory<T>, opts: EvaluateOptions): Promise<EvalReport> {
  const k = opts.k ?? 1;
  const samples = opts.samples ?? k;
  checkOptions(opts, k, samples);
  const split = opts.split ?? 'test';
  const familySalt = hashString(family.name);
  const tasks = Array.from({ length: opts.n }, (_, i) => family.generateTask(opts.seed, i, split));
  const total = opts.n * samples;
  let finished = 0;
  const episodes = await runPool(total, opts.concurrency ?? 1, async (job) => {
    const taskIndex = Math.floor(job / samples);
    const sampleSeed = mixSeeds(opts.seed, familySalt, taskIndex, job % samples);
    const task = tasks[taskIndex];
    let policy: Policy;
    try {
      policy = policyFor(task, sampleSeed);
    } catch (e) {
      // A factory that throws is reported like a policy that throws on its first turn.
      const message = e instanceof Error ? e.message : String(e);
      policy = async () => {
        throw new Error(`the policy factory failed: ${message}`);
      };
    }
    const episode = await runEpisode(family, task, policy, { limits: opts.limits, weights: opts.weights, seed: sampleSeed });
    finished++;
    opts.onEpisode?.(episode, finished, total);
    return episode;
  });
  const report = summarize(family.name, episodes, samples, k, split, opts.seed);
  if (opts.keepEpisodes) report.episodeList = episodes;
  return report;
}

/** Results of the whole mix: one report per family plus totals over all episodes. */
export interface MixReport {
  /** Per-family reports, in the order the families were given. */
  families: EvalReport[];
  /** Episodes over all families. */
  episodes: number;
  /** Success rate over all episodes (families weighted by their episode counts). */
  successRate: number;
  /** Its Wilson 95 % interval. */
  successCI: Rate;
  /** Mean of the families' pass@k (each family weighted by its task count). */
  passAtK: number;
  /** Mean total reward over all episodes. */
  meanTotal: number;
  /** Mean assistant turns over all episodes. */
  meanTurns: number;
}

/** Builds the policy for one sample of one task of any family. */
export type MixPolicyFactory = (family: EnvFamily, task: TaskBase, sampleSeed: number) => Policy;

/** Evaluates every family with the same options (n tasks each) and totals the results. */
export async function evaluateAll(families: readonly EnvFamily[], policyFor: MixPolicyFactory, opts: EvaluateOptions): Promise<MixReport> {
  if (families.length === 0) throw new Error('evaluateAll: no families given; pass at least one EnvFamily');
  const reports: EvalReport[] = [];
  for (const family of families) reports.push(await evaluate(family, (task, seed) => policyFor(family, task, seed), opts));
  const episodes = reports.reduce((s, r) => s + r.episodes, 0);
  const tasks = reports.reduce((s, r) => s + r.tasks, 0);
  const weighted = (pick: (r: EvalReport) => number, by: (r: EvalReport) => number, total: number) => (total === 0 ? 0 : reports.reduce((s, r) => s + pick(r) * by(r), 0) / total);
  return {
    families: reports,
    episodes,
    successRate: weighted((r) => r.successRate, (r) => r.episodes, episodes),
    successCI: wilson(reports.reduce((s, r) => s + r.successCI.successes, 0), episodes),
    passAtK: weighted((r) => r.passAtK, (r) => r.tasks, tasks),
    meanTotal: weighted((r) => r.meanTotal, (r) => r.episodes, episodes),
    meanTurns: weighted((r) => r.meanTurns, (r) => r.episodes, episodes),
  };
}
