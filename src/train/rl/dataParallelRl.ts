// GRPO's rollouts split across data-parallel ranks (rlLoop with a shard): which of a step's tasks a
// rank plays, and the step's record rebuilt from every rank's episodes. Groups stay whole on one
// rank, so advantages need nothing from the others; what the record needs of an episode (reward,
// success, turns, lengths, end, faults, version) travels as small JSON, never its tokens.
import type { Reward } from '../../envs/types';
import type { GradientShard } from '../optimizerState';
import type { StepEpisode, StepTiming } from './rlMetrics';
import type { Trajectory } from './trajectory';

/** Rank r of N plays tasks [⌊r·K/N⌋, ⌊(r+1)·K/N⌋) of a step's K: contiguous, in rank order, every task once. */
export function rankSlice(tasksPerStep: number, shard: Pick<GradientShard, 'rank' | 'world'>): [number, number] {
  return [Math.floor((shard.rank * tasksPerStep) / shard.world), Math.floor(((shard.rank + 1) * tasksPerStep) / shard.world)];
}

/** What one rank sends of one episode for the step's record. */
interface EpisodeLine {
  reward: Reward;
  success: boolean;
  turns: number;
  policyVersion: number;
  responseTokens: number;
  truncated: boolean;
  end: Trajectory['end'];
  faults: Record<string, number>;
  length: number;
}

interface RankStep {
  episodes: EpisodeLine[];
  rewards: number[];
  keptGroups: boolean[];
  generatedTokens: number;
  rolloutSeconds: number;
}

/** The step's episodes, training rewards and kept groups over every rank, in rank order; rollout time is the slowest rank's, tokens the sum. */
export async function gatherStep(shard: GradientShard, drawn: readonly Trajectory[], rewards: readonly number[], keptGroups: readonly boolean[], timing: StepTiming): Promise<{
  episodes: StepEpisode[]; rewards: number[]; keptGroups: boolean[]; timing: StepTiming;
}> {
  if (!shard.gather) throw new Error('data-parallel GRPO: the shard cannot gather the step\'s metrics (use gradientShard)');
  const mine: RankStep = {
    episodes: drawn.map((t) => ({
      reward: t.reward, success: t.success, turns: t.turns, policyVersion: t.policyVersion, responseTokens: t.responseTokens,
      truncated: t.truncated, end: t.end, faults: t.faults, length: t.ids.length,
    })),
    rewards: [...rewards], keptGroups: [...keptGroups], generatedTokens: timing.generatedTokens, rolloutSeconds: timing.rolloutSeconds,
  };
  const all = (await shard.gather('grpo step episodes', mine)) as RankStep[];
  if (all.some((r) => r.episodes.length !== r.rewards.length)) throw new Error('data-parallel GRPO: a rank sent episodes and training rewards that do not match');
  return {
    episodes: all.flatMap((r) => r.episodes.map(({ length, ...e }) => ({ ...e, ids: { length } }))),
    rewards: all.flatMap((r) => r.rewards),
    keptGroups: all.flatMap((r) => r.keptGroups),
    timing: { rolloutSeconds: Math.max(...all.map((r) => r.rolloutSeconds)), trainSeconds: timing.trainSeconds, generatedTokens: all.reduce((a, r) => a + r.generatedTokens, 0) },
  };
}
