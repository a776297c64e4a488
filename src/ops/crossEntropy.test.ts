import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import * as ref from '../reference/ops';
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
});
