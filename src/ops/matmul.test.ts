import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import * as ref from '../reference/ops';
import { Rng } from '../util/rng';
import { type MatmulOptions, type MatmulSpec, adapterKind, matmulBackward, matmulForward } from './matmul';
import { errorVs, randF32as64, upload64 } from './testUtil';

const TOL = 1e-4;
const COMBOS: [boolean, boolean][] = [[false, false], [false, true], [true, false], [true, true]];
const tag = (s: MatmulSpec) => `${s.batch}×${s.M}×${s.K}×${s.N}${s.transA ? ' transA' : ''}${s.transB ? ' transB' : ''}${s.bBatched === false ? ' sharedB' : ''}`;

/** B repeated for every batch entry (the reference has no shared-B mode). */
function repeatB(b: Float64Array, batch: number): Float64Array {
  const out = new Float64Array(b.length * batch);
  for (let i = 0; i < batch; i++) out.set(b, i * b.length);
  return out;
}

/** Σ over batch entries of a (batch, n) array. */
function sumBatches(x: Float64Array, batch: number): Float64Array {
  const n = x.length / batch;
  const out = new Float64Array(n);
  for (let i = 0; i < x.length; i++) out[i % n] += x[i];
  return out;
}

/** Runs forward and backward on the GPU and returns the worst relative error of c, da, db. */
async function checkAgainstReference(adapter: (typeof TEST_ADAPTERS)[number], spec: MatmulSpec, seed: number, opts: MatmulOptions = {}) {
  const rt = await testRuntime(adapter);
  const rng = new Rng(seed);
  const { batch, M, K, N } = spec;
  const shared = spec.bBatched === false;
  const bBatch = shared ? 1 : batch;
  const a = randF32as64(rng, batch * M * K);
  const b = randF32as64(rng, bBatch * K * N);
  const dc = randF32as64(rng, batch * M * N);
  const aShape = spec.transA ? [batch, K, M] : [batch, M, K];
  const bShape = spec.transB ? [bBatch, N, K] : [bBatch, K, N];
  const [ta, tb, tdc] = [upload64(rt, a, aShape, 'a'), upload64(rt, b, bShape, 'b'), upload64(rt, dc, [batch, M, N], 'dc')];

  const c = matmulForward(rt, ta, tb, spec, undefined, opts);
  const { da, db } = matmulBackward(rt, tdc, ta, tb, spec);
  const refSpec = { batch, M, K, N, transA: spec.transA, transB: spec.transB };
  const bFull = shared ? repeatB(b, batch) : b;
  const want = ref.matmulForward(a, bFull, refSpec);
  const g = ref.matmulBackward(dc, a, bFull, refSpec);
  const errs = {
    c: await errorVs(rt, c, want),
    da: await errorVs(rt, da, g.da),
    db: await errorVs(rt, db, shared ? sumBatches(g.db, batch) : g.db),
  };
  await rt.sync();
  rt.release(ta, tb, tdc, c, da, db);
  return errs;
}

