import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import * as ref from '../reference/ops';
import { Rng } from '../util/rng';
import { accumulate, addForward, swigluBackward, swigluForward } from './elementwise';
import { errorVs, randF32as64, upload64 } from './testUtil';

const TOL = 1e-4;

describe.each(TEST_ADAPTERS)('elementwise ops on %s', (adapter) => {
  it.each([1, 37, 1000, 70_001])(`swiglu forward/backward on %i elements, rel err ≤ ${TOL}`, async (n) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(n);
    const g = randF32as64(rng, n, 3); // wide range: exercises both branches of the stable sigmoid
    const u = randF32as64(rng, n);
    const d = randF32as64(rng, n);
    const [tg, tu, td] = [upload64(rt, g, [n]), upload64(rt, u, [n]), upload64(rt, d, [n])];
    const out = swigluForward(rt, tg, tu);
    const { dgate, dup } = swigluBackward(rt, td, tg, tu);
    const r = ref.swigluBackward(d, g, u);
    expect(await errorVs(rt, out, ref.swigluForward(g, u))).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, dgate, r.dgate)).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, dup, r.dup)).toBeLessThanOrEqual(TOL);
    rt.release(tg, tu, td, out, dgate, dup);
  });

  it('swiglu is finite for huge gate values', async () => {
    const rt = await testRuntime(adapter);
    const g = Float64Array.from([-1e4, -100, 0, 100, 1e4]);
    const u = Float64Array.from([1, 1, 1, 1, 1]);
    const tg = upload64(rt, g, [5]);
    const tu = upload64(rt, u, [5]);
    const out = await rt.readF32(swigluForward(rt, tg, tu));
    expect(Array.from(out).every(Number.isFinite)).toBe(true);
    expect(out[4]).toBeCloseTo(1e4, 0);
  });

  it(`residual add and accumulate, rel err ≤ ${TOL}`, async () => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(7);
    const n = 4097;
    const a = randF32as64(rng, n);
    const b = randF32as64(rng, n);
    const ta = upload64(rt, a, [n]);
    const tb = upload64(rt, b, [n]);
    const sum = addForward(rt, ta, tb);
    expect(await errorVs(rt, sum, ref.addForward(a, b))).toBeLessThanOrEqual(TOL);
    accumulate(rt, sum, ta); // sum += a
    const expected = ref.addForward(ref.addForward(a, b), a);
    expect(await errorVs(rt, sum, expected)).toBeLessThanOrEqual(TOL);
    expect(() => addForward(rt, ta, rt.empty([3]))).toThrow(/3 elements, expected 4097/);
  });
});
