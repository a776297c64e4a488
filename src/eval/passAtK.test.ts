import { describe, expect, it } from 'vitest';
import { meanPassAtK, passAtK } from './passAtK';

/** C(n, k) by the multiplicative formula (exact for the small values used here). */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

describe('passAtK', () => {
  it('matches hand-computed values', () => {
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12); // pass@1 = c / n
    expect(passAtK(5, 2, 2)).toBeCloseTo(1 - 3 / 10, 12); // 1 − C(3,2)/C(5,2)
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12); // 1 − C(7,5)/C(10,5)
    expect(passAtK(10, 0, 5)).toBe(0);
    expect(passAtK(10, 10, 1)).toBe(1);
    expect(passAtK(4, 1, 4)).toBe(1); // n = k: any success → 1
    expect(passAtK(4, 0, 4)).toBe(0);
    expect(passAtK(10, 6, 5)).toBe(1); // n − c < k: every draw of 5 has a success
  });

  it('equals 1 − C(n−c, k)/C(n, k) on a grid', () => {
    for (let n = 1; n <= 12; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) expect(passAtK(n, c, k)).toBeCloseTo(1 - choose(n - c, k) / choose(n, k), 10);
      }
    }
  });

  it('is finite for large n', () => {
    expect(passAtK(1000, 1, 100)).toBeCloseTo(0.1, 10);
  });

  it('rejects impossible inputs with a message saying what to change', () => {
    expect(() => passAtK(3, 1, 4)).toThrow(/needs at least k samples/);
    expect(() => passAtK(3, 4, 1)).toThrow(/0 ≤ c ≤ n/);
    expect(() => passAtK(3, 1, 0)).toThrow(/k ≥ 1/);
  });

  it('averages over tasks', () => {
    expect(meanPassAtK([{ n: 5, c: 2 }, { n: 5, c: 0 }], 1)).toBeCloseTo(0.2, 12);
    expect(meanPassAtK([], 1)).toBe(0);
  });
});
