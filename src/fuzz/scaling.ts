// "Time roughly linear in input size", checked as a ratio, not a speed: the same work on an input
// 16× larger must take less than LINEAR_SLACK × 16 as long, where a quadratic path takes ≥ 256×.
// Each size is timed as the minimum of several repetitions, so a busy machine's pauses mostly drop
// out; what remains (garbage collection and caches on the larger input) measured 9–77× for linear
// parsers on this 2-core machine under a load of 11, hence the slack of 8.

/** Allowed factor over linear: 16× input may take up to 16 × this much longer. */
export const LINEAR_SLACK = 8;
const GROWTH = 16;
const REPEATS = 7;

function minTimeMs(f: () => void): number {
  let best = Infinity;
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    f();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/** The small case runs at least this long, so timer resolution and scheduling noise stay small next to it. */
const MIN_SMALL_MS = 3;

/**
 * Times `run(make(n))` and `run(make(16n))`, with n doubled first (up to 256 × n) until the small
 * case takes MIN_SMALL_MS; returns the ratio and whether it is within the bound. Work that stops
 * growing (a capped parser) never reaches MIN_SMALL_MS and simply measures a ratio near 1.
 */
export function timeRatio<T>(make: (n: number) => T, run: (input: T) => unknown, n: number): { ratio: number; linear: boolean } {
  let small = make(n);
  run(small); // warm the JIT
  const maxN = n * 256;
  while (minTimeMs(() => run(small)) < MIN_SMALL_MS && n < maxN) {
    n *= 2;
    small = make(n);
  }
  const large = make(n * GROWTH);
  run(large);
  const ratio = minTimeMs(() => run(large)) / minTimeMs(() => run(small));
  return { ratio, linear: ratio < GROWTH * LINEAR_SLACK };
}
