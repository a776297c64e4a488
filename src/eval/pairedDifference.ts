// A 95 % interval for the difference of two success rates measured on the SAME n tasks (paired
// binary outcomes): Newcombe's hybrid-score interval, "method 10" of R. G. Newcombe (1998),
// "Improved confidence intervals for the difference between binomial proportions based on paired
// data", Stat Med 17:2635–2650. Two independent Wilson intervals ignore that both models met the
// same tasks; pairing removes the tasks' own difficulty from the comparison, so a gap of a few
// points can be resolved where two separate intervals overlap.
//
// Table of the n tasks:  a = both succeed, b = x only, c = y only, d = neither.
//   p1 = (a+b)/n, p2 = (a+c)/n, Δ = p1 − p2 = (b − c)/n
//   (l1, u1), (l2, u2): Wilson 95 % intervals of p1 and p2 (no continuity correction)
//   φ = C / √((a+b)(c+d)(a+c)(b+d)),  φ = 0 when that product is 0, where
//       C = ad − bc − n/2  if ad − bc > n/2,   C = 0  if 0 ≤ ad − bc ≤ n/2,   C = ad − bc  if ad − bc < 0
//   δ = √((p1−l1)² − 2φ(p1−l1)(u2−p2) + (u2−p2)²)
//   ε = √((u1−p1)² − 2φ(u1−p1)(p2−l2) + (p2−l2)²)
//   interval: [Δ − δ, Δ + ε]
// The shrunken numerator C is part of the published method 10 (it is what reproduces the paper's
// Table III; R: contingencytables, ratesci, biostatUZH do the same). With the plain Pearson φ,
// two models that agree on every task get the zero-width interval [0, 0] (φ = 1), whatever n.

import { wilson } from './report';

export interface PairedDifference {
  /** p(x) − p(y), in [−1, 1]. */
  diff: number;
  /** 95 % interval of the difference. */
  lo: number;
  hi: number;
  /** Tasks (pairs). */
  n: number;
  /** Discordant tasks: solved by x only (b), by y only (c). */
  onlyX: number;
  onlyY: number;
}

/** Success of x minus success of y over the same tasks (x[i], y[i]: task i), Newcombe's method 10. */
export function pairedDifference(x: readonly boolean[], y: readonly boolean[]): PairedDifference {
  if (x.length !== y.length) throw new Error(`pairedDifference: ${x.length} outcomes against ${y.length}; pair the two models' outcomes on the same tasks, one per task`);
  const n = x.length;
  if (n === 0) throw new Error('pairedDifference: no tasks; a paired interval needs at least one task scored for both models');
  let a = 0, b = 0, c = 0;
  for (let i = 0; i < n; i++) {
    if (x[i] && y[i]) a++;
    else if (x[i]) b++;
    else if (y[i]) c++;
  }
  const d = n - a - b - c;
  const p1 = (a + b) / n;
  const p2 = (a + c) / n;
  const w1 = wilson(a + b, n);
  const w2 = wilson(a + c, n);
  const product = (a + b) * (c + d) * (a + c) * (b + d);
  const cross = a * d - b * c;
  const shrunk = cross > n / 2 ? cross - n / 2 : cross >= 0 ? 0 : cross;
  const phi = product === 0 ? 0 : shrunk / Math.sqrt(product);
  // max(0, ·): at |φ| = 1 the two squares cancel and rounding can leave a tiny negative number
  const delta = Math.sqrt(Math.max(0, (p1 - w1.lo) ** 2 - 2 * phi * (p1 - w1.lo) * (w2.hi - p2) + (w2.hi - p2) ** 2));
  const epsilon = Math.sqrt(Math.max(0, (w1.hi - p1) ** 2 - 2 * phi * (w1.hi - p1) * (p2 - w2.lo) + (p2 - w2.lo) ** 2));
  const diff = p1 - p2;
  return { diff, lo: Math.max(-1, diff - delta), hi: Math.min(1, diff + epsilon), n, onlyX: b, onlyY: c };
}
