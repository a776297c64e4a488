import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import { checkGradients } from './finiteDiff';
import { dot, randn64 } from './random';
import { addBackward, addForward } from './residual';
import { swigluBackward, swigluForward } from './swiglu';

describe('swiglu reference', () => {
  it('known values: silu(0) = 0, silu(x) → x for large x, → 0 for very negative x', () => {
    const out = swigluForward(Float64Array.from([0, 1, 50, -800]), Float64Array.from([3, 2, 1, 1]));
    expect(out[0]).toBe(0);
    expect(out[1]).toBeCloseTo(2 / (1 + Math.exp(-1)), 14);
    expect(out[2]).toBeCloseTo(50, 12);
    expect(out[3]).toBeCloseTo(0, 300);
    expect(Number.isFinite(out[3])).toBe(true);
  });

  it('backward matches finite differences', () => {
    const rng = new Rng(4);
    const gate = randn64(rng, 40, 3), up = randn64(rng, 40), r = randn64(rng, 40);
    const { dgate, dup } = swigluBackward(r, gate, up);
    const loss = () => dot(swigluForward(gate, up), r);
    expect(checkGradients(loss, gate, dgate, { samples: 40, rtol: 1e-7 })).toBeLessThan(1e-7);
    expect(checkGradients(loss, up, dup, { samples: 40, rtol: 1e-7 })).toBeLessThan(1e-7);
  });
});

describe('residual reference', () => {
  it('adds and passes the gradient to both inputs as independent copies', () => {
    expect(Array.from(addForward(Float64Array.from([1, 2]), Float64Array.from([10, 20])))).toEqual([11, 22]);
    const dout = Float64Array.from([0.5, -1]);
    const { da, db } = addBackward(dout);
    expect(Array.from(da)).toEqual([0.5, -1]);
    expect(Array.from(db)).toEqual([0.5, -1]);
    da[0] = 9;
    expect(db[0]).toBe(0.5);
    expect(dout[0]).toBe(0.5);
  });
});
