import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import * as ref from '../reference/ops';
import { Rng } from '../util/rng';
import { rmsnormBackward, rmsnormForward } from './rmsnorm';
import { errorVs, randF32as64, upload64 } from './testUtil';

const TOL = 1e-4;

describe.each(TEST_ADAPTERS)('rmsnorm on %s', (adapter) => {
  // (N, C): model widths, a per-head QK-norm view (N = tokens·heads, C = D), awkward sizes, T=1.
  it.each([
    [1, 96],
    [37, 53],
    [8 * 4, 24], // QK-norm: 8 tokens × 4 heads, head dim 24
    [130, 256],
    [3, 1000], // wide rows: the workgroup-per-row kernel (v1)
    [70, 700],
  ])(`forward and backward (N=%i, C=%i), rel err ≤ ${TOL}`, async (N, C) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(N * 1000 + C);
    const x = randF32as64(rng, N * C, 2);
    const w = randF32as64(rng, C);
    const dout = randF32as64(rng, N * C);
    const spec = { N, C, eps: 1e-6 };
    const [tx, tw, td] = [upload64(rt, x, [N, C]), upload64(rt, w, [C]), upload64(rt, dout, [N, C])];
    const { out, rstd } = rmsnormForward(rt, tx, tw, spec);
    const { dx, dw } = rmsnormBackward(rt, td, tx, tw, rstd, spec);
    const r = ref.rmsnormForward(x, w, N, C, 1e-6);
    const g = ref.rmsnormBackward(dout, x, w, r.rstd, N, C);
    expect(await errorVs(rt, out, r.out)).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, rstd, r.rstd)).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, dx, g.dx)).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, dw, g.dw)).toBeLessThanOrEqual(TOL);
    rt.release(tx, tw, td, out, rstd, dx, dw);
  });

  it('accumulates dw across micro-batches', async () => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(3);
    const [N, C] = [5, 16];
    const x = randF32as64(rng, N * C);
    const w = randF32as64(rng, C);
    const d = randF32as64(rng, N * C);
    const spec = { N, C, eps: 1e-6 };
    const [tx, tw, td] = [upload64(rt, x, [N, C]), upload64(rt, w, [C]), upload64(rt, d, [N, C])];
    const { rstd } = rmsnormForward(rt, tx, tw, spec);
    const { dw } = rmsnormBackward(rt, td, tx, tw, rstd, spec);
    rmsnormBackward(rt, td, tx, tw, rstd, spec, { dw, accumulateDw: true });
    const g = ref.rmsnormBackward(d, x, w, ref.rmsnormForward(x, w, N, C, 1e-6).rstd, N, C);
    expect(await errorVs(rt, dw, g.dw.map((v) => 2 * v))).toBeLessThanOrEqual(TOL);
  });
});
