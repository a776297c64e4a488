// Memory layouts give the same model: embedding / LM head split into row parts (tiny part limit so
// a 11-row vocabulary spreads over 3–4 buffers), logits chunked by rows (the backward recomputes
// them), and activation recompute — alone and together, full-parameter and LoRA on an f16 base,
// tied and untied — against the float64 reference (loss, logits, every gradient, rel err ≤ 1e-3)
// and against the default layout on the GPU (≤ 1e-5); the head on scored rows only (prompt tokens
// skipped); entropy per chunk; the (N, 3) entropy-bonus backward; KV-cache decode through a split
// head; the LoRA reference view (GRPO's KL model).
import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import type { GpuRuntime } from '../gpu/runtime';
import { mergeReferenceLora, type ReferenceLora, referenceLoraLoss } from '../reference/lora';
import { referenceForward, referenceLoss } from '../reference/model';
import { entropyForward as refEntropy } from '../reference/ops/crossEntropy';
import { relativeError } from '../reference/ops/finiteDiff';
import { Rng } from '../util/rng';
import { type ActivationOptions, planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from './activations';
import { modelBackward } from './backward';
import type { ModelConfig } from './config';
import { Decoder } from './decode';
import { modelForward, tokenLogprobs, writeBatch } from './forward';
import { roundToF16 } from './halfFloat';
import { readLogits } from './lmHead';
import { attachLora, type LoraConfig, LoraAdapters, loraParameterTable } from './lora';
import { LORA_TARGETS, parameterTable } from './parameters';
import { supervisedStep } from './trainStep';
import { GpuWeights, rowRanges, type WeightStorage } from './weights';

const TOL = 1e-3;
const TINY: ModelConfig = {
  vocabSize: 11, hiddenSize: 8, intermediateSize: 12, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 4,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: true, tokenizer: 'byte',
};
const UNTIED: ModelConfig = { ...TINY, numHeads: 8, numKvHeads: 2, tieWordEmbeddings: false };
/** 4 f32 rows of 8 per part: the 11-row embedding becomes 3 parts (f16: 8 rows, 2 parts). */
const SPLIT: WeightStorage = { maxPartBytes: 128 };
/** 3 rows of 11 logits at a time: N = 10 tokens in chunks of 3, 3, 3, 1. */
const CHUNKED: ActivationOptions = { logitsBudgetBytes: 3 * 11 * 4, recompute: false };
const [B, T] = [2, 5];
const N = B * T;

function randomWeights(cfg: ModelConfig, rng: Rng): Map<string, Float32Array> {
  return new Map(parameterTable(cfg).map((p) => [p.name, Float32Array.from({ length: p.shape.reduce((a, b) => a * b, 1) }, () => (p.kind === 'norm' ? 1 + rng.normal(0, 0.2) : rng.normal(0, 0.4)))]));
}

function randomBatch(cfg: ModelConfig, rng: Rng) {
  return {
    inputIds: Int32Array.from({ length: N }, () => rng.int(0, cfg.vocabSize - 1)),
    targets: Int32Array.from({ length: N }, () => rng.int(0, cfg.vocabSize - 1)),
    mask: Float32Array.from({ length: N }, (_, i) => (i % 4 === 0 ? 0 : 1)),
    segments: Int32Array.from([0, 0, 0, 0, 0, 0, 0, 1, 1, -1]),
    positions: Int32Array.from([0, 1, 2, 3, 4, 0, 1, 0, 1, 0]),
  };
}

const to64 = (m: Map<string, Float32Array>) => new Map([...m].map(([k, v]) => [k, Float64Array.from(v)]));

interface Run { loss: number; logits: Float32Array; grads: Map<string, Float32Array> }

/** One supervised forward/backward under a layout; returns loss, logits (host) and gradients. */
async function run(rt: GpuRuntime, w: GpuWeights, batch: ReturnType<typeof randomBatch>, opts: ActivationOptions): Promise<Run> {
  const lora = w.lora?.lora;
  const acts = planActivations(rt, w.cfg, B, T, lora, opts);
  const scratch = planBackwardScratch(rt, w.cfg, B, T, lora);
  writeBatch(rt, w, acts, batch);
  modelForward(rt, w, acts);
  const logits = await readLogits(rt, w, acts);
  w.zeroGrads();
  const { loss } = await supervisedStep(rt, w, acts, scratch, batch);
  const grads = await w.downloadGrads();
  releaseActivations(rt, acts);
  releaseBackwardScratch(rt, scratch);
  return { loss, logits, grads };
}

function expectClose(a: Run, b: { loss: number; logits: ArrayLike<number>; grads: Map<string, ArrayLike<number>> }, tol: number, what: string): void {
  expect(Math.abs(a.loss - b.loss) / Math.abs(b.loss), `${what} loss`).toBeLessThanOrEqual(tol);
  expect(relativeError(a.logits, b.logits), `${what} logits`).toBeLessThanOrEqual(tol);
  for (const [name, g] of a.grads) expect(relativeError(g, b.grads.get(name)!), `${what} ${name}`).toBeLessThanOrEqual(tol);
}

describe('row parts (host)', () => {
  it('as few balanced parts as fit the limit; a row that cannot fit is an error naming the sizes', () => {
    expect(rowRanges(11, 8, false, 128)).toEqual([{ row0: 0, rows: 4 }, { row0: 4, rows: 4 }, { row0: 8, rows: 3 }]);
    expect(rowRanges(11, 8, true, 128)).toEqual([{ row0: 0, rows: 6 }, { row0: 6, rows: 5 }]);
    expect(rowRanges(11, 8, false, 1 << 20)).toEqual([{ row0: 0, rows: 11 }]);
    // the Qwen3-0.6B embedding on the compatibility adapter's 128 MiB bindings
    const qwen = rowRanges(151936, 1024, false, 128 * 1024 * 1024);
    expect(qwen.length).toBe(5);
    expect(qwen.every((r) => r.rows * 1024 * 4 <= 128 * 1024 * 1024)).toBe(true);
    expect(qwen.reduce((s, r) => s + r.rows, 0)).toBe(151936);
    expect(rowRanges(151936, 1024, true, 128 * 1024 * 1024).length).toBe(3);
    expect(() => rowRanges(4, 100, false, 256)).toThrow(/one row of 100 values \(400 bytes\) exceeds the 256-byte buffer limit/);
  });
});

describe.each(TEST_ADAPTERS)('memory layouts on %s', (adapter) => {
  it.each([
    ['tied', TINY],
    ['untied head, GQA ratio 4', UNTIED],
  ] as const)(`full-parameter, %s: split parts, chunked logits, recompute (each and together) = float64 reference (≤ ${TOL}) = default layout (≤ 1e-5)`, async (_name, cfg) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(41);
    const values = randomWeights(cfg, rng);
    const batch = randomBatch(cfg, rng);
    const ref = referenceLoss(cfg, to64(values), batch.inputIds, batch.targets, Float64Array.from(batch.mask), B, T, batch);
    const whole = new GpuWeights(rt, cfg, values);
    const base = await run(rt, whole, batch, { recompute: false });
    expectClose(base, ref, TOL, 'default');
    const split = new GpuWeights(rt, cfg, values, SPLIT);
    expect(split.parts('model.embed_tokens.weight').length).toBe(3);
    expect(() => split.get('model.embed_tokens.weight')).toThrow(/stored as 3 row parts/);
    expect(await split.download()).toEqual(await whole.download());
    for (const [label, w, opts] of [
      ['split', split, { recompute: false }],
      ['chunked', whole, CHUNKED],
      ['recompute', whole, { recompute: true }],
      ['scored rows only', whole, { recompute: false, scoredRowsOnly: true }],
      ['all four', split, { ...CHUNKED, recompute: true, scoredRowsOnly: true }],
    ] as const) {
      const r = await run(rt, w, batch, opts);
      expectClose(r, ref, TOL, label);
      expectClose(r, base, 1e-5, `${label} vs default`);
    }
    whole.destroy();
    split.destroy();
  });

  it(`LoRA on an f16 base stored split, chunked and recomputed = float64 reference on the f16-rounded base (≤ ${TOL}); the reference view shares the base`, async () => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(43);
    const cfg = UNTIED;
    const lora: LoraConfig = { rank: 3, alpha: 6, targets: LORA_TARGETS };
    const values = randomWeights(cfg, rng);
    const adapterValues = new Map(loraParameterTable(cfg, lora).map((p) => [p.name, Float32Array.from({ length: p.shape[0] * p.shape[1] }, () => rng.normal(0, 0.3))]));
    const batch = randomBatch(cfg, rng);
    rt.pool.trim();
    const held = rt.pool.getStats().heldBytes;
    const w = new GpuWeights(rt, cfg, values, { ...SPLIT, f16Base: true });
    expect(w.parts('lm_head.weight').length).toBe(2);
    expect(() => w.zeroGrads()).toThrow(/stored in f16 and frozen; attach LoRA/);
    const adapters = new LoraAdapters(rt, cfg, lora, adapterValues);
    attachLora(rt, w, adapters);
    const twoD = new Set(parameterTable(cfg).filter((p) => p.shape.length === 2).map((p) => p.name));
    const rounded = new Map([...values].map(([k, v]) => [k, twoD.has(k) ? v.map(roundToF16) : v]));
    const refAdapters: ReferenceLora = { rank: lora.rank, scale: lora.alpha / lora.rank, adapters: new Map() };
    for (const p of loraParameterTable(cfg, lora)) {
      const a = refAdapters.adapters.get(p.base) ?? { A: new Float64Array(), B: new Float64Array() };
      a[p.which] = Float64Array.from(adapterValues.get(p.name)!);
      refAdapters.adapters.set(p.base, a);
    }
    const ref = referenceLoraLoss(cfg, to64(rounded), refAdapters, batch.inputIds, batch.targets, Float64Array.from(batch.mask), B, T, batch);
    const refGrads = new Map<string, Float64Array>();
    for (const p of loraParameterTable(cfg, lora)) refGrads.set(p.name, p.which === 'A' ? ref.grads.get(p.base)!.dA : ref.grads.get(p.base)!.dB);
    const layouts: [string, ActivationOptions][] = [['default', { recompute: false, scoredRowsOnly: false }], ['chunked + recompute + scored rows', { ...CHUNKED, recompute: true, scoredRowsOnly: true }]];
    for (const [label, opts] of layouts) expectClose(await run(rt, w, batch, opts), { loss: ref.loss, logits: ref.logits, grads: refGrads }, TOL, label);

    // GRPO's KL reference: the same base buffers (only the adapters copied), frozen at this moment.
    rt.pool.trim();
    const before = rt.pool.getStats().heldBytes;
    const view = w.frozenCopy();
    const adapterBytes = [...adapters.params.values()].reduce((s, t) => s + Math.max(16, Math.ceil((4 * t.size) / 16) * 16), 0);
    expect(rt.pool.getStats().heldBytes - before).toBe(adapterBytes);
    for (const t of adapters.params.values()) rt.write(t, new Float32Array(t.size)); // the policy moves on: adapters zeroed
    const plain = referenceForward(cfg, to64(rounded), batch.inputIds, B, T, batch).logits;
    const merged = referenceForward(cfg, mergeReferenceLora(cfg, to64(rounded), refAdapters), batch.inputIds, B, T, batch).logits;
    const logitsOf = async (m: GpuWeights) => {
      const acts = planActivations(rt, cfg, B, T, undefined, CHUNKED);
      writeBatch(rt, m, acts, batch);
      modelForward(rt, m, acts);
      const out = await readLogits(rt, m, acts);
      releaseActivations(rt, acts);
      return out;
    };
    expect(relativeError(await logitsOf(view), merged), 'reference view = policy at copy time').toBeLessThanOrEqual(TOL);
    expect(relativeError(await logitsOf(w), plain), 'policy with zeroed adapters = base').toBeLessThanOrEqual(TOL);
    expect(() => view.zeroGrads()).not.toThrow(); // a frozen copy has no gradients to clear
    view.destroy();
    expect(relativeError(await logitsOf(w), plain), 'the base survives the view').toBeLessThanOrEqual(TOL);
    adapters.destroy();
    w.destroy();
    rt.pool.trim();
    expect(rt.pool.getStats().heldBytes).toBe(held);
  });

  it('scored rows only: logp, lse and entropy at the scored rows (NaN elsewhere), the (N, 3) backward = whole with unscored rows zeroed (≤ 1e-5)', async () => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(59);
    const cfg = UNTIED;
    const values = randomWeights(cfg, rng);
    const batch = randomBatch(cfg, rng);
    const rows = Float32Array.from({ length: 3 * N }, (_, i) => (batch.mask[Math.floor(i / 3)] ? rng.normal(0, 0.5) : 0));
    const out: { logp: Float32Array; entropy: Float32Array; grads: Map<string, Float32Array> }[] = [];
    for (const opts of [{ recompute: false, scoredRowsOnly: false }, { ...CHUNKED, scoredRowsOnly: true }, { recompute: true, scoredRowsOnly: true, logitsBudgetBytes: 2 * cfg.vocabSize * 4 }]) {
      const w = new GpuWeights(rt, cfg, values, SPLIT);
      const acts = planActivations(rt, cfg, B, T, undefined, opts);
      const scratch = planBackwardScratch(rt, cfg, B, T);
      const entropy = rt.empty([N], 'f32', 'entropy');
      writeBatch(rt, w, acts, batch);
      modelForward(rt, w, acts);
      tokenLogprobs(rt, w, acts, entropy);
      const logp = await rt.readF32(acts.logp);
      rt.release(acts.dlogp);
      acts.dlogp = rt.upload(rows, [N, 3], 'f32', 'dlogpRows');
      w.zeroGrads();
      modelBackward(rt, w, acts, scratch);
      out.push({ logp, entropy: await rt.readF32(entropy), grads: await w.downloadGrads() });
      rt.release(entropy);
      releaseActivations(rt, acts);
      releaseBackwardScratch(rt, scratch);
      w.destroy();
    }
    for (const r of out.slice(1)) {
      for (let i = 0; i < N; i++) {
        if (batch.mask[i]) {
          expect(Math.abs(r.logp[i] - out[0].logp[i]), `logp ${i}`).toBeLessThanOrEqual(1e-5);
          expect(Math.abs(r.entropy[i] - out[0].entropy[i]), `entropy ${i}`).toBeLessThanOrEqual(1e-5);
        } else {
          expect(r.logp[i], `unscored logp ${i}`).toBeNaN();
          expect(r.entropy[i], `unscored entropy ${i}`).toBeNaN();
        }
      }
      for (const [name, g] of out[0].grads) expect(relativeError(r.grads.get(name)!, g), name).toBeLessThanOrEqual(1e-5);
    }
  });

  it('entropy per chunk = float64 reference; the (N, 3) entropy-bonus backward chunked = whole (≤ 1e-5)', async () => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(47);
    const cfg = TINY;
    const values = randomWeights(cfg, rng);
    const batch = randomBatch(cfg, rng);
    const rows = Float32Array.from({ length: 3 * N }, () => rng.normal(0, 0.5)); // (dlogp, dH, H) per token: arbitrary weights
    const grads: Map<string, Float32Array>[] = [];
    const ref = referenceForward(cfg, to64(values), batch.inputIds, B, T, batch).logits;
    for (const [w, opts] of [[new GpuWeights(rt, cfg, values), { recompute: false }], [new GpuWeights(rt, cfg, values, SPLIT), { ...CHUNKED, recompute: true }]] as const) {
      // (byte vocabulary: scored-rows 'auto' is off, every row is scored)
      const acts = planActivations(rt, cfg, B, T, undefined, opts);
      const scratch = planBackwardScratch(rt, cfg, B, T);
      const entropy = rt.empty([N], 'f32', 'entropy');
      writeBatch(rt, w, acts, batch);
      modelForward(rt, w, acts);
      tokenLogprobs(rt, w, acts, entropy);
      expect(relativeError(await rt.readF32(entropy), refEntropy(ref, N, cfg.vocabSize))).toBeLessThanOrEqual(1e-4);
      // H in the rows must be the model's own entropy for the bonus term to be a gradient; any values test the plumbing
      rt.release(acts.dlogp);
      acts.dlogp = rt.upload(rows, [N, 3], 'f32', 'dlogpRows');
      w.zeroGrads();
      modelBackward(rt, w, acts, scratch);
      grads.push(await w.downloadGrads());
      rt.release(entropy);
      releaseActivations(rt, acts);
      releaseBackwardScratch(rt, scratch);
      w.destroy();
    }
    for (const [name, g] of grads[0]) expect(relativeError(grads[1].get(name)!, g), name).toBeLessThanOrEqual(1e-5);
  });

  it('KV-cache decode through a split (f16) head and embedding = the full forward (≤ 1e-4)', async () => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(53);
    const cfg = UNTIED;
    const values = randomWeights(cfg, rng);
    const batch = randomBatch(cfg, rng);
    for (const storage of [SPLIT, { ...SPLIT, f16Base: true }]) {
      const w = new GpuWeights(rt, cfg, values, storage);
      const acts = planActivations(rt, cfg, B, T, undefined, CHUNKED);
      writeBatch(rt, w, acts, { inputIds: batch.inputIds });
      modelForward(rt, w, acts);
      const logits = await readLogits(rt, w, acts);
      const dec = new Decoder(rt, w, B, T);
      const V = cfg.vocabSize;
      const got = await dec.forward(batch.inputIds, new Int32Array(B), new Int32Array(B).fill(T - 1));
      for (let b = 0; b < B; b++) expect(relativeError(got.subarray(b * V, (b + 1) * V), logits.subarray((b * T + T - 1) * V, (b * T + T) * V))).toBeLessThanOrEqual(1e-4);
      dec.destroy();
      releaseActivations(rt, acts);
      w.destroy();
    }
  });
});
