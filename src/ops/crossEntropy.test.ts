import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import type { GpuRuntime } from '../gpu/runtime';
import * as ref from '../reference/ops';
import { entropyLogitGradient } from '../train/rl/grpo/entropy';
import { Rng } from '../util/rng';
import { crossEntropyWeights, entropyForward, logprobBackward, logprobForward, maskedMeanNll } from './crossEntropy';
import { errorVs, randF32as64, upload64, uploadI32 } from './testUtil';

const TOL = 1e-4;

describe.each(TEST_ADAPTERS)('log-prob / cross-entropy on %s', (adapter) => {
  it.each([
    [1, 11, 1],
    [37, 272, 3],
    [5, 1000, 1e4 / 4], // logits up to ~1e4: the max-subtraction must keep everything finite
    [7, 5000, 1e4 / 4], // large vocabulary: the workgroup-per-row kernels
  ])(`logprob forward/backward and entropy (N=%i, V=%i, logit scale %d), rel err ≤ ${TOL}`, async (N, V, scale) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(N * V);
    const logits = randF32as64(rng, N * V, scale);
    const targets = Int32Array.from({ length: N }, () => rng.int(0, V - 1));
    const dlogp = randF32as64(rng, N);
    const spec = { N, V };
    const [tl, tt, td] = [upload64(rt, logits, [N, V]), uploadI32(rt, targets, [N]), upload64(rt, dlogp, [N])];
    const { logp, lse } = logprobForward(rt, tl, tt, spec);
    const dl = logprobBackward(rt, td, tl, tt, lse, spec);
    const ent = entropyForward(rt, tl, lse, spec);
    const r = ref.logprobForward(logits, targets, N, V);
    // logp is a difference of two large numbers at scale 1e4: compare relative to the lse magnitude.
    expect(await errorVs(rt, lse, r.lse)).toBeLessThanOrEqual(TOL);
    const gotLogp = await rt.readF32(logp);
    const maxLse = Math.max(...Array.from(r.lse, Math.abs));
    const logpErr = Math.max(...Array.from(gotLogp, (v, i) => Math.abs(v - r.logp[i]))) / Math.max(maxLse, 1);
    expect(logpErr).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, dl, ref.logprobBackward(dlogp, logits, targets, r.lse, N, V))).toBeLessThanOrEqual(TOL);
    const gotEnt = await rt.readF32(ent);
    const refEnt = ref.entropyForward(logits, N, V);
    expect(Math.max(...Array.from(gotEnt, (v, i) => Math.abs(v - refEnt[i])))).toBeLessThanOrEqual(TOL * Math.max(maxLse, Math.log(V)));
    expect(Array.from(gotLogp).every(Number.isFinite)).toBe(true);
    rt.release(tl, tt, td, logp, lse, dl, ent);
  });

  it(`masked cross-entropy loss and its in-place fused backward match the reference, rel err ≤ ${TOL}`, async () => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(42);
    const [N, V] = [23, 97];
    const logits = randF32as64(rng, N * V, 2);
    const targets = Int32Array.from({ length: N }, () => rng.int(0, V - 1));
    const mask = Float64Array.from({ length: N }, (_, i) => (i % 3 === 0 ? 0 : 1));
    const spec = { N, V };
    const tl = upload64(rt, logits, [N, V]);
    const tt = uploadI32(rt, targets, [N]);
    const { logp, lse } = logprobForward(rt, tl, tt, spec);
    const r = ref.crossEntropyForward(logits, targets, mask, N, V);
    expect(Math.abs(maskedMeanNll(await rt.readF32(logp), mask) - r.loss) / r.loss).toBeLessThanOrEqual(TOL);
    const w = rt.upload(crossEntropyWeights(mask), [N]);
    const dl = logprobBackward(rt, w, tl, tt, lse, spec, { inPlace: true });
    expect(dl).toBe(tl);
    expect(await errorVs(rt, dl, ref.crossEntropyBackward(logits, targets, mask, r.lse, N, V))).toBeLessThanOrEqual(TOL);
    rt.release(tl, tt, logp, lse, w);
  });

  /** Fresh logits, targets and per-row (dlogp, dH, H) with H from the GPU entropy kernel (as the GRPO trainer does). */
  async function entropyBonusCase(rt: GpuRuntime, N: number, V: number, seed: number) {
    const rng = new Rng(seed);
    const logits = randF32as64(rng, N * V, 2);
    const targets = Int32Array.from({ length: N }, () => rng.int(0, V - 1));
    const dlogp = randF32as64(rng, N);
    const dH = randF32as64(rng, N);
    const tl = upload64(rt, logits, [N, V]);
    const tt = uploadI32(rt, targets, [N]);
    const { logp, lse } = logprobForward(rt, tl, tt, { N, V });
    const ent = entropyForward(rt, tl, lse, { N, V });
    const H = await rt.readF32(ent);
    const rows = rt.upload(Float32Array.from({ length: 3 * N }, (_, i) => [dlogp, dH, H][i % 3][Math.floor(i / 3)]), [N, 3]);
    rt.release(logp, ent);
    return { logits, targets, dlogp, dH, tl, tt, lse, rows };
  }

  it.each([
    [1, 7],
    [5, 11],
    [13, 300],
  ])(`fused entropy-bonus backward (N=%i, V=%i): dlogp·(onehot − p) + dH·∂H/∂z vs entropyLogitGradient, in place and not, rel err ≤ 1e-5`, async (N, V) => {
    const rt = await testRuntime(adapter);
    const c = await entropyBonusCase(rt, N, V, 7 * N + V);
    const r = ref.logprobForward(c.logits, c.targets, N, V);
    const want = ref.logprobBackward(c.dlogp, c.logits, c.targets, r.lse, N, V);
    for (let n = 0; n < N; n++) {
      const g = entropyLogitGradient(c.logits.subarray(n * V, (n + 1) * V));
      for (let j = 0; j < V; j++) want[n * V + j] += c.dH[n] * g[j];
    }
    const spec = { N, V };
    const dl = logprobBackward(rt, c.rows, c.tl, c.tt, c.lse, spec);
    expect(await errorVs(rt, dl, want)).toBeLessThanOrEqual(1e-5);
    const inPlace = logprobBackward(rt, c.rows, c.tl, c.tt, c.lse, spec, { inPlace: true });
    expect(inPlace).toBe(c.tl);
    expect(await errorVs(rt, inPlace, want)).toBeLessThanOrEqual(1e-5);
    rt.release(c.tl, c.tt, c.lse, c.rows, dl);
  });

  it('fused entropy-bonus backward matches finite differences of Σ dlogp·logp + dH·H (N=3, V=7), rel err ≤ 1e-4', async () => {
    const rt = await testRuntime(adapter);
    const [N, V] = [3, 7];
    const c = await entropyBonusCase(rt, N, V, 99);
    const dl = logprobBackward(rt, c.rows, c.tl, c.tt, c.lse, { N, V }, { inPlace: true });
    const analytic = Float64Array.from(await rt.readF32(dl));
    const x = Float64Array.from(c.logits);
    const f = () => {
      const { logp } = ref.logprobForward(x, c.targets, N, V);
      const H = ref.entropyForward(x, N, V);
      let s = 0;
      for (let n = 0; n < N; n++) s += c.dlogp[n] * logp[n] + c.dH[n] * H[n];
      return s;
    };
    expect(ref.checkGradients(f, x, analytic, { samples: N * V, rtol: 1e-4 })).toBeLessThanOrEqual(1e-4);
    rt.release(c.tl, c.tt, c.lse, c.rows);
  });

  /** logits / T in float64: the reference scores the tempered logits directly. */
  const tempered = (x: Float64Array, T: number) => x.map((v) => v / T);

  it.each([
    [5, 11, 0.5],
    [4, 300, 2],
    [3, 5000, 0.7], // workgroup-per-row kernels
  ])('temperature (N=%i, V=%i, T=%f): logp, lse, entropy of softmax(logits / T) vs the float64 reference, and dlogits = (1/T)·reference backward at logits / T, rel err ≤ 1e-4', async (N, V, T) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(31 * N + V);
    const logits = randF32as64(rng, N * V, 3);
    const targets = Int32Array.from({ length: N }, () => rng.int(0, V - 1));
    const dlogp = randF32as64(rng, N);
    const spec = { N, V, temperature: T };
    const [tl, tt, td] = [upload64(rt, logits, [N, V]), uploadI32(rt, targets, [N]), upload64(rt, dlogp, [N])];
    const { logp, lse } = logprobForward(rt, tl, tt, spec);
    const ent = entropyForward(rt, tl, lse, spec);
    const dl = logprobBackward(rt, td, tl, tt, lse, spec);
    const z = tempered(logits, T);
    const r = ref.logprobForward(z, targets, N, V);
    expect(await errorVs(rt, lse, r.lse)).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, logp, r.logp)).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, ent, ref.entropyForward(z, N, V))).toBeLessThanOrEqual(TOL);
    const want = ref.logprobBackward(dlogp, z, targets, r.lse, N, V).map((g) => g / T);
    expect(await errorVs(rt, dl, want)).toBeLessThanOrEqual(TOL);
    // the untempered kernels differ: the temperature is really applied
    const plain = logprobForward(rt, tl, tt, { N, V });
    expect(await errorVs(rt, plain.logp, r.logp)).toBeGreaterThan(1e-2);
    rt.release(tl, tt, td, logp, lse, ent, dl, plain.logp, plain.lse);
  });

  it('temperature 0.6: the fused entropy-bonus backward, in place, matches finite differences of Σ dlogp·logp + dH·H at logits / T (N=3, V=7), rel err ≤ 1e-4', async () => {
    const rt = await testRuntime(adapter);
    const [N, V, T] = [3, 7, 0.6];
    const rng = new Rng(123);
    const logits = randF32as64(rng, N * V, 2);
    const targets = Int32Array.from({ length: N }, () => rng.int(0, V - 1));
    const [dlogp, dH] = [randF32as64(rng, N), randF32as64(rng, N)];
    const spec = { N, V, temperature: T };
    const [tl, tt] = [upload64(rt, logits, [N, V]), uploadI32(rt, targets, [N])];
    const { logp, lse } = logprobForward(rt, tl, tt, spec);
    const H = await rt.readF32(entropyForward(rt, tl, lse, spec));
    const rows = rt.upload(Float32Array.from({ length: 3 * N }, (_, i) => [dlogp, dH, H][i % 3][Math.floor(i / 3)]), [N, 3]);
    const analytic = Float64Array.from(await rt.readF32(logprobBackward(rt, rows, tl, tt, lse, spec, { inPlace: true })));
    const x = Float64Array.from(logits);
    const f = () => {
      const z = tempered(x, T);
      const lp = ref.logprobForward(z, targets, N, V).logp;
      const h = ref.entropyForward(z, N, V);
      let s = 0;
      for (let n = 0; n < N; n++) s += dlogp[n] * lp[n] + dH[n] * h[n];
      return s;
    };
    expect(ref.checkGradients(f, x, analytic, { samples: N * V, rtol: 1e-4 })).toBeLessThanOrEqual(1e-4);
    rt.release(tl, tt, logp, lse, rows);
  });

  it.each([0, -1, Infinity, NaN])('refuses temperature %f', async (T) => {
    const rt = await testRuntime(adapter);
    const [tl, tt] = [rt.zeros([2, 3]), rt.zeros([2], 'i32')];
    expect(() => logprobForward(rt, tl, tt, { N: 2, V: 3, temperature: T })).toThrow(/temperature = .*needs a finite value > 0/);
    rt.release(tl, tt);
  });

  it('rejects a dlogp that is neither (N) nor (N, 3) rows', async () => {
    const rt = await testRuntime(adapter);
    const [N, V] = [4, 5];
    const [tl, tt, lse, bad] = [rt.zeros([N, V]), rt.zeros([N], 'i32'), rt.zeros([N]), rt.zeros([N, 2])];
    expect(() => logprobBackward(rt, bad, tl, tt, lse, { N, V })).toThrow(/needs \[4\] or \[4, 3\]/);
    rt.release(tl, tt, lse, bad);
  });
});
