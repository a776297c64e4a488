// Two evaluations of the same tasks — the GRPO arm and the SFT-only arm of `npm run learn`, or a
// model before and after a stage — compared task by task: Newcombe's paired interval
// (src/eval/pairedDifference.ts) on each task set, and pooled over the seeds' runs. Pairing matters
// because both arms answer the same tasks: two separate Wilson intervals count each task's own
// difficulty twice and overstate the uncertainty of the gap.
//
// The pooled figure concatenates the seeds' tasks (ids carry the seed, so none repeat): it is the
// interval of the gap on those 3 × n tasks for those trained models. It does not include the spread
// between training runs (a new seed trains a new model); the per-seed figures show that spread.
import { pairedDifference, type PairedDifference } from '../eval/pairedDifference';
import type { TaskSetEval } from './evalSummary';

/** Both arms' outcomes on one task set, in x's task order (x = e.g. after GRPO, y = SFT only). */
export interface PairedOutcomes {
  x: boolean[];
  y: boolean[];
}

/** Pairs two evaluations of one task set by task id; refuses when they did not play the same tasks. */
export function pairOutcomes(x: TaskSetEval, y: TaskSetEval): PairedOutcomes {
  if (x.taskSet !== y.taskSet) throw new Error(`armDifference: ${x.taskSet} against ${y.taskSet}; compare evaluations of the same task set`);
  const xs = Object.entries(x.successByTask);
  const ys = y.successByTask;
  const missing = xs.filter(([id]) => !(id in ys)).map(([id]) => id);
  if (missing.length || xs.length !== Object.keys(ys).length) {
    throw new Error(`armDifference on ${x.taskSet}: the two evaluations played different tasks (${xs.length} against ${Object.keys(ys).length}${missing.length ? `; ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ' …' : ''} only in the first` : ''}); evaluate both on the same split, n and seeds`);
  }
  return { x: xs.map(([, ok]) => ok), y: xs.map(([id]) => ys[id]) };
}

/** x − y on one task set, paired task by task. */
export function armDifference(x: TaskSetEval, y: TaskSetEval): PairedDifference {
  const p = pairOutcomes(x, y);
  return pairedDifference(p.x, p.y);
}

/** x − y over the tasks of several runs (one pairing per seed), concatenated. */
export function pooledArmDifference(runs: readonly PairedOutcomes[]): PairedDifference {
  return pairedDifference(runs.flatMap((r) => r.x), runs.flatMap((r) => r.y));
}

const points = (v: number): string => `${v >= 0 ? '+' : '−'}${Math.abs(100 * v).toFixed(1)}`;

/** "+10.9 [+0.3, +21.3] points (paired, n = 128: 21 tasks solved only by the GRPO arm, 7 only by the SFT-only arm)". */
export function formatArmDifference(d: PairedDifference, xName: string, yName: string): string {
  return `${points(d.diff)} [${points(d.lo)}, ${points(d.hi)}] points (paired, n = ${d.n}: ${d.onlyX} tasks solved only by ${xName}, ${d.onlyY} only by ${yName})`;
}
