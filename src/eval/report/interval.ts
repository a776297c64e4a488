// 95 % intervals for the figures of a report: Wilson's score interval for a rate (successes out of
// n; sound at small n and near 0 or 1, unlike the normal approximation), and for the mean of a
// reward component (values in [0, 1]): Wilson when every value is 0 or 1, else the normal
// approximation of the mean clipped to [0, 1].

/** z for a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

/** A rate with its 95 % interval. */
export interface Rate {
  /** Successes (for a mean: the sum of the values). */
  successes: number;
  n: number;
  /** successes / n (0 when n = 0). */
  rate: number;
  /** Lower and upper bound of the 95 % interval (0 and 1 when n = 0). */
  lo: number;
  hi: number;
}

/** Wilson score interval of `successes` out of `n`. */
export function wilson(successes: number, n: number, z = Z95): Rate {
  if (!Number.isInteger(n) || n < 0) throw new Error(`wilson: n must be a non-negative integer (got ${n})`);
  if (!(successes >= 0 && successes <= n)) throw new Error(`wilson: successes must lie in [0, n] (got ${successes} of ${n})`);
  if (n === 0) return { successes: 0, n: 0, rate: 0, lo: 0, hi: 1 };
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { successes, n, rate: p, lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}

/** Mean of values in [0, 1] with a 95 % interval (Wilson when all are 0/1). */
export function meanInterval(values: readonly number[], z = Z95): Rate {
  const n = values.length;
  const sum = values.reduce((a, b) => a + b, 0);
  if (values.every((v) => v === 0 || v === 1)) return wilson(sum, n, z);
  const mean = sum / n;
  const variance = n > 1 ? values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1) : 0;
  const half = z * Math.sqrt(variance / n);
  return { successes: sum, n, rate: mean, lo: Math.max(0, mean - half), hi: Math.min(1, mean + half) };
}

/** "62.5 % [56.4, 68.2]" (percent, the interval in brackets). */
export function formatRate(r: Rate, digits = 1): string {
  const pct = (x: number) => (100 * x).toFixed(digits);
  return `${pct(r.rate)} % [${pct(r.lo)}, ${pct(r.hi)}]`;
}
