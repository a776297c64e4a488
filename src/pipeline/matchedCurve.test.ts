// The matched-compute curve's rows and table (matchedCurve.ts): both arms' rates with their Wilson
// intervals, the gap paired by task id (the arm's tasks stored in another order), and nothing printed
// for a run without a curve. Expected gap: Newcombe's method 10 for a 12, b 9, c 2, d 4 (worked apart
// in src/eval/pairedDifference.test.ts): +25.9 [+1.9, +46.1].
import { describe, expect, it } from 'vitest';
import { wilson } from '../eval/report';
import type { MatchedCurvePoint } from './comparison';
import type { EvalSummary, TaskSetEval } from './evalSummary';
import { formatMatchedCurve, matchedCurveRows } from './matchedCurve';

function summary(outcomes: [string, boolean][]): EvalSummary {
  const solved = outcomes.filter(([, ok]) => ok).length;
  const set = { taskSet: 'function-calling/route4', successByTask: Object.fromEntries(outcomes), model: { success: wilson(solved, outcomes.length) } } as unknown as TaskSetEval;
  return { label: 'x', split: 'validation', seeds: [1], taskSets: [set] } as unknown as EvalSummary;
}

describe('matched-compute curve', () => {
  it('pairs the arms task by task at each point and prints one row per point', () => {
    const rows: [boolean, boolean][] = [
      ...Array<[boolean, boolean]>(12).fill([true, true]), ...Array<[boolean, boolean]>(9).fill([true, false]),
      ...Array<[boolean, boolean]>(2).fill([false, true]), ...Array<[boolean, boolean]>(4).fill([false, false]),
    ];
    const ids = rows.map((_, i) => `t${i}`);
    const grpo = summary(ids.map((id, i) => [id, rows[i][0]]));
    const arm = summary(ids.map((id, i) => [id, rows[i][1]] as [string, boolean]).reverse());
    const point: MatchedCurvePoint = { grpoStage: 2, grpoStep: 12, compute: 1.5e6, sftStep: 40, grpo, sftOnly: arm };
    const [r] = matchedCurveRows([point]);
    expect(r.after_grpo.rate).toBeCloseTo(21 / 27, 6);
    expect(r.sft_only.rate).toBeCloseTo(14 / 27, 6);
    expect(r.grpo_minus_sft_only.diff).toBeCloseTo(0.2593, 4);
    expect(r.grpo_minus_sft_only.lo).toBeCloseTo(0.0192, 3);
    expect(r.grpo_minus_sft_only.hi).toBeCloseTo(0.4615, 3);
    const lines = formatMatchedCurve([r]);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain('function-calling/route4 validation (n = 27 per point');
    expect(lines[3]).toBe('| 12 | 40 | 1.50 | 77.8 % [59.2, 89.4] | 51.9 % [34.0, 69.3] | +25.9 [+1.9, +46.1] |');
    expect(formatMatchedCurve([])).toEqual([]);
  });
});
