// The merge tuner (mergeTune.ts) with a stubbed scorer: the grid per method, the choice by the
// criterion (mean validation reward over task sets, then success, then grid order), and that it
// only ever evaluates the validation split; the target pick (worst gap to the own specialist) by hand.
import { describe, expect, it } from 'vitest';
import type { EvalSplit } from './config';
import { cellOfValues } from './mergeTable';
import { DEFAULT_TUNE_GRID, formatHyper, type MergeHyper, mergeCandidates, parseGridList, parseWeightVectors, pickAcrossMethods, pickByWorstGap, sameHyper, tuneMerge } from './mergeTune';

/** Cells of two task sets whose episode rewards are `rewards[set]` (success: reward ≥ 1). */
const cells = (rewards: Record<string, number[]>) =>
  Object.fromEntries(Object.entries(rewards).map(([set, rs]) => [set, cellOfValues(rs.map((total) => ({ success: total >= 1, total, components: { format: total } })))]));

/** A stub "model": its weights carry the candidate's hyper-parameters, the scorer reads them back. */
const stub = (table: (h: MergeHyper) => Record<string, number[]>) => {
  const splits: EvalSplit[] = [];
  const made = new WeakMap<Map<string, Float32Array>, MergeHyper>();
  return {
    splits,
    merge: async (h: MergeHyper) => {
      const w = new Map([['h', new Float32Array(1)]]);
      made.set(w, h);
      return w;
    },
    score: async (w: Map<string, Float32Array>, split: EvalSplit, n: number) => {
      splits.push(split);
      const rewards = table(made.get(w)!);
      for (const rs of Object.values(rewards)) expect(rs.length).toBe(n);
      return cells(rewards);
    },
  };
};

