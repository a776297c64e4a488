// The SFT-vs-RL comparison's curve at matched compute (comparison.ts MatchedCurvePoint) as
// `npm run learn` prints and records it: at each of GRPO's validation points, both arms' success on
// the first task set and their gap paired task by task (Newcombe). One endpoint pair moves by
// several points with an SFT step more or less; the curve says whether the gap holds along the way.
import { formatRate, type Rate } from '../eval/report';
import { armDifference } from './armDifference';
import type { MatchedCurvePoint } from './comparison';

export interface MatchedCurveRow {
  taskSet: string;
  split: string;
  grpo_step: number;
  sft_only_step: number;
  /** Forward-token-equivalents GRPO had spent (the arm's step costs about as much). */
  compute: number;
  after_grpo: Rate;
  sft_only: Rate;
  /** GRPO − SFT only, paired task by task: the difference and its 95 % interval, in −1…1. */
  grpo_minus_sft_only: { diff: number; lo: number; hi: number; n: number };
}

/** One row per curve point (the first task set of each evaluation is compared). */
export function matchedCurveRows(points: readonly MatchedCurvePoint[]): MatchedCurveRow[] {
  return points.flatMap((p) => {
    const [g, s] = [p.grpo.taskSets[0], p.sftOnly.taskSets[0]];
    if (!g || !s) return [];
    const d = armDifference(g, s);
    return [{
      taskSet: g.taskSet, split: p.grpo.split, grpo_step: p.grpoStep, sft_only_step: p.sftStep, compute: p.compute,
      after_grpo: g.model.success, sft_only: s.model.success, grpo_minus_sft_only: { diff: d.diff, lo: d.lo, hi: d.hi, n: d.n },
    }];
  });
}

const signed = (v: number): string => `${v >= 0 ? '+' : '−'}${Math.abs(100 * v).toFixed(1)}`;

/** A printable table of the rows (nothing when there are none). */
export function formatMatchedCurve(rows: readonly MatchedCurveRow[]): string[] {
  if (!rows.length) return [];
  return [
    `matched-compute curve, ${rows[0].taskSet} ${rows[0].split} (n = ${rows[0].after_grpo.n} per point; the SFT-only arm after the SFT steps that cost what GRPO had spent):`,
    '| GRPO step | SFT-only step | M forward-token-equivalents | GRPO | SFT only | GRPO − SFT only (paired) |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const d = r.grpo_minus_sft_only;
      return `| ${r.grpo_step} | ${r.sft_only_step} | ${(r.compute / 1e6).toFixed(2)} | ${formatRate(r.after_grpo)} | ${formatRate(r.sft_only)} | ${signed(d.diff)} [${signed(d.lo)}, ${signed(d.hi)}] |`;
    }),
  ];
}
