import { describe, expect, it } from 'vitest';
import { weightedReward } from '../../../envs/types';
import { meanAndStd, stalenessHistogram, summarizeEpisodes, type EpisodeRecord } from './metrics';

const W = { format: 0.2, outcome: 0.8 };
const EPISODES: EpisodeRecord[] = [
  { reward: weightedReward({ format: 1, outcome: 1 }, W), success: true, turns: 2, policyVersion: 10, responseTokens: 100 },
  { reward: weightedReward({ format: 1, outcome: 0 }, W), success: false, turns: 4, policyVersion: 9, responseTokens: 300 },
  { reward: weightedReward({ format: 0, outcome: 0, tests: 0.5 }, W), success: false, turns: 3, policyVersion: 8, responseTokens: 200 },
  { reward: weightedReward({ format: 1, outcome: 1 }, W), success: true, turns: 3, policyVersion: 10, responseTokens: 200 },
];

describe('episode metrics', () => {
  it('meanAndStd is the population summary', () => {
    expect(meanAndStd([1, 3])).toEqual({ mean: 2, std: 1 });
    expect(meanAndStd([])).toEqual({ mean: 0, std: 0 });
  });

  it('summarizeEpisodes: rewards, components, success, turns, length, staleness, groups', () => {
    const m = summarizeEpisodes(EPISODES, 10, { trainingRewards: [1, 0, 0, 1], groupStats: { droppedFraction: 0.25, zeroStdFraction: 0.5 } });
    // totals 1, 0.2, 0, 1
    expect(m.reward).toBeCloseTo(0.55, 14);
    expect(m.reward_std).toBeCloseTo(Math.sqrt((0.45 ** 2 * 2 + 0.35 ** 2 + 0.55 ** 2) / 4), 14);
    expect(m['reward/format']).toBeCloseTo(0.75, 14);
    expect(m['reward/outcome']).toBeCloseTo(0.5, 14);
    expect(m['reward/outcome/std']).toBeCloseTo(0.5, 14);
    expect(m['reward/tests']).toBe(0.5); // only the episode that reports it
    expect(m.training_reward).toBe(0.5);
    expect(m.success_rate).toBe(0.5);
    expect(m['turns/mean']).toBe(3);
    expect(m['response_length/mean']).toBe(200);
    expect(m['staleness/mean']).toBe(0.75);
    expect(m['staleness/max']).toBe(2);
    expect(m.frac_groups_dropped).toBe(0.25);
    expect(m.frac_reward_zero_std).toBe(0.5);
    expect(m.episodes).toBe(4);
  });

  it('stalenessHistogram counts episodes per version lag and rejects episodes from the future', () => {
    expect(stalenessHistogram(EPISODES, 10)).toEqual([2, 1, 1]);
    expect(stalenessHistogram([], 10)).toEqual([]);
    expect(() => stalenessHistogram(EPISODES, 9)).toThrow(/version 10, but the trainer is at version 9/);
  });

  it('an empty batch gives zeros, not NaN', () => {
    const m = summarizeEpisodes([], 3);
    expect(Object.values(m).every(Number.isFinite)).toBe(true);
  });
});
