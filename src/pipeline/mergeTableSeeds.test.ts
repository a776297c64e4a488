// The merge table's summary over seeds (mergeTableSeeds.ts): mean and range per row and task set,
// the validation choice per seed, each seed's paired interval to the own specialist (tables saved
// without per-task outcomes show '–'), and a refusal to summarize tables that do not line up.
import { describe, expect, it } from 'vitest';
import { cellOfValues, type MergeTableRow } from './mergeTable';
import type { MergeTableJson } from './mergeTableFormat';
import { formatSeedSummary, summarizeSeeds } from './mergeTableSeeds';

/** A cell of n = 4 episodes: `wins` successes (reward 1) on the first tasks, the rest reward `rest`. */
const cell = (wins: number, rest: number) => cellOfValues([0, 1, 2, 3].map((i) => ({ success: i < wins, total: i < wins ? 1 : rest, components: {} })));
/** A cell with these per-task outcomes ('1' solved, reward 1). */
const cellFrom = (outcomes: string) => cellOfValues([...outcomes].map((o) => ({ success: o === '1', total: Number(o), components: {} })));
/** The table as saved before cells recorded per-task outcomes. */
const withoutOutcomes = (t: MergeTableJson): MergeTableJson => ({
  ...t, rows: t.rows.map((r) => ({ ...r, cells: Object.fromEntries(Object.entries(r.cells).map(([set, { outcomes: _, ...c }]) => [set, c])) })),
});

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
    // paired per seed (Newcombe method 10, computed apart): seed 1 merge 0000 vs specialist 1000 → (a, b, c, d) = (0, 0, 1, 3): −25.0 [−69.9, +28.1];
    // seed 2 0000 vs 1110 → (0, 0, 3, 1): −75.0 [−95.4, −8.5]; seed 3 1111 vs 1100 → (2, 2, 0, 0): +50.0 [−10.2, +85.0]
    expect(gap.a.paired.map((p) => [p!.onlyX, p!.onlyY])).toEqual([[0, 1], [0, 3], [2, 0]]);
    expect(gap.a.paired[1]!.lo).toBeCloseTo(-0.9544, 4);
    expect(gap.a.paired[1]!.hi).toBeCloseTo(-0.0852, 4);
    const md = formatSeedSummary(s);
    expect(md).toContain('| model | a | a paired, per seed |');
    expect(md).toContain('| merge ties | −16.7 [−75.0, +50.0] (−25.0 / −75.0 / +50.0) | −25.0 [−69.9, +28.1] / −75.0 [−95.4, −8.5] / +50.0 [−10.2, +85.0] |');
    expect(md).toContain('The intervals are per seed (each seed has its own tasks and its own models); no interval over seeds is claimed.');
  });

  it("validation's pick per seed and whether it meets the target; absent when a table did not record a pick", () => {
    // seed 1: merge 0/4 vs specialist 1/4 on a → −25 points, not met; seed 3: 4/4 vs 2/4 → +50, met
    const runs = [{ ...table(1, [1, 0.2], [0, 0], 0.5), validationPick: 'ties' }, { ...table(3, [2, 0.2], [4, 0], 0.5), validationPick: 'ties' }];
    const s = summarizeSeeds(runs);
    expect(s.picks!.map((p) => [p.seed, p.label, p.met])).toEqual([[1, 'merge ties', false], [3, 'merge ties', true]]);
    expect(s.picks![0].gaps).toEqual({ a: -0.25 });
    expect(formatSeedSummary(s)).toContain("Validation's pick across methods, per seed (success minus the own specialist's on test, points): seed 1 merge ties (a −25.0: not met); seed 3 merge ties (a +50.0: met). Target (within 2 points of every specialist) met by validation's pick on 1 of 2 seeds.");
    const old = summarizeSeeds([runs[0], table(2, [1, 0], [0, 0], 1)]);
    expect(old.picks).toBeUndefined();
    expect(formatSeedSummary(old)).not.toContain("Validation's pick");
  });

  it("validation's target pick per seed that recorded one, from its own test cells; the seeds run before it are named", () => {
    // seed 3: the pick was merged apart, its test cells a 3/4 vs the specialist's 2/4 → +25, met; seeds 1 and 2 recorded none
    const pick = { method: 'ties', hyper: { lambda: 0.7, density: 0.3 }, rewardGaps: { a: 0 }, successGaps: { a: 0 }, worstReward: 0, worstSuccess: 0, n: 2 };
    const seed3 = { ...table(3, [2, 0.2], [0, 0], 0.5), targetPick: { ...pick, cells: { a: cell(3, 0), b: cell(0, 0) }, row: null, digest: '0', specialistValidation: {} } };
    const s = summarizeSeeds([table(1, [1, 0.2], [0, 0], 0.5), table(2, [3, 0.2], [0, 0.4], 1), seed3]);
    expect(s.targetPicks).toEqual([{ seed: 3, hyper: 'λ 0.7, density 0.3', label: 'merge ties', gaps: { a: 0.25 }, met: true }]);
    expect(formatSeedSummary(s)).toContain("Validation's target pick (worst gap to the own specialist on validation), per seed (success minus the own specialist's on test, points): seed 3 merge ties (λ 0.7, density 0.3; a +25.0: met). Target met by the target pick on 1 of 1 seeds (seeds 1, 2 ran before the target pick was recorded).");
    // the row 'merge ties' (0/4 on a) is not what is read: the pick's own cells are
    expect(summarizeSeeds([seed3]).targetPicks![0].gaps).toEqual({ a: 0.25 });
    expect(summarizeSeeds([table(1, [1, 0.2], [0, 0], 0.5)]).targetPicks).toBeUndefined();
  });

  it('pairs task by task: the same counts on other tasks give another interval', () => {
    const t = table(1, [2, 0], [2, 0], 1);
    // merge solves tasks 2, 3; the specialist tasks 0, 1: (a, b, c, d) = (0, 2, 2, 0), φ −1 → +0.0 [−70.0, +70.0];
    // had they solved the same two tasks, (2, 0, 0, 2) → +0.0 [−35.0, +35.0]
    t.rows[0].cells.a = cellFrom('1100');
    t.rows[1].cells.a = cellFrom('0011');
    const same = table(2, [2, 0], [2, 0], 1);
    const md = formatSeedSummary(summarizeSeeds([t, same]));
    expect(md).toContain('| +0.0 [+0.0, +0.0] (+0.0 / +0.0) | +0.0 [−70.0, +70.0] / +0.0 [−35.0, +35.0] |');
  });

  it("tables saved without per-task outcomes still summarize; their seeds' paired intervals read –", () => {
    const runs = [table(1, [1, 0.2], [0, 0], 0.5), table(2, [3, 0.2], [0, 0.4], 1)];
    const old = summarizeSeeds(runs.map(withoutOutcomes));
    expect(old.rows[1].gapToSpecialist!.a.paired).toEqual([null, null]);
    expect(old.rows[1].gapToSpecialist!.a.perSeed).toEqual([-0.25, -0.75]);
    expect(formatSeedSummary(old)).toContain('| merge ties | −50.0 [−75.0, −25.0] (−25.0 / −75.0) | – |');
    const mixed = summarizeSeeds([withoutOutcomes(runs[0]), runs[1]]);
    expect(formatSeedSummary(mixed)).toContain('| merge ties | −50.0 [−75.0, −25.0] (−25.0 / −75.0) | – / −75.0 [−95.4, −8.5] |');
  });

  it('refuses a damaged outcomes string', () => {
    const t = table(1, [1, 0], [0, 0], 1);
    t.rows[1].cells.a = { ...t.rows[1].cells.a, outcomes: '01' };
    expect(() => summarizeSeeds([t])).toThrow(/seed 1, merge ties on a: outcomes must be n = 4 characters/);
  });

  it('refuses tables with other rows or another n', () => {
    const other = table(2, [1, 0], [0, 0], 1);
    other.rows.pop();
    expect(() => summarizeSeeds([table(1, [1, 0], [0, 0], 1), other])).toThrow(/seed 2 has other rows than seed 1/);
    expect(() => summarizeSeeds([table(1, [1, 0], [0, 0], 1), { ...table(2, [1, 0], [0, 0], 1), n: 8 }])).toThrow(/same task sets with the same n/);
    expect(() => summarizeSeeds([])).toThrow(/no runs/);
  });
});
