// Held-out evaluation with the batched rollout loop: n tasks, one episode each, many at once per
// generate() call (the per-episode policies of src/eval decode one sequence at a time, far too slow
// for a model on a CPU adapter). Pass a greedy generator for a deterministic success rate.
import type { EnvFamily, Split, TaskBase } from '../../envs/types';
import type { Tokenizer } from '../../tokenizer';
import { rewardComponentSummary } from './grpo';
import { type PromptRenderer, type RolloutConfig, rolloutBatch, type TurnGenerator } from './rollout';

export interface HeldoutReport {
  /** Episodes played. */
  n: number;
  /** Share solved by the family's verdict. */
  successRate: number;
  /** Mean total reward. */
  meanReward: number;
  /** Mean of each reward component. */
  components: Record<string, number>;
  /** Share of episodes cut by a limit. */
  truncatedFraction: number;
}

export interface HeldoutOptions {
  /** Tasks 0 … n−1 of the split. */
  n: number;
  /** Seed of the task generator. */
  seed: number;
  /** Default 'test' (the reported figure); 'validation' for curves and choosing settings. */
  split?: Split;
  /** Episodes per generate() call (default 32). */
  batch?: number;
  /** Turn/length limits (groupSize is forced to 1). */
  rollout: RolloutConfig;
  render?: PromptRenderer;
}

export async function evaluateHeldout<T extends TaskBase>(family: EnvFamily<T>, tokenizer: Tokenizer, generator: TurnGenerator, opts: HeldoutOptions): Promise<HeldoutReport> {
  const batch = opts.batch ?? 32;
  const rewards = [];
  let success = 0;
  let truncated = 0;
  for (let start = 0; start < opts.n; start += batch) {
    const tasks = Array.from({ length: Math.min(batch, opts.n - start) }, (_, i) => family.generateTask(opts.seed, start + i, opts.split ?? 'test'));
    const trajs = await rolloutBatch({ family, tasks, tokenizer, generator, config: { ...opts.rollout, groupSize: 1 }, seed: opts.seed + start, policyVersion: 0, render: opts.render });
    for (const t of trajs) {
      rewards.push(t.reward);
      if (t.success) success++;
      if (t.truncated) truncated++;
    }
  }
  const n = rewards.length;
  const components = Object.fromEntries(Object.entries(rewardComponentSummary(rewards)).map(([k, s]) => [k, s.mean]));
  return { n, successRate: n ? success / n : 0, meanReward: n ? rewards.reduce((a, r) => a + r.total, 0) / n : 0, components, truncatedFraction: n ? truncated / n : 0 };
}
