import { describe, expect, it } from 'vitest';
import type { Reward } from '../../../envs/types';
import { groupAdvantages } from './advantages';
import { componentCreditSteps, type CreditedEpisode, tokenAdvantagesFromSteps } from './componentCredit';
import { grpoConfig } from './config';

const W = { choice: 0.5, args: 0.5 };
const reward = (choice: number, args: number): Reward => ({ components: { choice, args }, weights: W, total: 0.5 * choice + 0.5 * args });
const ep = (choice: number, args: number, decidedAt?: Record<string, number>): CreditedEpisode => ({ reward: reward(choice, args), responseTokens: 10, decidedAt });

// One group of 3: r = 1, 0.5, 0 → mean 0.5, std 0.5 (n − 1), s = 1 / (0.5 + ε) ≈ 2; mean c_choice = 1/3.
//   ep 0: A = 1, choice decided at token 2: later tokens lose s·(0.5 − 1/3) = 1/3 → 2/3 (= s·(c_args − mean c_args))
//   ep 1: A = 0, decided at token 4: later tokens lose 1/3 → −1/3
//   ep 2: A = −1, nothing decided: −1 everywhere
const GROUP = [ep(1, 1, { choice: 2 }), ep(1, 0, { choice: 4 }), ep(0, 0)];

describe('component credit', () => {
  it('hand-computed group: tokens after a decision lose the decided component, tokens up to it keep A_i', () => {
    const cfg = grpoConfig('default', { groupSize: 3, componentCredit: true });
    const steps = componentCreditSteps(GROUP, 3, cfg);
    expect(steps.map((s) => s.map((x) => x.after))).toEqual([[2], [4], []]);
    steps.slice(0, 2).forEach((s) => expect(s[0].delta).toBeCloseTo(1 / 3, 5));
    const A = groupAdvantages(GROUP.map((e) => e.reward.total), 3, cfg).advantages;
    const seqIndex = Int32Array.from([0, 0, 0, 0, 1, 1, 1, -1, 2]);
    const tokenIndex = Int32Array.from([1, 2, 3, -1, 4, 5, 9, -1, 7]);
    const got = tokenAdvantagesFromSteps(seqIndex, tokenIndex, A, steps);
    [1, 1, 2 / 3, 0, 0, -1 / 3, -1 / 3, 0, -1].forEach((want, n) => expect(got[n], `token ${n}`).toBeCloseTo(want, 5));
  });

  it('Dr. GRPO scale (no std), reward-weight overrides, and the over-long penalty stays with every token', () => {
    const cfg = grpoConfig('default', { groupSize: 2, componentCredit: true, scaleByStd: false, rewardWeights: { choice: 2 }, overlongPenalty: { maxLength: 10, bufferLength: 5, factor: 1 } });
    const group = [ep(1, 0, { choice: 0 }), { ...ep(0, 1, { choice: 0 }), responseTokens: 5 }];
    // choice weighs 2: c = 2 and 0, mean 1 → deltas +1 / −1; the penalty (−1 for 10 tokens, 0 for 5) is never split off
    const steps = componentCreditSteps(group, 2, cfg);
    expect(steps).toEqual([[{ after: 0, delta: 1 }], [{ after: 0, delta: -1 }]]);
  });

  it('without decision points every token gets the trajectory advantage', () => {
    const cfg = grpoConfig('default', { groupSize: 3, componentCredit: true });
    const plain = GROUP.map((e) => ({ ...e, decidedAt: undefined }));
    const steps = componentCreditSteps(plain, 3, cfg);
    expect(steps).toEqual([[], [], []]);
    const A = [0.7, -0.2, 0.1];
    expect([...tokenAdvantagesFromSteps(Int32Array.from([0, 1, 2]), Int32Array.from([5, 50, 500]), A, steps)]).toEqual(A);
  });

  it('refuses to combine with per-turn credit', () => {
    expect(() => grpoConfig('default', { componentCredit: true, turnCreditCoef: 0.5 })).toThrow(/choose one credit scheme/);
  });
});
