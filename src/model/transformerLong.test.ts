// Whole-model check at the nano preset's real shape and a long row (T = 300, several attention
// tiles/row blocks, packed documents): loss and every gradient against the float64 reference.
// The short-shape test (transformer.test.ts) cannot catch a bug that only shows past the first
// tile of keys, which is where copying from far back in the prompt happens.
import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import { referenceLoss } from '../reference/model';
import { relativeError } from '../reference/ops/finiteDiff';
import { Rng } from '../util/rng';
import { planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from './activations';
import { PRESETS } from './config';
import { initialWeights } from './weights';
import { parameterTable } from './parameters';
import { supervisedStep } from './trainStep';
import { GpuWeights } from './weights';

const TOL = 1e-3;

describe.each(TEST_ADAPTERS)('nano transformer at T = 300 on %s vs float64 reference', (adapter) => {
  it(`loss and every gradient, rel err ≤ ${TOL}`, async () => {
    const rt = await testRuntime(adapter);
    const cfg = PRESETS.nano;
    const rng = new Rng(7);
    const [B, T] = [2, 300];
    const N = B * T;
    const values = initialWeights(cfg, 3);
    const inputIds = Int32Array.from({ length: N }, () => rng.int(0, 255));
    const targets = Int32Array.from({ length: N }, () => rng.int(0, 255));
    const mask = Float32Array.from({ length: N }, (_, i) => (i % 3 === 0 ? 0 : 1));
    // Row 0: one document; row 1: documents of 170 and 120 tokens, then 10 padding tokens.
    const segments = Int32Array.from({ length: N }, (_, i) => (i < T ? 0 : i - T < 170 ? 1 : i - T < 290 ? 2 : -1));
    const positions = Int32Array.from({ length: N }, (_, i) => (i < T ? i : i - T < 170 ? i - T : i - T < 290 ? i - T - 170 : 0));
    for (let i = 0; i < N; i++) if (segments[i] < 0) mask[i] = 0;

    const w = new GpuWeights(rt, cfg, values);
    const acts = planActivations(rt, cfg, B, T);
    const scratch = planBackwardScratch(rt, cfg, B, T);
    w.zeroGrads();
    const { loss } = await supervisedStep(rt, w, acts, scratch, { inputIds, targets, mask, segments, positions });
    const grads = await w.downloadGrads();
    const ref64 = new Map([...values].map(([k, v]) => [k, Float64Array.from(v)]));
    const r = referenceLoss(cfg, ref64, inputIds, targets, Float64Array.from(mask), B, T, { segments, positions });
    expect(Math.abs(loss - r.loss) / r.loss).toBeLessThanOrEqual(TOL);
    for (const p of parameterTable(cfg)) expect(relativeError(grads.get(p.name)!, r.grads.get(p.name)!), p.name).toBeLessThanOrEqual(TOL);
    releaseActivations(rt, acts);
    releaseBackwardScratch(rt, scratch);
    w.destroy();
  });
});