describe.each(TEST_ADAPTERS)('matmul on %s', (adapter) => {
  // Awkward shapes (scalar layout), aligned ones (vec4 layout, incl. a K tail under transA), tiles
  // spanning several workgroups, and degenerate M = 1 / K = 1 / N = 1.
  const shapes: [number, number, number, number][] = [
    [1, 37, 53, 29],
    [1, 40, 36, 44],
    [1, 20, 23, 12],
    [2, 130, 12, 70],
    [1, 1, 64, 24],
    [1, 9, 1, 7],
    [1, 5, 6, 1],
  ];
  for (const [batch, M, K, N] of shapes) {
    it.each(COMBOS)(`forward + backward ${batch}×${M}×${K}×${N} transA=%s transB=%s, rel err ≤ ${TOL}`, async (transA, transB) => {
      const spec = { batch, M, K, N, transA, transB };
      const errs = await checkAgainstReference(adapter, spec, batch * 7919 + M * 31 + K * 7 + N + (transA ? 1000 : 0) + (transB ? 2000 : 0));
      expect(Math.max(errs.c, errs.da, errs.db), `${tag(spec)} ${JSON.stringify(errs)}`).toBeLessThanOrEqual(TOL);
    });
  }

  it.each(COMBOS)(`batch 3 with B shared across the batch (db summed) transA=%s transB=%s, rel err ≤ ${TOL}`, async (transA, transB) => {
    const spec = { batch: 3, M: 12, K: 16, N: 20, transA, transB, bBatched: false };
    const errs = await checkAgainstReference(adapter, spec, 77 + (transA ? 1 : 0) + (transB ? 2 : 0));
    expect(Math.max(errs.c, errs.da, errs.db), `${tag(spec)} ${JSON.stringify(errs)}`).toBeLessThanOrEqual(TOL);
    const odd = { ...spec, M: 5, K: 7, N: 3 };
    const errsOdd = await checkAgainstReference(adapter, odd, 78);
    expect(Math.max(errsOdd.c, errsOdd.da, errsOdd.db), `${tag(odd)} ${JSON.stringify(errsOdd)}`).toBeLessThanOrEqual(TOL);
  });

  it(`scalar and vec4 layouts and several workgroup shapes agree with the reference, rel err ≤ ${TOL}`, async () => {
    const spec = { batch: 1, M: 48, K: 32, N: 40, transA: false, transB: true };
    for (const opts of [{ layout: 'scalar' }, { layout: 'vec4' }, { workgroup: [4, 2] }] as MatmulOptions[]) {
      const errs = await checkAgainstReference(adapter, spec, 5, opts);
      expect(errs.c, JSON.stringify(opts)).toBeLessThanOrEqual(TOL);
    }
  });

  it(`accumulates into c, da and db, rel err ≤ ${TOL}`, async () => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(11);
    const spec = { batch: 2, M: 6, K: 8, N: 5, transA: false, transB: true };
    const a = randF32as64(rng, 2 * 6 * 8);
    const b = randF32as64(rng, 2 * 5 * 8);
    const dc = randF32as64(rng, 2 * 6 * 5);
    const [ta, tb, tdc] = [upload64(rt, a, [2, 6, 8]), upload64(rt, b, [2, 5, 8]), upload64(rt, dc, [2, 6, 5])];
    const c = matmulForward(rt, ta, tb, spec);
    matmulForward(rt, ta, tb, spec, c, { accumulate: true });
    const { da, db } = matmulBackward(rt, tdc, ta, tb, spec);
    matmulBackward(rt, tdc, ta, tb, spec, { da, db, accumulateDa: true, accumulateDb: true });
    const twice = (x: Float64Array) => x.map((v) => 2 * v);
    const g = ref.matmulBackward(dc, a, b, spec);
    expect(await errorVs(rt, c, twice(ref.matmulForward(a, b, spec)))).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, da, twice(g.da))).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, db, twice(g.db))).toBeLessThanOrEqual(TOL);
    rt.release(ta, tb, tdc, c, da, db);
  });

  it('names the tensor, its size and the expected layout on a shape mismatch', async () => {
    const rt = await testRuntime(adapter);
    const a = rt.empty([2, 3], 'f32', 'x');
    const b = rt.empty([4, 3], 'f32', 'W');
    const spec = { batch: 1, M: 2, K: 3, N: 4, transA: false, transB: true };
    expect(() => matmulForward(rt, a, rt.empty([5, 3], 'f32', 'Wbad'), spec)).toThrow(/b 'Wbad' has 15 elements.*\(N, K\) = \(4, 3\)/);
    expect(() => matmulForward(rt, a, b, { ...spec, K: 0 })).toThrow(/K must be a positive integer/);
    expect(() => matmulForward(rt, a, b, spec, undefined, { accumulate: true })).toThrow(/accumulate needs the output/);
    expect(() => matmulForward(rt, rt.empty([2, 5]), rt.empty([4, 5]), { ...spec, K: 5 }, undefined, { layout: 'vec4' })).toThrow(/vec4 layout forced on an unaligned shape/);
    expect(adapterKind(rt.ctx)).toBe(adapter === 'swiftshader' ? 'swiftshader' : 'llvmpipe');
    await rt.sync().catch(() => undefined);
  });
});
