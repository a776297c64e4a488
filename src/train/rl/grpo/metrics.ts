// Per-step summaries of a batch of finished episodes, logged by name next to the loss metrics:
//   reward, reward_std, reward/<component>, reward/<component>/std, success_rate, turns/mean,
//   response_length/mean, staleness/mean, staleness/max, frac_groups_dropped, frac_reward_zero_std.
// Standard deviations here are population (÷ n) summaries of the batch, not the advantage baseline.
import type { Reward } from '../../../envs/types';
import type { GroupStats } from './advantages';

/** What the trainer keeps of one finished episode for its metrics. */
export interface EpisodeRecord {
  /** The environment's final reward (components, weights, total). */
  reward: Reward;
  /** Solved by the family's own verdict. */
  success: boolean;
  /** Assistant turns taken. */
  turns: number;
  /** Trainer version of the weights that sampled it (recorded by the rollout worker). */
  policyVersion: number;
  /** Policy-generated tokens over all turns. */
  responseTokens: number;
}

/** Population mean and std (÷ n); both 0 for an empty list. */
export function meanAndStd(xs: readonly number[]): { mean: number; std: number } {
  if (xs.length === 0) return { mean: 0, std: 0 };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length;
  return { mean, std: Math.sqrt(variance) };
}

/** Staleness of each episode: trainer versions between the sampling weights and the trainer's now. */
export function staleness(episodes: readonly EpisodeRecord[], trainerVersion: number): number[] {
  return episodes.map((e, i) => {
    const k = trainerVersion - e.policyVersion;
    if (!Number.isInteger(k) || k < 0) throw new Error(`staleness: episode ${i} was sampled by version ${e.policyVersion}, but the trainer is at version ${trainerVersion}`);
    return k;
  });
}

/** hist[k] = number of episodes sampled k versions ago (length max staleness + 1; [] when empty). */
export function stalenessHistogram(episodes: readonly EpisodeRecord[], trainerVersion: number): number[] {
  const ks = staleness(episodes, trainerVersion);
  const hist = new Array<number>(ks.length > 0 ? Math.max(...ks) + 1 : 0).fill(0);
  for (const k of ks) hist[k]++;
  return hist;
}

/** Mean and std of every reward component; a component averages over the episodes that report it. */
export function rewardComponentSummary(rewards: readonly Reward[]): Record<string, { mean: number; std: number }> {
  const values = new Map<string, number[]>();
  for (const r of rewards) {
    for (const [k, v] of Object.entries(r.components)) {
      if (!values.has(k)) values.set(k, []);
      values.get(k)!.push(v);
    }
  }
  const out: Record<string, { mean: number; std: number }> = {};
  for (const k of [...values.keys()].sort()) out[k] = meanAndStd(values.get(k)!);
  return out;
}

export interface SummaryOptions {
  /** The scalar rewards GRPO trained on (mixed weights + over-long penalty), one per episode. */
  trainingRewards?: readonly number[];
  /** groupAdvantages' stats, for the dynamic-sampling fractions. */
  groupStats?: Pick<GroupStats, 'droppedFraction' | 'zeroStdFraction'>;
}

/** One step's episode metrics by name (list in the header). */
export function summarizeEpisodes(episodes: readonly EpisodeRecord[], trainerVersion: number, opts: SummaryOptions = {}): Record<string, number> {
  const total = meanAndStd(episodes.map((e) => e.reward.total));
  const out: Record<string, number> = { episodes: episodes.length, reward: total.mean, reward_std: total.std };
  for (const [k, s] of Object.entries(rewardComponentSummary(episodes.map((e) => e.reward)))) {
    out[`reward/${k}`] = s.mean;
    out[`reward/${k}/std`] = s.std;
  }
  if (opts.trainingRewards) {
    if (opts.trainingRewards.length !== episodes.length) throw new Error(`summarizeEpisodes: ${opts.trainingRewards.length} training rewards for ${episodes.length} episodes`);
    const tr = meanAndStd(opts.trainingRewards);
    out.training_reward = tr.mean;
    out.training_reward_std = tr.std;
  }
  out.success_rate = episodes.length > 0 ? episodes.filter((e) => e.success).length / episodes.length : 0;
  out['turns/mean'] = meanAndStd(episodes.map((e) => e.turns)).mean;
  out['response_length/mean'] = meanAndStd(episodes.map((e) => e.responseTokens)).mean;
  const ks = staleness(episodes, trainerVersion);
  out['staleness/mean'] = meanAndStd(ks).mean;
  out['staleness/max'] = ks.length > 0 ? Math.max(...ks) : 0;
  if (opts.groupStats) {
    out.frac_groups_dropped = opts.groupStats.droppedFraction;
    out.frac_reward_zero_std = opts.groupStats.zeroStdFraction;
  }
  return out;
}
