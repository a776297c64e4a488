// The merge target (mergeTableFormat.ts): a merge meets it when its success is within 2 points of each
// task set's own specialist on that task set; the report names validation's pick and whether it meets
// it, and lists (for reading only) the merges that meet it on test.
import { describe, expect, it } from 'vitest';
import { cellOfValues, type MergeTableRow } from './mergeTable';
import { formatTarget, targetCheck } from './mergeTableFormat';

/** A cell of n = 100 tasks, the first `wins` solved. */
const cell = (wins: number) => cellOfValues(Array.from({ length: 100 }, (_, i) => ({ success: i < wins, total: i < wins ? 1 : 0, components: {} })));

const rows: MergeTableRow[] = [
  { label: 'specialist a', kind: 'specialist', cells: { a: cell(40), b: cell(10) } },
  { label: 'specialist b', kind: 'specialist', cells: { a: cell(5), b: cell(30) } },
  // linear: a −2 (exactly at the bar), b +1 → met; ties: a +5, b −3 → not met; slerp: a −10 → not met
  { label: 'merge linear', kind: 'merge', cells: { a: cell(38), b: cell(31) } },
  { label: 'merge ties', kind: 'merge', cells: { a: cell(45), b: cell(27) }, tuning: { chosen: { lambda: 1, density: 0.3 }, validationReward: 0.25, validationSuccess: 0.2, validationN: 8, candidates: 12 } },
  { label: 'merge slerp', kind: 'merge', cells: { a: cell(30), b: cell(30) } },
  { label: 'keyword rule', kind: 'baseline', cells: { a: cell(90) } },
];

describe('merge target', () => {
  it('gaps to the own specialist per task set; −2 points exactly is within, −3 is not', () => {
    const linear = targetCheck(rows, 'merge linear', ['a', 'b']);
    expect(linear.gaps.a).toBeCloseTo(-0.02);
    expect(linear.gaps.b).toBeCloseTo(0.01);
    expect(linear.met).toBe(true);
    const ties = targetCheck(rows, 'merge ties', ['a', 'b']);
    expect(ties.gaps.b).toBeCloseTo(-0.03);
    expect(ties.met).toBe(false);
    // a task set without a specialist row is left out; no specialist at all → not met (nothing shows the target)
    expect(Object.keys(targetCheck(rows, 'merge linear', ['a', 'c']).gaps)).toEqual(['a']);
    expect(targetCheck(rows, 'merge linear', ['c']).met).toBe(false);
    expect(() => targetCheck(rows, 'merge dare-ties', ['a'])).toThrow(/no row 'merge dare-ties'/);
  });

  it("names validation's pick and its verdict, and which merges meet the target on test (read only)", () => {
    const [pick, meeting] = formatTarget({ rows, taskSets: ['a', 'b'], validationPick: 'ties' });
    expect(pick).toBe("Validation's pick across methods (the tuning criterion over every method's validation choice): **merge ties (λ 1, density 0.3; validation reward 0.250)**. On test, success minus the own specialist's: a +5.0, b −3.0 points → the target (within 2 points of every specialist on its own task set) is **not met**.");
    expect(meeting).toBe('Merges within 2 points of every specialist on test: linear (read only: picking among them needs test, which is what the validation pick avoids).');
    expect(formatTarget({ rows, taskSets: ['a', 'b'] })).toEqual(['Merges within 2 points of every specialist on test: linear.']);
    expect(formatTarget({ rows, taskSets: ['a', 'b'], validationPick: 'linear' })[0]).toContain('a −2.0, b +1.0 points → the target (within 2 points of every specialist on its own task set) is **met**.');
  });
});
