// LoRA on the GPU: PEFT names and init; every adapter gradient, the loss and the logits against the
// float64 reference LoRA (src/reference/lora.ts, rel err ≤ 1e-3) with nonzero B; frozen base (no
// base gradients); merge-for-export and KV-cache decode equal the LoRA model; a LoRA-only SFT smoke
// test lowers the loss without touching a base weight. baseDtype 'f16': the same checks against the
// reference run on f16-rounded 2-D weights, embedding included (and far from the f32 one), pool memory given back,
// decode, detach/merge unpacking, SFT steps lowering the loss on TINY and on nano.
import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import { mergeReferenceLora, type ReferenceLora, referenceLoraLoss } from '../reference/lora';
import { relativeError } from '../reference/ops/finiteDiff';
import { AdamWState } from '../train/optimizerState';
import { Rng } from '../util/rng';
import { planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from './activations';
import { type ModelConfig, PRESETS } from './config';
import { modelBackward } from './backward';
import { Decoder } from './decode';
import { modelForward, writeBatch } from './forward';
import { isPackedF16, packedWords } from '../ops/matmulPackedF16';
import { roundToF16 } from './halfFloat';
import {
  attachLora, detachLora, initialLoraWeights, type LoraConfig, LoraAdapters, loraParameterName, loraParameterTable, mergeLora, packableBaseNames,
  packFrozenBase, peftAdapterConfig,
} from './lora';
import { countLoraParameters, LORA_TARGETS, parameterTable } from './parameters';
import { supervisedStep } from './trainStep';
import { GpuWeights, initialWeights } from './weights';

const TOL = 1e-3;

const TINY: ModelConfig = {
  vocabSize: 11, hiddenSize: 8, intermediateSize: 12, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 4,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: true, tokenizer: 'byte',
};

function randomWeights(cfg: ModelConfig, rng: Rng): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const p of parameterTable(cfg)) {
    const n = p.shape.reduce((a, b) => a * b, 1);
    out.set(p.name, Float32Array.from({ length: n }, () => (p.kind === 'norm' ? 1 + rng.normal(0, 0.2) : rng.normal(0, 0.4))));
  }
  return out;
}

/** Adapters with B ≠ 0 (so dA is not trivially zero), by PEFT name. */
function randomAdapters(cfg: ModelConfig, lora: LoraConfig, rng: Rng): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const p of loraParameterTable(cfg, lora)) {
    out.set(p.name, Float32Array.from({ length: p.shape[0] * p.shape[1] }, () => rng.normal(0, p.which === 'A' ? 0.4 : 0.3)));
  }
  return out;
}

/** The same adapters for the float64 reference, keyed by the adapted base weight. */
function toReference(cfg: ModelConfig, lora: LoraConfig, values: Map<string, Float32Array>): ReferenceLora {
  const adapters: ReferenceLora['adapters'] = new Map();
  for (const p of loraParameterTable(cfg, lora)) {
    const a = adapters.get(p.base) ?? { A: new Float64Array(), B: new Float64Array() };
    a[p.which] = Float64Array.from(values.get(p.name)!);
    adapters.set(p.base, a);
  }
  return { rank: lora.rank, scale: lora.alpha / lora.rank, adapters };
}

const to64 = (m: Map<string, Float32Array>) => new Map([...m].map(([k, v]) => [k, Float64Array.from(v)]));

