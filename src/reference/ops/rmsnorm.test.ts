import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import { checkGradients } from './finiteDiff';
import { dot, randn64 } from './random';
import { rmsnormBackward, rmsnormForward } from './rmsnorm';

const RTOL = 1e-6;

describe('rmsnorm reference', () => {
  it('normalises a constant row to ±w', () => {
    const x = Float64Array.from([3, 3, 3, 3, -2, -2, -2, -2]); // (2, 4)
    const w = Float64Array.from([1, 2, 0.5, -1]);
    const { out, rstd } = rmsnormForward(x, w, 2, 4, 0);
    expect(rstd[0]).toBeCloseTo(1 / 3, 14);
    expect(Array.from(out).map((v) => +v.toFixed(12))).toEqual([1, 2, 0.5, -1, -1, -2, -0.5, 1]);
  });

  it('eps keeps an all-zero row finite', () => {
    const { out, rstd } = rmsnormForward(new Float64Array(4), Float64Array.from([1, 1, 1, 1]), 1, 4, 1e-6);
    expect(rstd[0]).toBeCloseTo(1000, 9);
    expect(Array.from(out)).toEqual([0, 0, 0, 0]);
  });

  it('backward matches finite differences (x and w)', () => {
    const rng = new Rng(5);
    const N = 3, C = 6, eps = 1e-6;
    const x = randn64(rng, N * C);
    const w = randn64(rng, C);
    const r = randn64(rng, N * C);
    const { rstd } = rmsnormForward(x, w, N, C, eps);
    const { dx, dw } = rmsnormBackward(r, x, w, rstd, N, C);
    const loss = () => dot(rmsnormForward(x, w, N, C, eps).out, r);
    expect(checkGradients(loss, x, dx, { samples: 100, rtol: RTOL })).toBeLessThan(RTOL);
    expect(checkGradients(loss, w, dw, { samples: 100, rtol: RTOL })).toBeLessThan(RTOL);
  });
});
