import { describe, expect, it } from 'vitest';
import { weightedReward } from '../../../envs/types';
import { mixReward, overlongPenalty, trainingRewards, turnRewardsFromRunningTotals } from './rewards';

const REWARD = weightedReward({ format: 1, outcome: 0.5 }, { format: 0.5, outcome: 0.5 }); // total 0.75

describe('mixReward', () => {
  it('defaults to the environment total', () => {
    expect(mixReward(REWARD)).toBe(0.75);
    expect(mixReward({ ...REWARD, total: 0.123 })).toBe(0.123);
  });
  it('overrides named weights and keeps the others', () => {
    expect(mixReward(REWARD, { outcome: 1 })).toBeCloseTo(0.5 * 1 + 1 * 0.5, 15);
    expect(mixReward(REWARD, { format: 0 })).toBeCloseTo(0.25, 15);
    expect(mixReward(REWARD, { tests: 2 })).toBeCloseTo(0.75, 15); // missing component counts 0
  });
});

describe('overlongPenalty (DAPO)', () => {
  const op = { maxLength: 100, bufferLength: 20, factor: 1 };
  it('is 0 up to maxLength − buffer, ramps linearly to −1, then stays −1', () => {
    expect(overlongPenalty(50, op)).toBe(0);
    expect(overlongPenalty(80, op)).toBe(0);
    expect(overlongPenalty(85, op)).toBeCloseTo(-0.25, 15);
    expect(overlongPenalty(90, op)).toBeCloseTo(-0.5, 15);
    expect(overlongPenalty(100, op)).toBeCloseTo(-1, 15);
    expect(overlongPenalty(101, op)).toBe(-1);
    expect(overlongPenalty(5000, op)).toBe(-1);
  });
  it('scales by factor and is off when null', () => {
    expect(overlongPenalty(90, { ...op, factor: 0.5 })).toBeCloseTo(-0.25, 15);
    expect(overlongPenalty(1e9, null)).toBe(0);
  });
  it('trainingRewards adds the penalty to the mixed reward', () => {
    const eps = [{ reward: REWARD, responseTokens: 10 }, { reward: REWARD, responseTokens: 90 }];
    const r = trainingRewards(eps, { rewardWeights: { outcome: 1 }, overlongPenalty: op });
    expect(r[0]).toBeCloseTo(1, 15);
    expect(r[1]).toBeCloseTo(0.5, 15);
  });
});

describe('turnRewardsFromRunningTotals', () => {
  it('differences the running total and sums back to the final total', () => {
    const t = turnRewardsFromRunningTotals([0.25, 0.25, 1]);
    expect(t).toEqual([0.25, 0, 0.75]);
    expect(t.reduce((a, b) => a + b, 0)).toBe(1);
  });
});
