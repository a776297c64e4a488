// Finite-difference gradient checks and the one error measure every test in TabForge uses.
//
//   relativeError(a, b) = max_i |a_i − b_i| / max(max_i |b_i|, TINY),  TINY = 1e-30
//
// b is the reference (expected). The denominator is the largest reference magnitude over the whole
// array (not per element), so tiny entries near zero do not blow the measure up; an all-zero
// reference turns it into the absolute error scaled by 1/TINY (i.e. any difference is huge).
import type { Rng } from '../../util/rng';

const TINY = 1e-30;

/** max|a − b| / max(max|b|, 1e-30); arrays must have equal length. NaN anywhere gives Infinity. */
export function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`relativeError: length ${a.length} vs ${b.length}`);
  let maxDiff = 0;
  let maxRef = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (Number.isNaN(d)) return Infinity;
    if (d > maxDiff) maxDiff = d;
    const r = Math.abs(b[i]);
    if (r > maxRef) maxRef = r;
  }
  return maxDiff / Math.max(maxRef, TINY);
}

/** ∂f/∂x[i] ≈ (f(x + h·e_i) − f(x − h·e_i)) / 2h; x is perturbed in place and restored. */
export function centralDifference(f: () => number, x: Float64Array, i: number, h = 1e-5): number {
  const orig = x[i];
  x[i] = orig + h;
  const fp = f();
  x[i] = orig - h;
  const fm = f();
  x[i] = orig;
  return (fp - fm) / (2 * h);
}

export interface GradCheckOptions {
  /** How many indices to probe; all of x when x.length ≤ samples (default 24). */
  samples?: number;
  /** Finite-difference step (default 1e-5). */
  h?: number;
  /** When given, throw unless every probed entry has |analytic − numeric| ≤ atol + rtol·max|numeric|. */
  rtol?: number;
  /** Absolute allowance used with rtol (default 0). */
  atol?: number;
  /** Chooses the sampled indices; required only when x has more than `samples` entries. */
  rng?: Rng;
}

/**
 * Compares analytic[i] with centralDifference(f, x, i) over sampled indices (all when x is small)
 * and returns relativeError(analytic, numeric) over those indices. f must read x (perturbed in
 * place, then restored) and return a scalar. With opts.rtol it also throws a message listing the
 * offending entries, so a test failure says where the gradient is wrong.
 */
export function checkGradients(
  f: () => number,
  x: Float64Array,
  analytic: Float64Array,
  opts: GradCheckOptions = {},
): number {
  const samples = opts.samples ?? 24;
  const h = opts.h ?? 1e-5;
  if (analytic.length !== x.length) throw new Error(`checkGradients: analytic length ${analytic.length} vs x ${x.length}`);
  let indices: number[];
  if (x.length <= samples) {
    indices = Array.from({ length: x.length }, (_, i) => i);
  } else {
    const rng = opts.rng;
    if (!rng) throw new Error(`checkGradients: x has ${x.length} > ${samples} entries; pass opts.rng to sample indices`);
    indices = Array.from({ length: samples }, () => rng.int(0, x.length - 1));
  }
  const a = indices.map((i) => analytic[i]);
  const n = indices.map((i) => centralDifference(f, x, i, h));
  const worst = relativeError(a, n);
  if (opts.rtol !== undefined) {
    const atol = opts.atol ?? 0;
    let maxRef = 0;
    for (const v of n) maxRef = Math.max(maxRef, Math.abs(v));
    const allowed = atol + opts.rtol * maxRef;
    const bad = indices.filter((_, j) => !(Math.abs(a[j] - n[j]) <= allowed));
    if (bad.length > 0) {
      const lines = indices
        .map((i, j) => ({ i, a: a[j], n: n[j] }))
        .filter((e) => !(Math.abs(e.a - e.n) <= allowed))
        .slice(0, 5)
        .map((e) => `  [${e.i}] analytic ${e.a} vs numeric ${e.n}`);
      throw new Error(`checkGradients: ${bad.length}/${indices.length} entries off by more than ${allowed} (worst relative ${worst}):\n${lines.join('\n')}`);
    }
  }
  return worst;
}
