import { describe, expect, it } from 'vitest';
import {
  EQUAL_REWARD_TOL,
  groupAdvantages,
  groupsToKeep,
  keepGroups,
  returnsToGo,
  tokenAdvantagesFromTurns,
  turnAdvantages,
} from './advantages';

const EPS = 1e-6;
const GRPO = { scaleByStd: true, advantageEps: EPS, dynamicSampling: false };
const DR_GRPO = { scaleByStd: false, advantageEps: EPS, dynamicSampling: false };

// Three groups of G = 4: mixed, all equal, one winner.
const REWARDS = [1, 0, 0, 1, 0.5, 0.5, 0.5, 0.5, 2, 0, 0, 0];

describe('groupAdvantages', () => {
  it('GRPO: (r − mean)/(unbiased std + eps), hand-computed', () => {
    const { advantages, kept, stats } = groupAdvantages(REWARDS, 4, GRPO);
    const s0 = Math.sqrt(1 / 3); // deviations ±0.5, Σ = 1, ÷ (4 − 1)
    const expected = [0.5 / (s0 + EPS), -0.5 / (s0 + EPS), -0.5 / (s0 + EPS), 0.5 / (s0 + EPS), 0, 0, 0, 0, 1.5 / (1 + EPS), -0.5 / (1 + EPS), -0.5 / (1 + EPS), -0.5 / (1 + EPS)];
    expected.forEach((e, i) => expect(advantages[i]).toBeCloseTo(e, 12));
    expect(kept).toEqual([true, true, true]);
    expect([...stats.groupMean]).toEqual([0.5, 0.5, 0.5]);
    expect(stats.groupStd[0]).toBeCloseTo(s0, 14);
    expect(stats.groupStd[2]).toBeCloseTo(1, 14);
    expect(stats.droppedFraction).toBe(0);
    expect(stats.zeroStdFraction).toBeCloseTo(1 / 3, 14);
  });

  it('Dr. GRPO: r − mean with no std scaling', () => {
    const { advantages } = groupAdvantages(REWARDS, 4, DR_GRPO);
    expect([...advantages]).toEqual([0.5, -0.5, -0.5, 0.5, 0, 0, 0, 0, 1.5, -0.5, -0.5, -0.5]);
  });

  it('dynamic sampling drops the all-equal group and reports the fraction', () => {
    const { advantages, kept, stats } = groupAdvantages(REWARDS, 4, { ...GRPO, dynamicSampling: true });
    expect(kept).toEqual([true, false, true]);
    expect(stats.droppedFraction).toBeCloseTo(1 / 3, 14);
    expect([...advantages.slice(4, 8)]).toEqual([0, 0, 0, 0]);
    expect(advantages[8]).toBeCloseTo(1.5 / (1 + EPS), 12);
    expect(groupsToKeep(REWARDS, 4)).toEqual([true, false, true]);
    expect(keepGroups(['a', 'b', 'c', 'd', 'e', 'f'], [false, true, true], 2)).toEqual(['c', 'd', 'e', 'f']);
  });

  it('treats rewards equal up to rounding as equal', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    const { kept } = groupAdvantages([0.1 + 0.2, 0.3, 1, 1 + 2 * EQUAL_REWARD_TOL], 2, { ...GRPO, dynamicSampling: true });
    expect(kept).toEqual([false, true]);
  });

  it('drops a group with a NaN or infinite reward instead of spreading NaN', () => {
    const { advantages, kept, stats } = groupAdvantages([1, NaN, 0, 1, Infinity, 0], 2, GRPO);
    expect(kept).toEqual([false, true, false]);
    expect(stats.invalidGroups).toBe(2);
    expect([...advantages].every(Number.isFinite)).toBe(true);
    expect(advantages[0]).toBe(0);
  });

  it('rejects rewards that are not whole groups', () => {
    expect(() => groupAdvantages([1, 2, 3], 2, GRPO)).toThrow(/not a whole number of groups/);
  });
});

describe('per-turn credit', () => {
  const CFG = { scaleByStd: false, advantageEps: EPS, turnCreditCoef: 0.5, turnDiscount: 1 };

  it('returnsToGo discounts later turns', () => {
    expect(returnsToGo([1, 0, 2], 0.5)).toEqual([1.5, 1, 2]);
    expect(returnsToGo([], 0.5)).toEqual([]);
  });

  it('A_{i,t} = A_i + coef · (R_{i,t} − group mean of R), hand-computed', () => {
    // group of 2: returns [[1, 0], [0]], mean over the group's three turns = 1/3
    const out = turnAdvantages([0.5, -0.5], [[1, 0], [0]], 2, CFG);
    expect(out[0][0]).toBeCloseTo(0.5 + 0.5 * (2 / 3), 14);
    expect(out[0][1]).toBeCloseTo(0.5 + 0.5 * (-1 / 3), 14);
    expect(out[1][0]).toBeCloseTo(-0.5 + 0.5 * (-1 / 3), 14);
  });

  it('scales by the std of the group returns when scaleByStd', () => {
    const out = turnAdvantages([0, 0], [[1, 0], [0]], 2, { ...CFG, scaleByStd: true, turnCreditCoef: 1 });
    const std = Math.sqrt(((2 / 3) ** 2 + 2 * (1 / 3) ** 2) / 2);
    expect(out[0][0]).toBeCloseTo((2 / 3) / (std + EPS), 12);
  });

  it('coef 0 is the trajectory-level scheme; dropped groups get zeros', () => {
    const out = turnAdvantages([0.7, -0.7, 3, 3], [[1, 0], [0], [1], [1]], 2, { ...CFG, turnCreditCoef: 0 }, [true, false]);
    expect(out).toEqual([[0.7, 0.7], [-0.7], [0], [0]]);
  });

  it('tokenAdvantagesFromTurns maps each token to its trajectory and turn', () => {
    const seq = Int32Array.from([0, 0, 0, 1, 1, -1]);
    const turn = Int32Array.from([-1, 0, 1, 0, -1, -1]);
    const out = tokenAdvantagesFromTurns(seq, turn, [[0.1, 0.2], [0.3]]);
    expect([...out]).toEqual([0, 0.1, 0.2, 0.3, 0, 0]);
    expect(() => tokenAdvantagesFromTurns(Int32Array.from([0]), Int32Array.from([2]), [[1]])).toThrow(/turn 2/);
  });
});
