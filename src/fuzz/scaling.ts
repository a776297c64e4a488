// "Time roughly linear in input size", checked as a ratio, not a speed: the same work on an input
// 16× larger must take less than LINEAR_SLACK × 16 as long (a quadratic path takes ~256×). Each
// size is timed as the minimum of several repetitions, so a busy machine's pauses mostly drop out.

/** Allowed factor over linear: 16× input may take up to 16 × this much longer. */
export const LINEAR_SLACK = 4;
const GROWTH = 16;
const REPEATS = 5;

function minTimeMs(f: () => void): number {
  let best = Infinity;
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    f();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/**
 * Times `run(make(n))` and `run(make(16n))`; returns the ratio and whether it is within the bound.
 * `n` should make the small case take at least ~1 ms, so timer resolution does not dominate.
 */
export function timeRatio<T>(make: (n: number) => T, run: (input: T) => unknown, n: number): { ratio: number; linear: boolean } {
  const small = make(n);
  const large = make(n * GROWTH);
  run(small); // warm the JIT on both shapes
  run(large);
  const ratio = minTimeMs(() => run(large)) / Math.max(minTimeMs(() => run(small)), 0.05);
  return { ratio, linear: ratio < GROWTH * LINEAR_SLACK };
}
