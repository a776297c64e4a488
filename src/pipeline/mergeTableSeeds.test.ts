// The merge table's summary over seeds (mergeTableSeeds.ts): mean and range per row and task set,
// the validation choice per seed, and a refusal to summarize tables that do not line up.
import { describe, expect, it } from 'vitest';
import { cellOfValues, type MergeTableRow } from './mergeTable';
import type { MergeTableJson } from './mergeTableFormat';
import { formatSeedSummary, summarizeSeeds } from './mergeTableSeeds';

/** A cell of n = 4 episodes: `wins` successes (reward 1), the rest reward `rest`. */
const cell = (wins: number, rest: number) => cellOfValues([0, 1, 2, 3].map((i) => ({ success: i < wins, total: i < wins ? 1 : rest, components: {} })));

const table = (seed: number, specialist: [number, number], merge: [number, number], lambda: number): MergeTableJson => {
  const rows: MergeTableRow[] = [
    { label: 'specialist a', kind: 'specialist', cells: { a: cell(...specialist), b: cell(0, 0) } },
    { label: 'merge ties', kind: 'merge', cells: { a: cell(...merge), b: cell(1, 0) }, tuning: { chosen: { lambda, density: 0.5 }, validationReward: 0.3, validationSuccess: 0, validationN: 2, candidates: 12 } },
    { label: 'keyword rule', kind: 'baseline', cells: { a: cell(2, 0) } },
  ];
  return { split: 'test', seed, n: 4, taskSets: ['a', 'b'], methods: ['ties'], rows, tuning: [], evaluations: [], compute: { specialists: 0, multiTask: 0 }, seconds: { specialistsRun: 0, multiTaskRun: 0, merges: 0 }, specialists: ['a'] };
};

describe('merge table over seeds', () => {
  it('mean and range over seeds of success and mean reward, per row and task set', () => {
    // specialist on a: success 1/4, 3/4, 2/4 → 0.5 [0.25, 0.75]; reward (1 + 3·0.2)/4 = 0.4, (3 + 0.2)/4 = 0.8, (2 + 2·0.2)/4 = 0.6 → 0.6 [0.4, 0.8]
    const s = summarizeSeeds([table(1, [1, 0.2], [0, 0], 0.5), table(2, [3, 0.2], [0, 0.4], 1), table(3, [2, 0.2], [4, 0], 0.5)]);
    expect(s.seeds).toEqual([1, 2, 3]);
    const sa = s.rows[0].cells.a;
    expect(sa.success.mean).toBeCloseTo(0.5);
    expect([sa.success.min, sa.success.max]).toEqual([0.25, 0.75]);
    expect(sa.reward.mean).toBeCloseTo(0.6);
    expect(sa.reward.min).toBeCloseTo(0.4);
    expect(sa.reward.max).toBeCloseTo(0.8);
    // merge on a: rewards 0, 0.4, 1 → mean 0.4667; success 0, 0, 1 → 1/3
    expect(s.rows[1].cells.a.reward.mean).toBeCloseTo(1.4 / 3);
    expect(s.rows[1].cells.a.success.mean).toBeCloseTo(1 / 3);
    expect(s.rows[1].chosen).toEqual(['λ 0.5, density 0.5', 'λ 1, density 0.5', 'λ 0.5, density 0.5']);
    expect(s.rows[0].chosen).toBeUndefined();
    expect(Object.keys(s.rows[2].cells)).toEqual(['a']); // a baseline only where it applies
    const md = formatSeedSummary(s);
    expect(md).toContain('| specialist a | 50.0 % [25.0, 75.0] | 0.600 [0.400, 0.800] | 0.0 % [0.0, 0.0] | 0.000 [0.000, 0.000] |');
    expect(md).toContain('| keyword rule | 50.0 % [50.0, 50.0] | 0.500 [0.500, 0.500] | – | – |');
  });

  it("each merge's success minus its task set's own specialist's, per seed, then mean and range", () => {
    // seed 1: merge 0/4 vs specialist 1/4 on a → −25 points; seed 2: 0/4 vs 3/4 → −75; seed 3: 4/4 vs 2/4 → +50
    const s = summarizeSeeds([table(1, [1, 0.2], [0, 0], 0.5), table(2, [3, 0.2], [0, 0.4], 1), table(3, [2, 0.2], [4, 0], 0.5)]);
    const gap = s.rows[1].gapToSpecialist!;
    expect(gap.a.perSeed).toEqual([-0.25, -0.75, 0.5]);
    expect(gap.a.mean).toBeCloseTo(-0.5 / 3);
    expect([gap.a.min, gap.a.max]).toEqual([-0.75, 0.5]);
    expect(gap.b).toBeUndefined(); // task set b has no specialist row
    expect(s.rows[0].gapToSpecialist).toBeUndefined(); // specialists and baselines are not merges
    expect(s.rows[2].gapToSpecialist).toBeUndefined();
    expect(formatSeedSummary(s)).toContain('| merge ties | −16.7 [−75.0, +50.0] (−25.0 / −75.0 / +50.0) |');
  });

  it('refuses tables with other rows or another n', () => {
    const other = table(2, [1, 0], [0, 0], 1);
    other.rows.pop();
    expect(() => summarizeSeeds([table(1, [1, 0], [0, 0], 1), other])).toThrow(/seed 2 has other rows than seed 1/);
    expect(() => summarizeSeeds([table(1, [1, 0], [0, 0], 1), { ...table(2, [1, 0], [0, 0], 1), n: 8 }])).toThrow(/same task sets with the same n/);
    expect(() => summarizeSeeds([])).toThrow(/no runs/);
  });
});
