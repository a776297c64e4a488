// Float64 random arrays for reference tests (the shared util/rng helpers return Float32Array).
import type { Rng } from '../../util/rng';

/** n standard-normal values times std. */
export function randn64(rng: Rng, n: number, std = 1): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.normal(0, std);
  return out;
}

/** n integers uniform in [lo, hi] inclusive. */
export function randint32(rng: Rng, n: number, lo: number, hi: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.int(lo, hi);
  return out;
}

/** Σ a·b: turns an op's output into a scalar loss whose gradient w.r.t. the output is b. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`dot: length ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
