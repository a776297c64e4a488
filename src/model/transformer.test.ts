// Whole-model check: the GPU Qwen3 forward/backward against the float64 reference model —
// loss, logits and EVERY parameter gradient (relative error ≤ 1e-3), tied and untied heads,
// with packed segments; on both adapters.
import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import { referenceLoss } from '../reference/model';
import { relativeError } from '../reference/ops/finiteDiff';
import { Rng } from '../util/rng';
import { planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from './activations';
import { TRIMMED_QWEN3_VOCAB_SIZE, type ModelConfig } from './config';
import { parameterTable } from './parameters';
import { supervisedLoss, supervisedStep } from './trainStep';
import { GpuWeights } from './weights';

const TOL = 1e-3;

const TINY: ModelConfig = {
  vocabSize: 11, hiddenSize: 8, intermediateSize: 12, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 4,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: true, tokenizer: 'byte',
};

/** Random weights big enough that every gradient is far from zero (f32-representable values). */
function randomWeights(cfg: ModelConfig, rng: Rng): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const p of parameterTable(cfg)) {
    const n = p.shape.reduce((a, b) => a * b, 1);
    out.set(p.name, Float32Array.from({ length: n }, () => (p.kind === 'norm' ? 1 + rng.normal(0, 0.2) : rng.normal(0, 0.4))));
  }
  return out;
}

describe.each(TEST_ADAPTERS)('Qwen3 transformer on %s vs float64 reference', (adapter) => {
  it.each([
    ['tied embeddings', TINY, false],
    ['untied head, GQA ratio 4, packed segments', { ...TINY, numHeads: 8, numKvHeads: 2, tieWordEmbeddings: false }, true],
    ['trimmed Qwen3 vocabulary (nano-q/tiny-q V)', { ...TINY, vocabSize: TRIMMED_QWEN3_VOCAB_SIZE, tokenizer: 'qwen3-trimmed' }, false],
  ] as const)(`%s: loss, logits and every gradient, rel err ≤ ${TOL}`, async (_name, cfg, packed) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(99);
    const [B, T] = [2, 5];
    const N = B * T;
    const values = randomWeights(cfg, rng);
    const inputIds = Int32Array.from({ length: N }, () => rng.int(0, cfg.vocabSize - 1));
    const targets = Int32Array.from({ length: N }, () => rng.int(0, cfg.vocabSize - 1));
    const mask = Float32Array.from({ length: N }, (_, i) => (i % 4 === 0 ? 0 : 1));
    // Packed: row 1 holds two documents (positions restart) and one padding token.
    const segments = packed ? Int32Array.from([0, 0, 0, 0, 0, 0, 0, 1, 1, -1]) : undefined;
    const positions = packed ? Int32Array.from([0, 1, 2, 3, 4, 0, 1, 0, 1, 0]) : undefined;
    if (packed) mask[9] = 0;

    const w = new GpuWeights(rt, cfg, values);
    const acts = planActivations(rt, cfg, B, T);
    const scratch = planBackwardScratch(rt, cfg, B, T);
    w.zeroGrads();
    await supervisedLoss(rt, w, acts, { inputIds, targets, mask, segments, positions });
    const logits = await rt.readF32(acts.logits); // the backward overwrites them with dlogits
    const { loss } = await supervisedStep(rt, w, acts, scratch, { inputIds, targets, mask, segments, positions });
    const grads = await w.downloadGrads();

    const ref64 = new Map([...values].map(([k, v]) => [k, Float64Array.from(v)]));
    const r = referenceLoss(cfg, ref64, inputIds, targets, Float64Array.from(mask), B, T, { segments, positions });
    expect(Math.abs(loss - r.loss) / r.loss).toBeLessThanOrEqual(TOL);
    expect(relativeError(logits, r.logits)).toBeLessThanOrEqual(TOL);
    for (const p of parameterTable(cfg)) {
      const err = relativeError(grads.get(p.name)!, r.grads.get(p.name)!);
      expect(err, p.name).toBeLessThanOrEqual(TOL);
    }
    releaseActivations(rt, acts);
    releaseBackwardScratch(rt, scratch);
    w.destroy();
  });
});
