import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import { centralDifference, checkGradients, relativeError } from './finiteDiff';

describe('finite differences', () => {
  it('relativeError = max|a − b| / max|b|', () => {
    expect(relativeError([1, 2, 3], [1, 2, 4])).toBeCloseTo(0.25, 15);
    expect(relativeError([0, 0], [0, 0])).toBe(0);
    expect(relativeError([NaN], [1])).toBe(Infinity);
    expect(() => relativeError([1], [1, 2])).toThrow(/length/);
  });

  it('central difference of x³ at 2 is 12 and x is restored', () => {
    const x = Float64Array.from([2]);
    expect(centralDifference(() => x[0] ** 3, x, 0)).toBeCloseTo(12, 8);
    expect(x[0]).toBe(2);
  });

  it('checkGradients accepts a right gradient and catches a wrong one', () => {
    const x = Float64Array.from([1, 2, 3]);
    const f = () => x[0] * x[1] + x[2] ** 2; // grad = [x1, x0, 2·x2]
    expect(checkGradients(f, x, Float64Array.from([2, 1, 6]), { rtol: 1e-8 })).toBeLessThan(1e-8);
    expect(() => checkGradients(f, x, Float64Array.from([2, 1, 6.1]), { rtol: 1e-6 })).toThrow(/\[2\] analytic 6.1/);
  });

  it('samples indices with the given rng when x is large', () => {
    const x = new Float64Array(1000).map((_, i) => i / 1000);
    const f = () => x.reduce((s, v) => s + v * v, 0);
    const grad = x.map((v) => 2 * v);
    expect(checkGradients(f, x, grad, { samples: 10, rng: new Rng(1), rtol: 1e-7 })).toBeLessThan(1e-7);
    expect(() => checkGradients(f, x, grad, { samples: 10 })).toThrow(/rng/);
  });
});
