// From an episode's reward components to the scalar GRPO trains on:
//   r = mixReward(reward, cfg.rewardWeights) + overlongPenalty(responseTokens, cfg.overlongPenalty)
// and the per-turn rewards the optional per-turn credit uses (advantages.ts).
import type { Reward } from '../../../envs/types';
import type { GrpoConfig, OverlongPenalty } from './config';

/**
 * Scalar reward with component weights overriding the environment's:
 *   total = Σ_k w_k · c_k,  w_k = overrides[k] ?? reward.weights[k],  k over reward.weights ∪ overrides,
 * a component the episode did not report counts as 0. No overrides returns reward.total unchanged, so
 * the default is exactly the environment's documented total.
 */
export function mixReward(reward: Reward, overrides: Record<string, number> = {}): number {
  if (Object.keys(overrides).length === 0) return reward.total;
  const names = new Set([...Object.keys(reward.weights), ...Object.keys(overrides)]);
  let total = 0;
  for (const k of names) total += (overrides[k] ?? reward.weights[k] ?? 0) * (reward.components[k] ?? 0);
  return total;
}

/** DAPO soft over-long punishment (formula in config.ts); 0 when `op` is null. */
export function overlongPenalty(responseTokens: number, op: OverlongPenalty | null): number {
  if (op === null) return 0;
  const free = op.maxLength - op.bufferLength; // lengths up to here are never punished
  if (responseTokens <= free) return 0;
  if (responseTokens > op.maxLength) return -op.factor;
  return (op.factor * (free - responseTokens)) / op.bufferLength;
}

/** What the trainer needs of an episode to score it. */
export interface ScoredEpisode {
  /** The environment's final reward (components, weights, total). */
  reward: Reward;
  /** Policy-generated tokens over all turns (the over-long penalty's L). */
  responseTokens: number;
}

/** The scalar training reward of each episode: mixed components plus the over-long penalty. */
export function trainingRewards(episodes: readonly ScoredEpisode[], cfg: Pick<GrpoConfig, 'rewardWeights' | 'overlongPenalty'>): number[] {
  return episodes.map((e) => mixReward(e.reward, cfg.rewardWeights) + overlongPenalty(e.responseTokens, cfg.overlongPenalty));
}

/**
 * Per-turn rewards from the environment's running reward after each step: turn t earned
 * totals[t] − totals[t − 1] (totals[−1] = 0). Their sum is the final total, so return-to-go with γ = 1
 * from turn t is "what the episode gained from turn t on".
 */
export function turnRewardsFromRunningTotals(totals: readonly number[]): number[] {
  return totals.map((v, t) => v - (t === 0 ? 0 : totals[t - 1]));
}