describe('LoRA parameters (host)', () => {
  it('PEFT names, shapes and counts; seeded init with B = 0 and A ~ U(±1/√in)', () => {
    const lora: LoraConfig = { rank: 3, alpha: 6, targets: ['q_proj', 'o_proj', 'down_proj'] };
    const table = loraParameterTable(TINY, lora);
    expect(table.length).toBe(2 * 3 * 2);
    expect(table[0]).toMatchObject({ name: 'base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight', shape: [3, 8], base: 'model.layers.0.self_attn.q_proj.weight' });
    expect(table[1]).toMatchObject({ name: 'base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight', shape: [16, 3] });
    expect(table[3]).toMatchObject({ name: 'base_model.model.model.layers.0.self_attn.o_proj.lora_B.weight', shape: [8, 3] });
    expect(table[4]).toMatchObject({ name: 'base_model.model.model.layers.0.mlp.down_proj.lora_A.weight', shape: [3, 12] });
    expect(loraParameterName(1, 'up_proj', 'B')).toBe('base_model.model.model.layers.1.mlp.up_proj.lora_B.weight');
    expect(table.reduce((s, p) => s + p.shape[0] * p.shape[1], 0)).toBe(countLoraParameters(TINY, lora));

    const init = initialLoraWeights(TINY, lora, 7);
    expect(initialLoraWeights(TINY, lora, 7)).toEqual(init);
    for (const p of table) {
      const v = init.get(p.name)!;
      if (p.which === 'B') expect(v.every((x) => x === 0), p.name).toBe(true);
      else {
        const bound = 1 / Math.sqrt(p.shape[1]);
        expect(v.every((x) => Math.abs(x) <= bound), p.name).toBe(true);
        expect(Math.max(...v.map(Math.abs))).toBeGreaterThan(0.5 * bound);
      }
    }
    expect(peftAdapterConfig(lora)).toMatchObject({ peft_type: 'LORA', r: 3, lora_alpha: 6, target_modules: ['q_proj', 'o_proj', 'down_proj'] });
    expect(() => loraParameterTable(TINY, { ...lora, rank: 0 })).toThrow(/rank must be a positive integer/);
    expect(() => loraParameterTable(TINY, { ...lora, targets: ['q_proj', 'q_proj'] })).toThrow(/listed twice/);
    expect(() => loraParameterTable(TINY, { ...lora, targets: ['lm_head' as never] })).toThrow(/unknown target 'lm_head'/);
  });
});

/** N random input/target ids and a loss mask with every 4th token off. */
function randomTokens(cfg: ModelConfig, rng: Rng, N: number): { inputIds: Int32Array; targets: Int32Array; mask: Float32Array } {
  const inputIds = Int32Array.from({ length: N }, () => rng.int(0, cfg.vocabSize - 1));
  const targets = Int32Array.from({ length: N }, () => rng.int(0, cfg.vocabSize - 1));
  const mask = Float32Array.from({ length: N }, (_, i) => (i % 4 === 0 ? 0 : 1));
  return { inputIds, targets, mask };
}

