import { describe, expect, it } from 'vitest';
import type { Reward } from '../../../envs/types';
import { groupAdvantages } from './advantages';
import { componentCreditSteps, creditSteps, type CreditedEpisode, tokenAdvantagesFromSteps, turnStartsOf } from './credit';
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

  it('refuses turn credit with the additive per-turn bonus', () => {
    expect(() => grpoConfig('default', { turnCredit: true, turnCreditCoef: 0.5 })).toThrow(/choose one credit scheme/);
  });
});

// Two multi-turn episodes (G = 2, Dr. GRPO scale s = 1 so the arithmetic stays readable), reward
// = 0.2·auth + 0.8·outcome. A takes 3 turns (starts at tokens 10, 20, 30): authenticates in turn 1,
// succeeds in turn 2 (r = 1). B takes 2 turns (starts 10, 25): authenticates in turn 0, then stalls
// (r = 0.2). mean r = 0.6: A_A = 0.4, A_B = −0.4 (trajectory credit).
// Weighted running values V: A auth [0, .2, .2] outcome [0, 0, .8]; B auth [.2, .2] outcome [0, 0].
// Past P(t) = Σ_k V(t−1): A 0, 0, 0.2; B 0, 0.2, then 0.2 (ended). Baseline mean_j (r_j − P_j(t)):
// t0 (1 + 0.2)/2 = 0.6, t1 (1 + 0)/2 = 0.5, t2 (0.8 + 0)/2 = 0.4. So the turn advantages are
//   A: t0 1 − 0.6 = 0.4, t1 1 − 0.5 = 0.5, t2 0.8 − 0.4 = 0.4;   B: t0 0.2 − 0.6 = −0.4, t1 0 − 0.5 = −0.5.
const MW = { auth: 0.2, outcome: 0.8 };
const multi = (auth: number, outcome: number, perTurn: [number, number][], turnStarts: number[], decidedAt?: Record<string, number>): CreditedEpisode => ({
  reward: { components: { auth, outcome }, weights: MW, total: 0.2 * auth + 0.8 * outcome },
  responseTokens: 10, turnComponents: perTurn.map(([a, o]) => ({ auth: a, outcome: o })), turnStarts, decidedAt,
});
const A_EP = multi(1, 1, [[0, 0], [1, 0], [1, 1]], [10, 20, 30]);
const B_EP = multi(1, 0, [[1, 0], [1, 0]], [10, 25]);
const DR = { scaleByStd: false, advantageEps: 1e-6, rewardWeights: {}, overlongPenalty: null };

/** Advantages of tokens `at` of trajectory s, under the steps. */
function advAt(steps: ReturnType<typeof creditSteps>, A: number[], s: number, at: number[]): number[] {
  return [...tokenAdvantagesFromSteps(Int32Array.from(at.map(() => s)), Int32Array.from(at), A, steps)];
}

describe('turn credit (reward-to-go by turn)', () => {
  it('hand-computed group: each turn is credited with what the episode earned from that turn on, against the group at the same turn', () => {
    const steps = creditSteps([A_EP, B_EP], 2, { ...DR, turnCredit: true, componentCredit: false });
    const A = [0.4, -0.4];
    advAt(steps, A, 0, [10, 19, 20, 29, 30, 40]).forEach((x, i) => expect(x, `A token ${i}`).toBeCloseTo([0.4, 0.4, 0.5, 0.5, 0.4, 0.4][i], 12));
    advAt(steps, A, 1, [10, 24, 25, 30]).forEach((x, i) => expect(x, `B token ${i}`).toBeCloseTo([-0.4, -0.4, -0.5, -0.5][i], 12));
    // trajectory credit: no steps; the first turn always keeps exactly A_i
    expect(creditSteps([A_EP, B_EP], 2, { ...DR, turnCredit: false, componentCredit: false })).toEqual([[], []]);
  });

  it('component credit adds the decision points inside a turn: auth decided at token 22 leaves the rest of turn 1', () => {
    const decided = { ...A_EP, decidedAt: { auth: 22 } };
    const steps = creditSteps([decided, B_EP], 2, { ...DR, turnCredit: true, componentCredit: true });
    // turn 1 up to token 22: 0.5 as above; after it auth is past: (1 − 0.2) − mean(0.2 − 0, 0.2 − 0.2)·… = 0.4
    advAt(steps, [0.4, -0.4], 0, [15, 21, 22, 23, 31]).forEach((x, i) => expect(x, `token ${i}`).toBeCloseTo([0.4, 0.5, 0.5, 0.4, 0.4][i], 12));
  });

  it('the last turn takes the final reward, so a cut episode (env-error: final 0) loses what its turns reported', () => {
    const cut = { ...A_EP, reward: { components: { auth: 0, outcome: 0 }, weights: MW, total: 0 } };
    const steps = creditSteps([cut, B_EP], 2, { ...DR, turnCredit: true, componentCredit: false });
    // A now: r 0, V auth [0, .2, 0]: P 0, 0, 0.2; mean r = 0.1 → t0 −0.1; t1 0 − (0 + 0)/2 = 0; t2 −0.2 − (−0.2 + 0)/2 = −0.1
    advAt(steps, [-0.1, 0.1], 0, [10, 20, 30]).forEach((x, i) => expect(x).toBeCloseTo([-0.1, 0, -0.1][i], 12));
  });

  it('turnStartsOf reads each turn\'s first policy token', () => {
    expect(turnStartsOf([-1, -1, 0, 0, -1, 1, 1, -1, -1, 2])).toEqual([2, 5, 9]);
    expect(turnStartsOf([-1, -1])).toEqual([]);
  });
});