describe('merge tuning', () => {
  it('grid per method: λ for task arithmetic, λ × density for TIES / DARE, t for SLERP, one as-configured candidate for linear and RAM', () => {
    const grid = { lambda: [0.5, 1], density: [0.3, 0.7], t: [0.2] };
    expect(mergeCandidates('task-arithmetic', grid)).toEqual([{ lambda: 0.5 }, { lambda: 1 }]);
    for (const m of ['ties', 'dare-linear', 'dare-ties']) expect(mergeCandidates(m, grid)).toEqual([{ lambda: 0.5, density: 0.3 }, { lambda: 0.5, density: 0.7 }, { lambda: 1, density: 0.3 }, { lambda: 1, density: 0.7 }]);
    expect(mergeCandidates('slerp', grid)).toEqual([{ t: 0.2 }]);
    expect(mergeCandidates('linear', grid)).toEqual([{}]);
    expect(mergeCandidates('ram', grid)).toEqual([{}]);
    expect(mergeCandidates('ties', DEFAULT_TUNE_GRID)).toHaveLength(12);
    expect(() => mergeCandidates('ties', { ...grid, density: [] })).toThrow(/no density values, and ties needs them/);
  });

  it('a weights grid: the methods that weigh their models try each vector, outermost; RAM and SLERP do not', () => {
    const grid = { lambda: [0.5, 1], density: [0.3], t: [0.2], weights: [[1, 1], [0.5, 1]] };
    expect(mergeCandidates('linear', grid)).toEqual([{ weights: [1, 1] }, { weights: [0.5, 1] }]);
    expect(mergeCandidates('task-arithmetic', grid)).toEqual([{ weights: [1, 1], lambda: 0.5 }, { weights: [1, 1], lambda: 1 }, { weights: [0.5, 1], lambda: 0.5 }, { weights: [0.5, 1], lambda: 1 }]);
    for (const m of ['ties', 'dare-linear', 'dare-ties']) expect(mergeCandidates(m, grid)).toHaveLength(4);
    expect(mergeCandidates('ram', grid)).toEqual([{}]);
    expect(mergeCandidates('slerp', grid)).toEqual([{ t: 0.2 }]);
    expect(mergeCandidates('linear', { ...grid, weights: [] })).toEqual([{}]);
    expect(formatHyper({ weights: [0.5, 1], lambda: 0.7 })).toBe('weights 0.5/1, λ 0.7');
  });

  it('reads weight vectors from the CLI: one weight per specialist, non-negative, not all 0, no repeats', () => {
    expect(parseWeightVectors('tune-weights', '1,1; 0.5,1 ;1,0.5', 2)).toEqual([[1, 1], [0.5, 1], [1, 0.5]]);
    expect(() => parseWeightVectors('tune-weights', '1,1;1', 2)).toThrow(/'1' has 1 weight, the table merges 2 specialists: give 2 comma-separated weights per vector, vectors separated by ';' \(e.g. 1,1;0.5,1\)/);
    expect(() => parseWeightVectors('tune-weights', '1,-1', 2)).toThrow(/'-1' in '1,-1' is not a weight in \[0, 100\]/);
    expect(() => parseWeightVectors('tune-weights', '0,0', 2)).toThrow(/every weight of '0,0' is 0/);
    expect(() => parseWeightVectors('tune-weights', '1,1;1,1', 2)).toThrow(/a vector is listed twice/);
  });

  it('picks the best mean validation reward over task sets, and evaluates nothing but the validation split', async () => {
    // λ 0.5 is best on route4 alone, λ 0.7 best on the mean of both sets
    const s = stub((h) => ({
      route4: { 0.3: [0.1, 0.1], 0.5: [0.9, 0.9], 0.7: [0.6, 0.6], 1: [0, 0] }[h.lambda!]!,
      route8: { 0.3: [0.1, 0.1], 0.5: [0.1, 0.1], 0.7: [0.6, 0.6], 1: [0, 0] }[h.lambda!]!,
    }));
    const r = await tuneMerge({ method: 'task-arithmetic', candidates: mergeCandidates('task-arithmetic', DEFAULT_TUNE_GRID), n: 2, ...s });
    expect(r.chosen).toEqual({ lambda: 0.7 });
    expect(r.score.reward).toBeCloseTo(0.6);
    expect(r.candidates.map((c) => c.score.reward.toFixed(2))).toEqual(['0.10', '0.50', '0.60', '0.00']);
    expect(r.episodes).toBe(4 * 2 * 2); // candidates × task sets × n
    expect(s.splits).toEqual(['validation', 'validation', 'validation', 'validation']);
    expect(r.splits).toEqual(s.splits);
  });

  it('ties: equal reward → higher success wins; equal both → the first in grid order', async () => {
    // density 0.3 and 0.7 both mean reward 0.5; only 0.7's comes with successes (1 and 0 vs 0.5 and 0.5)
    const bySuccess = stub((h) => ({ a: h.density === 0.7 ? [1, 0] : h.density === 0.3 ? [0.5, 0.5] : [0.2, 0.2] }));
    const r = await tuneMerge({ method: 'ties', candidates: mergeCandidates('ties', { lambda: [1], density: [0.3, 0.5, 0.7], t: [] }), n: 2, ...bySuccess });
    expect(r.chosen).toEqual({ lambda: 1, density: 0.7 });
    const flat = stub(() => ({ a: [0.4, 0.4] }));
    const first = await tuneMerge({ method: 'ties', candidates: mergeCandidates('ties', { lambda: [0.5, 1], density: [0.3], t: [] }), n: 2, ...flat });
    expect(first.chosen).toEqual({ lambda: 0.5, density: 0.3 });
  });

  it("the pick across methods: the best method's validation choice by the same criterion; a tie keeps the method listed first", async () => {
    // ties' best candidate: reward 0.5; linear's one candidate: 0.6; ram's: 0.6 with the same success → linear (listed first)
    const ties = await tuneMerge({ method: 'ties', candidates: mergeCandidates('ties', { lambda: [0.5, 1], density: [0.5], t: [] }), n: 2, ...stub((h) => ({ a: h.lambda === 1 ? [0.5, 0.5] : [0.2, 0.2] })) });
    const linear = await tuneMerge({ method: 'linear', candidates: mergeCandidates('linear', DEFAULT_TUNE_GRID), n: 2, ...stub(() => ({ a: [0.6, 0.6] })) });
    const ram = await tuneMerge({ method: 'ram', candidates: mergeCandidates('ram', DEFAULT_TUNE_GRID), n: 2, ...stub(() => ({ a: [0.6, 0.6] })) });
    expect(linear.chosen).toEqual({});
    expect(pickAcrossMethods([ties, linear, ram]).method).toBe('linear');
    expect(pickAcrossMethods([ties, ram, linear]).method).toBe('ram');
    expect(pickAcrossMethods([ties]).method).toBe('ties');
    // equal reward, higher success wins across methods as within one
    const succeeds = await tuneMerge({ method: 'slerp', candidates: [{ t: 0.5 }], n: 2, ...stub(() => ({ a: [1.2, 0] })) });
    expect(pickAcrossMethods([linear, succeeds]).method).toBe('slerp');
    expect(() => pickAcrossMethods([])).toThrow(/no method was scored on validation/);
  });

  it('the target pick: the candidate whose worst task set is closest to its own specialist on validation, across methods and grid points', async () => {
    // specialists on validation: a 0.8 on its set, b 0.4 on its set
    const specialists = cells({ a: [0.8, 0.8], b: [0.4, 0.4] });
    // ties λ 0.5: mean 0.65 (a 0.9, b 0.4) → gaps +0.1 / 0 → worst 0; ties λ 1: mean 0.7 (a 1.2, b 0.2) → worst −0.2;
    // linear: mean 0.55 (a 0.7, b 0.4) → worst −0.1. The mean criterion picks ties λ 1; the worst gap picks ties λ 0.5
    const ties = await tuneMerge({ method: 'ties', candidates: mergeCandidates('ties', { lambda: [0.5, 1], density: [0.5], t: [] }), n: 2, ...stub((h) => (h.lambda === 1 ? { a: [1.2, 1.2], b: [0.2, 0.2] } : { a: [0.9, 0.9], b: [0.4, 0.4] })) });
    const linear = await tuneMerge({ method: 'linear', candidates: [{}], n: 2, ...stub(() => ({ a: [0.7, 0.7], b: [0.4, 0.4] })) });
    expect(ties.chosen).toEqual({ lambda: 1, density: 0.5 });
    expect(pickAcrossMethods([ties, linear]).method).toBe('ties');
    const p = pickByWorstGap([linear, ties], specialists);
    expect(p).toMatchObject({ method: 'ties', hyper: { lambda: 0.5, density: 0.5 }, n: 2 });
    expect(p.worstReward).toBeCloseTo(0);
    expect(p.rewardGaps.a).toBeCloseTo(0.1);
    expect(p.rewardGaps.b).toBeCloseTo(0);
    expect(p.successGaps).toEqual({ a: 0, b: 0 }); // no reward reaches 1 on a with the specialist at 0.8 …
    expect(sameHyper(p.hyper, ties.chosen)).toBe(false); // … and the pick is not ties' own choice: the table scores it apart
    // equal worst reward gap → the higher worst success gap; equal both → the first (method order, then grid order):
    // b's specialist: rewards 1 and 0.2 (mean 0.6, success 50 %). λ 0.5 matches it in reward with no success (gap 0, −50 %);
    // λ 1 matches it in both (0, 0) → λ 1, though listed second; two identical candidates → the first
    const sb = cells({ a: [0.8, 0.8], b: [1, 0.2] });
    const flat = await tuneMerge({ method: 'task-arithmetic', candidates: [{ lambda: 0.5 }, { lambda: 1 }], n: 2, ...stub((h) => ({ a: [0.8, 0.8], b: h.lambda === 1 ? [1, 0.2] : [0.6, 0.6] })) });
    expect(pickByWorstGap([flat], sb)).toMatchObject({ hyper: { lambda: 1 }, worstReward: 0, worstSuccess: 0 });
    const same = await tuneMerge({ method: 'task-arithmetic', candidates: [{ lambda: 0.5 }, { lambda: 1 }], n: 2, ...stub(() => ({ a: [0.8, 0.8], b: [1, 0.2] })) });
    expect(pickByWorstGap([same], sb).hyper).toEqual({ lambda: 0.5 });
    expect(pickByWorstGap([linear, same], sb).method).toBe('task-arithmetic'); // linear: b 0.4 → worst −0.2
    expect(() => pickByWorstGap([linear], cells({ c: [1, 1] }))).toThrow(/linear – was not scored on c, so its gap to c's specialist is unknown/);
    expect(() => pickByWorstGap([linear], cells({ a: [1] }))).toThrow(/scored on 2 validation tasks of a, its specialist on 1/);
    expect(() => pickByWorstGap([linear], {})).toThrow(/needs at least one task set/);
  });

  it('grid lists: numbers in range, no repeats, clear errors', () => {
    expect(parseGridList('tune-lambda', '0.3, 0.5,1', -100, 100)).toEqual([0.3, 0.5, 1]);
    expect(() => parseGridList('tune-density', '0,0.5', 0, 1, true)).toThrow(/--tune-density: '0' is not a number in \(0, 1\]/);
    expect(() => parseGridList('tune-t', '0.5,x', 0, 1)).toThrow(/--tune-t: 'x'/);
    expect(() => parseGridList('tune-t', '0.5,', 0, 1)).toThrow(/--tune-t: ''/);
    expect(() => parseGridList('tune-lambda', '1,1', -100, 100)).toThrow(/listed twice/);
  });
});