describe.each(TEST_ADAPTERS)('LoRA on %s', (adapter) => {
  it.each([
    ['every target, tied embeddings', TINY, { rank: 3, alpha: 5, targets: LORA_TARGETS }, false],
    ['q, v, down; untied head, GQA ratio 4, packed segments', { ...TINY, numHeads: 8, numKvHeads: 2, tieWordEmbeddings: false },
      { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj', 'down_proj'] }, true],
  ] as const)(`%s: loss, logits and every dA, dB vs float64 reference, rel err ≤ ${TOL}; no base gradients`, async (_name, cfg, lora, packed) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(17);
    const [B, T] = [2, 5];
    const N = B * T;
    const values = randomWeights(cfg, rng);
    const adapterValues = randomAdapters(cfg, lora, rng);
    const { inputIds, targets, mask } = randomTokens(cfg, rng, N);
    const segments = packed ? Int32Array.from([0, 0, 0, 0, 0, 0, 0, 1, 1, -1]) : undefined;
    const positions = packed ? Int32Array.from([0, 1, 2, 3, 4, 0, 1, 0, 1, 0]) : undefined;
    if (packed) mask[9] = 0;

    const w = new GpuWeights(rt, cfg, values);
    w.zeroGrads(); // base gradients exist before attaching: attachLora must free them
    const adapters = new LoraAdapters(rt, cfg, lora, adapterValues);
    attachLora(rt, w, adapters);
    expect(w.baseGradCount).toBe(0);
    expect(() => w.grad('model.layers.0.self_attn.q_proj.weight')).toThrow(/frozen while LoRA adapters are attached/);
    expect(w.trainableNames()).toEqual(adapters.names);
    const acts = planActivations(rt, cfg, B, T, lora);
    const scratch = planBackwardScratch(rt, cfg, B, T, lora);
    expect(scratch.dW.size).toBe(0); // no base weight-gradient buffers at all
    w.zeroGrads();
    const batch = { inputIds, targets, mask, segments, positions };
    writeBatch(rt, w, acts, batch);
    modelForward(rt, w, acts);
    const logits = await rt.readF32(acts.logits);
    const { loss } = await supervisedStep(rt, w, acts, scratch, batch);
    const grads = await w.downloadGrads();

    const ref = referenceLoraLoss(cfg, to64(values), toReference(cfg, lora, adapterValues), inputIds, targets, Float64Array.from(mask), B, T, { segments, positions });
    expect(Math.abs(loss - ref.loss) / ref.loss).toBeLessThanOrEqual(TOL);
    expect(relativeError(logits, ref.logits)).toBeLessThanOrEqual(TOL);
    for (const p of adapters.table) {
      const r = ref.grads.get(p.base)!;
      const expected = p.which === 'A' ? r.dA : r.dB;
      expect(expected.some((v) => v !== 0), `${p.name} reference gradient is zero`).toBe(true);
      expect(relativeError(grads.get(p.name)!, expected), p.name).toBeLessThanOrEqual(TOL);
    }
    attachLora(rt, w, adapters); // re-attaching the same adapters is allowed
    const other = new LoraAdapters(rt, cfg, lora, adapterValues);
    expect(() => attachLora(rt, w, other)).toThrow(/already has adapters/);
    other.destroy();
    // Detached, the model trains in full again, but a LoRA-planned scratch has no dW buffers for it.
    expect(detachLora(w)).toBe(adapters);
    w.zeroGrads();
    expect(w.baseGradCount).toBe(parameterTable(cfg).length);
    expect(() => modelBackward(rt, w, acts, scratch)).toThrow(/planned for LoRA/);
    releaseActivations(rt, acts);
    releaseBackwardScratch(rt, scratch);
    adapters.destroy();
    w.destroy();
  });

  it(`fresh adapters (B = 0) leave the logits unchanged; merged export and KV-cache decode equal the LoRA model (rel err ≤ 1e-4)`, async () => {
    const rt = await testRuntime(adapter);
    const cfg: ModelConfig = { ...TINY, vocabSize: 13, hiddenSize: 12, intermediateSize: 20 };
    const lora: LoraConfig = { rank: 4, alpha: 8, targets: LORA_TARGETS };
    const rng = new Rng(23);
    const [B, T] = [2, 6];
    const values = randomWeights(cfg, rng);
    const inputIds = Int32Array.from({ length: B * T }, () => rng.int(0, cfg.vocabSize - 1));
    const w = new GpuWeights(rt, cfg, values);
    const acts = planActivations(rt, cfg, B, T); // no lora: the first LoRA forward adds its buffers
    const logitsOf = async () => {
      writeBatch(rt, w, acts, { inputIds });
      modelForward(rt, w, acts);
      return rt.readF32(acts.logits);
    };
    const base = await logitsOf();

    const fresh = new LoraAdapters(rt, cfg, lora, undefined, 5);
    attachLora(rt, w, fresh);
    expect(relativeError(await logitsOf(), base)).toBeLessThanOrEqual(1e-6);
    w.lora = undefined;
    fresh.destroy();

    const adapterValues = randomAdapters(cfg, lora, rng);
    const adapters = new LoraAdapters(rt, cfg, lora, adapterValues);
    attachLora(rt, w, adapters);
    const adapted = await logitsOf();
    expect(relativeError(adapted, base)).toBeGreaterThan(0.05); // the adapters matter

    // KV-cache decode with the adapters: prefill of 4 tokens, then 2 single steps; last-token logits.
    const V = cfg.vocabSize;
    const dec = new Decoder(rt, w, B, T);
    const rows = (t: number) => Int32Array.from({ length: B }, (_, b) => inputIds[b * T + t]);
    const prompt = Int32Array.from({ length: B * 4 }, (_, i) => inputIds[Math.floor(i / 4) * T + (i % 4)]);
    const expectRows = (got: Float32Array, t: number) => {
      for (let b = 0; b < B; b++) {
        const want = adapted.subarray((b * T + t) * V, (b * T + t + 1) * V);
        expect(relativeError(got.subarray(b * V, (b + 1) * V), want), `decode row ${b} t ${t}`).toBeLessThanOrEqual(1e-4);
      }
    };
    expectRows(await dec.forward(prompt, new Int32Array(B), new Int32Array(B).fill(3)), 3);
    expectRows(await dec.forward(rows(4), new Int32Array(B).fill(4), new Int32Array(B)), 4);
    expectRows(await dec.forward(rows(5), new Int32Array(B).fill(5), new Int32Array(B)), 5);
    dec.destroy();

    mergeLora(rt, w);
    expect(w.lora).toBeUndefined();
    expect(relativeError(await logitsOf(), adapted)).toBeLessThanOrEqual(1e-4);
    const merged = await w.download();
    const refMerged = mergeReferenceLora(cfg, to64(values), toReference(cfg, lora, adapterValues));
    for (const p of parameterTable(cfg)) expect(relativeError(merged.get(p.name)!, refMerged.get(p.name)!), p.name).toBeLessThanOrEqual(1e-5);
    expect(await adapters.download()).toEqual(adapterValues); // merging leaves the adapters as they were
    releaseActivations(rt, acts);
    adapters.destroy();
    w.destroy();
  });
});

/** The base weights as the f16-base model computes with them: every 2-D weight rounded to f16. */
function roundedBase(cfg: ModelConfig, values: Map<string, Float32Array>): Map<string, Float32Array> {
  const packed = new Set(packableBaseNames(cfg));
  return new Map([...values].map(([k, v]) => [k, packed.has(k) ? v.map(roundToF16) : v]));
}

describe.each(TEST_ADAPTERS)('LoRA with an f16 base on %s', (adapter) => {
  it.each([
    ['every target, tied embeddings', TINY, { rank: 3, alpha: 5, targets: LORA_TARGETS, baseDtype: 'f16' }],
    ['q, v, down; untied head, GQA ratio 4', { ...TINY, numHeads: 8, numKvHeads: 2, tieWordEmbeddings: false },
      { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj', 'down_proj'], baseDtype: 'f16' }],
  ] as const)(`%s: loss, logits, every dA, dB vs float64 reference on f16-rounded base weights, rel err ≤ ${TOL}; half the memory; decode; detach`, async (_name, cfg, lora) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(29);
    const [B, T] = [2, 5];
    const N = B * T;
    const values = randomWeights(cfg, rng);
    const adapterValues = randomAdapters(cfg, lora, rng);
    const { inputIds, targets, mask } = randomTokens(cfg, rng, N);

    const w = new GpuWeights(rt, cfg, values);
    const adapters = new LoraAdapters(rt, cfg, lora, adapterValues);
    rt.pool.trim();
    const held = rt.pool.getStats().heldBytes;
    attachLora(rt, w, adapters);
    const names = packableBaseNames(cfg);
    expect(names.length).toBe(7 * cfg.numLayers + (cfg.tieWordEmbeddings ? 1 : 2)); // projections, embedding (and untied head)
    for (const name of names) expect(isPackedF16(w.get(name)), name).toBe(true);
    expect(isPackedF16(w.get('model.norm.weight'))).toBe(false);
    // Memory actually given back: 4 bytes → 2 per projection value (buffers padded to 16 B).
    const pad = (bytes: number) => Math.max(16, Math.ceil(bytes / 16) * 16);
    const saved = names.reduce((s, n) => { const size = values.get(n)!.length; return s + pad(4 * size) - pad(4 * packedWords(size)); }, 0);
    expect(held - rt.pool.getStats().heldBytes).toBe(saved);
    attachLora(rt, w, adapters); // re-attaching leaves the packed base as it is
    expect(held - rt.pool.getStats().heldBytes).toBe(saved);

    const acts = planActivations(rt, cfg, B, T, lora);
    const scratch = planBackwardScratch(rt, cfg, B, T, lora);
    w.zeroGrads();
    const batch = { inputIds, targets, mask };
    writeBatch(rt, w, acts, batch);
    modelForward(rt, w, acts);
    const logits = await rt.readF32(acts.logits);
    const { loss } = await supervisedStep(rt, w, acts, scratch, batch);
    const grads = await w.downloadGrads();

    const rounded = roundedBase(cfg, values);
    const ref = referenceLoraLoss(cfg, to64(rounded), toReference(cfg, lora, adapterValues), inputIds, targets, Float64Array.from(mask), B, T);
    expect(Math.abs(loss - ref.loss) / ref.loss).toBeLessThanOrEqual(TOL);
    expect(relativeError(logits, ref.logits)).toBeLessThanOrEqual(TOL);
    for (const p of adapters.table) {
      const r = ref.grads.get(p.base)!;
      const expected = p.which === 'A' ? r.dA : r.dB;
      expect(expected.some((v) => v !== 0), `${p.name} reference gradient is zero`).toBe(true);
      expect(relativeError(grads.get(p.name)!, expected), p.name).toBeLessThanOrEqual(TOL);
    }
    // The model really computes with f16 weights: far closer to the rounded reference than to f32.
    const refF32 = referenceLoraLoss(cfg, to64(values), toReference(cfg, lora, adapterValues), inputIds, targets, Float64Array.from(mask), B, T);
    console.log(`${adapter}: logits rel err vs f16-rounded reference ${relativeError(logits, ref.logits).toExponential(2)}, vs f32 reference ${relativeError(logits, refF32.logits).toExponential(2)}`);
    expect(relativeError(logits, refF32.logits)).toBeGreaterThan(10 * relativeError(logits, ref.logits));

    // KV-cache decode (thin packed kernels): prefill 4 tokens, one step; last-token logits.
    const V = cfg.vocabSize;
    const dec = new Decoder(rt, w, B, T);
    const prompt = Int32Array.from({ length: B * 4 }, (_, i) => inputIds[Math.floor(i / 4) * T + (i % 4)]);
    const expectRows = (got: Float32Array, t: number) => {
      for (let b = 0; b < B; b++) {
        const want = logits.subarray((b * T + t) * V, (b * T + t + 1) * V);
        expect(relativeError(got.subarray(b * V, (b + 1) * V), want), `decode row ${b} t ${t}`).toBeLessThanOrEqual(1e-4);
      }
    };
    expectRows(await dec.forward(prompt, new Int32Array(B), new Int32Array(B).fill(3)), 3);
    expectRows(await dec.forward(Int32Array.from({ length: B }, (_, b) => inputIds[b * T + 4]), new Int32Array(B).fill(4), new Int32Array(B)), 4);
    dec.destroy();

    // Detached, the base is f32 again and holds exactly the f16-rounded values.
    detachLora(w);
    const back = await w.download();
    for (const [name, v] of rounded) expect(back.get(name)!.every((x, i) => x === v[i]), name).toBe(true);
    releaseActivations(rt, acts);
    releaseBackwardScratch(rt, scratch);
    adapters.destroy();
    w.destroy();
  });

  it('SFT steps on the adapters lower the loss; the packed base stays bit-identical; merge equals the f16-base model', async () => {
    const rt = await testRuntime(adapter);
    const cfg = TINY;
    const lora: LoraConfig = { rank: 4, alpha: 8, targets: LORA_TARGETS, baseDtype: 'f16' };
    const rng = new Rng(31);
    const [B, T] = [2, 6];
    const N = B * T;
    const values = randomWeights(cfg, rng);
    const inputIds = Int32Array.from({ length: N }, () => rng.int(0, cfg.vocabSize - 1));
    const targets = Int32Array.from({ length: N }, () => rng.int(0, cfg.vocabSize - 1));
    const mask = new Float32Array(N).fill(1);
    const w = new GpuWeights(rt, cfg, values);
    const adapters = new LoraAdapters(rt, cfg, lora, undefined, 3);
    attachLora(rt, w, adapters);
    const q = 'model.layers.1.self_attn.q_proj.weight';
    const before = await rt.read(w.get(q));
    const acts = planActivations(rt, cfg, B, T, lora);
    const scratch = planBackwardScratch(rt, cfg, B, T, lora);
    const opt = new AdamWState(rt, w, w.trainableNames());
    const losses: number[] = [];
    for (let step = 0; step < 4; step++) {
      w.zeroGrads();
      losses.push((await supervisedStep(rt, w, acts, scratch, { inputIds, targets, mask })).loss);
      await opt.apply({ lr: 2e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0 }, 1.0);
    }
    console.log(`${adapter} f16-base LoRA losses: ${losses.map((l) => l.toFixed(4)).join(' ')}`);
    expect(losses[1]).toBeLessThan(losses[0]); // one step already lowers it
    expect(losses[3]).toBeLessThan(losses[1]);
    expect([...(await rt.read(w.get(q)))]).toEqual([...before]);
    // download() of a packed base gives its f32 values (the f16-rounded originals), not the raw words.
    const downloaded = await w.download();
    expect([...downloaded.get(q)!]).toEqual(Array.from(values.get(q)!, roundToF16));
    // Merge unpacks the base and adds s·B·A in f32: same logits as the f16-base LoRA model.
    writeBatch(rt, w, acts, { inputIds });
    modelForward(rt, w, acts);
    const adapted = await rt.readF32(acts.logits);
    mergeLora(rt, w);
    expect(isPackedF16(w.get(q))).toBe(false);
    modelForward(rt, w, acts);
    expect(relativeError(await rt.readF32(acts.logits), adapted)).toBeLessThanOrEqual(1e-4);
    opt.destroy();
    releaseActivations(rt, acts);
    releaseBackwardScratch(rt, scratch);
    adapters.destroy();
    w.destroy();
  });

  it('rejects a bad baseDtype and packing a trainable base', async () => {
    const rt = await testRuntime(adapter);
    expect(() => loraParameterTable(TINY, { rank: 2, alpha: 2, targets: ['q_proj'], baseDtype: 'bf16' as never })).toThrow(/baseDtype must be 'f32' or 'f16', got 'bf16'/);
    const w = new GpuWeights(rt, TINY, randomWeights(TINY, new Rng(1)));
    expect(() => packFrozenBase(rt, w)).toThrow(/attach LoRA adapters first/);
    w.destroy();
  });
});

describe('LoRA learning smoke test (nano, llvmpipe)', () => {
  it.each(['f32', 'f16'] as const)('base %s: LoRA-only SFT on one small batch takes the loss below ½·ln V (a uniform guess) in 20 steps; base weights bit-identical', async (baseDtype) => {
    const rt = await testRuntime('opengles');
    const cfg = PRESETS.nano;
    const lora: LoraConfig = { rank: 4, alpha: 8, targets: LORA_TARGETS, baseDtype };
    const [B, T] = [2, 32];
    const text = new TextEncoder().encode('the tool call goes here: {"name": "lookup"} '.repeat(4));
    const inputIds = Int32Array.from({ length: B * T }, (_, i) => text[i]);
    const targets = Int32Array.from({ length: B * T }, (_, i) => text[i + 1]);
    const mask = new Float32Array(B * T).fill(1);
    // LoRA freezes the tied embedding / LM head; at the 0.02 init its logits span only about ±2, so
    // give the base larger embeddings (std 0.1) for the adapters to steer.
    const init = initialWeights(cfg, 1);
    init.get('model.embed_tokens.weight')!.forEach((v, i, a) => { a[i] = 5 * v; });
    const w = new GpuWeights(rt, cfg, init);
    const before = await w.download();
    const adapters = new LoraAdapters(rt, cfg, lora, undefined, 2);
    attachLora(rt, w, adapters);
    const acts = planActivations(rt, cfg, B, T, lora);
    const scratch = planBackwardScratch(rt, cfg, B, T, lora);
    const opt = new AdamWState(rt, w, w.trainableNames());
    const losses: number[] = [];
    for (let step = 0; step < 20; step++) {
      w.zeroGrads();
      losses.push((await supervisedStep(rt, w, acts, scratch, { inputIds, targets, mask })).loss);
      await opt.apply({ lr: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0 }, 1.0);
    }
    console.log(`LoRA smoke losses (base ${baseDtype}): ${losses.map((l) => l.toFixed(3)).join(' ')}`);
    const last = losses.slice(-3).reduce((a, b) => a + b, 0) / 3;
    expect(last).toBeLessThan(0.5 * Math.log(cfg.vocabSize));
    expect(last).toBeLessThan(0.5 * losses[0]);
    detachLora(w); // an f16 base unpacks to its f16-rounded values
    const after = await w.download();
    const want = baseDtype === 'f16' ? roundedBase(cfg, before) : before;
    for (const [name, v] of want) expect(after.get(name)!.every((x, i) => x === v[i]), `${name} changed`).toBe(true);
    opt.destroy();
    releaseActivations(rt, acts);
    releaseBackwardScratch(rt, scratch);
    adapters.destroy();
    w.destroy();
  }, 120_000);
});
