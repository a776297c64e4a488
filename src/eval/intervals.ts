// Confidence intervals for rates: every success rate a report prints carries its 95 % interval.

/**
 * Wilson score interval for `successes` out of `n` trials (default z = 1.96: 95 %). Unlike the
 * normal approximation it stays inside [0, 1] and is sensible at 0 or n successes and small n.
 * n = 0 gives [0, 1] (nothing is known).
 */
export function wilsonInterval(successes: number, n: number, z = 1.96): [number, number] {
  if (n === 0) return [0, 1];
  if (!(successes >= 0 && successes <= n)) throw new Error(`wilsonInterval: ${successes} successes out of ${n} trials is not a rate`);
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
