// Newcombe's paired interval (pairedDifference.ts) against values computed apart (Python, plain
// math, the header's formula) and against the method-10 rows of Newcombe 1998, Table III.
import { describe, expect, it } from 'vitest';
import { pairedDifference } from './pairedDifference';

/** Outcome vectors of a paired table: a both, b x only, c y only, d neither (interleaved, so order is not what pairs them). */
function table(a: number, b: number, c: number, d: number): { x: boolean[]; y: boolean[] } {
  const pairs: [boolean, boolean][] = [];
  const counts: [number, boolean, boolean][] = [[a, true, true], [b, true, false], [c, false, true], [d, false, false]];
  for (let left = true; left;) {
    left = false;
    for (const k of counts) if (k[0] > 0) { pairs.push([k[1], k[2]]); k[0]--; left = true; }
  }
  return { x: pairs.map((p) => p[0]), y: pairs.map((p) => p[1]) };
}

const interval = (a: number, b: number, c: number, d: number) => {
  const { x, y } = table(a, b, c, d);
  return pairedDifference(x, y);
};

describe('pairedDifference (Newcombe 1998, method 10)', () => {
  it('matches values computed by hand (Python, the header formula)', () => {
    // (a, b, c, d) → Δ, lo, hi; φ noted for reading
    const cases: [number, number, number, number, number, number, number][] = [
      [12, 9, 2, 4, 0.2593, 0.0192, 0.4615], // φ 0.1090 (ad − bc = 30 > n/2 = 13.5 → C = 16.5)
      [3, 2, 1, 4, 0.1, -0.2479, 0.4134], // φ 0.2041 (C = 10 − 5)
      [10, 1, 0, 9, 0.05, -0.0781, 0.1732], // φ 0.8040, strongly concordant
      [2, 1, 3, 4, -0.2, -0.5261, 0.2017], // ad − bc = 5 ≤ n/2 → φ 0
      [0, 3, 2, 0, 0.2, -0.5386, 0.7648], // every task discordant: φ −1
    ];
    for (const [a, b, c, d, diff, lo, hi] of cases) {
      const r = interval(a, b, c, d);
      expect(r.diff, `${[a, b, c, d]}`).toBeCloseTo(diff, 4);
      expect(r.lo, `${[a, b, c, d]} lo`).toBeCloseTo(lo, 4);
      expect(r.hi, `${[a, b, c, d]} hi`).toBeCloseTo(hi, 4);
      expect([r.n, r.onlyX, r.onlyY]).toEqual([a + b + c + d, b, c]);
    }
  });

  it("reproduces the method-10 rows of Newcombe 1998, Table III (z = 1.96)", () => {
    // transcribed from the paper's Table III (as two independent public implementations carry it); 4 decimals
    const rows: [number, number, number, number, number, number][] = [
      [36, 12, 2, 0, 0.0569, 0.3404], [20, 12, 2, 16, 0.0562, 0.3292], [18, 12, 2, 18, 0.0562, 0.329],
      [36, 14, 0, 0, 0.1528, 0.4167], [35, 14, 0, 1, 0.1461, 0.4175], [18, 14, 0, 18, 0.1441, 0.3963],
      [2, 97, 1, 0, 0.8721, 0.9854], [0, 29, 1, 0, 0.6666, 0.9882], [2, 98, 0, 0, 0.9178, 0.9945],
      [1, 98, 0, 1, 0.9171, 0.9916], [0, 30, 0, 0, 0.8395, 1], [54, 0, 0, 0, -0.0664, 0.0664],
      [53, 0, 0, 1, -0.0729, 0.0729], [30, 0, 0, 24, -0.0358, 0.0358], [27, 0, 0, 27, -0.0351, 0.0351],
    ];
    for (const [a, b, c, d, lo, hi] of rows) {
      const r = interval(a, b, c, d);
      expect(r.lo, `${[a, b, c, d]} lo`).toBeCloseTo(lo, 3);
      expect(r.hi, `${[a, b, c, d]} hi`).toBeCloseTo(hi, 3);
    }
  });

  it('identical outcomes: difference 0, an interval of positive width around it', () => {
    const x = [true, false, true, true, false, false, true, false, true, false];
    const r = pairedDifference(x, x);
    expect(r.diff).toBe(0);
    expect(r.lo).toBeCloseTo(-0.1666, 4); // (5, 0, 0, 5): φ = (25 − 5)/25 = 0.8
    expect(r.hi).toBeCloseTo(0.1666, 4);
    expect([r.onlyX, r.onlyY]).toEqual([0, 0]);
    const allSolved = pairedDifference([true, true, true], [true, true, true]);
    expect(allSolved.lo).toBeLessThan(0);
    expect(allSolved.hi).toBeGreaterThan(0);
  });

  it('all discordant, one way or the other: the interval stays inside [−1, 1]', () => {
    for (const [b, c] of [[5, 0], [0, 5], [1, 0], [0, 1], [40, 0], [20, 20], [39, 1]]) {
      const r = interval(0, b, c, 0);
      expect(r.diff).toBeCloseTo((b - c) / (b + c), 12);
      expect(r.lo).toBeGreaterThanOrEqual(-1);
      expect(r.hi).toBeLessThanOrEqual(1);
      expect(r.lo).toBeLessThanOrEqual(r.diff);
      expect(r.hi).toBeGreaterThanOrEqual(r.diff);
    }
    expect(interval(0, 5, 0, 0).lo).toBeCloseTo(0.3855, 4);
    expect(interval(0, 0, 5, 0).hi).toBeCloseTo(-0.3855, 4);
  });

  it('swapping x and y mirrors the interval', () => {
    const { x, y } = table(12, 9, 2, 4);
    const r = pairedDifference(x, y);
    const s = pairedDifference(y, x);
    expect(s.diff).toBeCloseTo(-r.diff, 12);
    expect(s.lo).toBeCloseTo(-r.hi, 12);
    expect(s.hi).toBeCloseTo(-r.lo, 12);
    expect([s.onlyX, s.onlyY]).toEqual([r.onlyY, r.onlyX]);
  });

  it('refuses vectors of different lengths and no tasks', () => {
    expect(() => pairedDifference([true], [true, false])).toThrow(/1 outcomes against 2/);
    expect(() => pairedDifference([], [])).toThrow(/no tasks/);
  });
});
