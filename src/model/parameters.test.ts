import { describe, expect, it } from 'vitest';
import { type ModelConfig, PRESETS } from './config';
import { checkFits, checkPresetFits, estimateMemory, planMemory } from './memoryPlan';
import { countLoraParameters, countParameters, formatBytes, LORA_TARGETS, parameterTable } from './parameters';

/** A model small enough to count by hand: V 10, C 4, F 6, L 1, Hq 2, Hkv 1, D 2. */
const HAND: ModelConfig = {
  vocabSize: 10, hiddenSize: 4, intermediateSize: 6, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 2,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 16, tieWordEmbeddings: true, tokenizer: 'byte',
};

const MiB = 2 ** 20;
const COMPAT = { maxBufferSize: 256 * MiB, maxStorageBufferBindingSize: 128 * MiB };

describe('parameterTable', () => {
  it('lists HF names and shapes in order', () => {
    expect(parameterTable(HAND)).toEqual([
      { name: 'model.embed_tokens.weight', shape: [10, 4], kind: 'embedding' },
      { name: 'model.layers.0.input_layernorm.weight', shape: [4], kind: 'norm' },
      { name: 'model.layers.0.self_attn.q_proj.weight', shape: [4, 4], kind: 'matrix' },
      { name: 'model.layers.0.self_attn.k_proj.weight', shape: [2, 4], kind: 'matrix' },
      { name: 'model.layers.0.self_attn.v_proj.weight', shape: [2, 4], kind: 'matrix' },
      { name: 'model.layers.0.self_attn.o_proj.weight', shape: [4, 4], kind: 'matrix' },
      { name: 'model.layers.0.self_attn.q_norm.weight', shape: [2], kind: 'norm' },
      { name: 'model.layers.0.self_attn.k_norm.weight', shape: [2], kind: 'norm' },
      { name: 'model.layers.0.post_attention_layernorm.weight', shape: [4], kind: 'norm' },
      { name: 'model.layers.0.mlp.gate_proj.weight', shape: [6, 4], kind: 'matrix' },
      { name: 'model.layers.0.mlp.up_proj.weight', shape: [6, 4], kind: 'matrix' },
      { name: 'model.layers.0.mlp.down_proj.weight', shape: [4, 6], kind: 'matrix' },
      { name: 'model.norm.weight', shape: [4], kind: 'norm' },
    ]);
  });

  it('adds lm_head.weight (V, C) last only when untied', () => {
    const untied = parameterTable({ ...HAND, tieWordEmbeddings: false });
    expect(untied.at(-1)).toEqual({ name: 'lm_head.weight', shape: [10, 4], kind: 'embedding' });
    expect(countParameters({ ...HAND, tieWordEmbeddings: false }) - countParameters(HAND)).toBe(40);
  });

  it('has 11 tensors per layer with distinct names', () => {
    const table = parameterTable(PRESETS['qwen3-0.6b']);
    expect(table).toHaveLength(2 + 11 * 28);
    expect(new Set(table.map((p) => p.name)).size).toBe(table.length);
    expect(table.find((p) => p.name === 'model.layers.27.self_attn.o_proj.weight')!.shape).toEqual([1024, 2048]);
  });
});

describe('parameter counts', () => {
  it('counts the hand model: 40 + 132 + 4', () => {
    expect(countParameters(HAND)).toBe(176);
  });

  it('puts the presets in their size classes', () => {
    expect(countParameters(PRESETS.nano)).toBeLessThan(1e6);
    expect(countParameters(PRESETS.tiny)).toBeGreaterThan(3e6);
    expect(countParameters(PRESETS.tiny)).toBeLessThan(8e6);
    expect(countParameters(PRESETS.small)).toBeGreaterThan(20e6);
    expect(countParameters(PRESETS.small)).toBeLessThan(45e6);
  });

  it('matches Qwen3-0.6B (~596 M with tied embeddings) within 1%', () => {
    const n = countParameters(PRESETS['qwen3-0.6b']);
    expect(Math.abs(n - 596e6) / 596e6).toBeLessThan(0.01);
    expect(n).toBe(596_049_920); // 151936·1024 + 28·15 730 944 + 1024
  });

  it('counts LoRA adapters as r·(in + out) per adapted matrix', () => {
    // nano: q_proj (96, 96) → 8·192; v_proj (48, 96) → 8·144; 4 layers.
    expect(countLoraParameters(PRESETS.nano, { rank: 8, targets: ['q_proj', 'v_proj'] })).toBe(4 * (1536 + 1152));
  });
});

describe('estimateMemory (the fit checks\' summary of planMemory)', () => {
  it('its totals are the plan\'s groups (memoryPlan.test.ts checks those against real allocation)', () => {
    const opts = { batch: 2, seqLen: 8, optimizer: 'adamw' as const, weightDtype: 'f32' as const };
    const est = estimateMemory(PRESETS.nano, opts);
    const plan = planMemory(PRESETS.nano, { batch: 2, seqLen: 8 });
    expect([est.weightsBytes, est.gradsBytes, est.optimizerBytes, est.activationsBytes, est.totalBytes])
      .toEqual([plan.byGroup.weights, plan.byGroup.gradients, plan.byGroup.optimizer, plan.byGroup.activations, plan.totalBytes]);
    expect(est.gradsBytes).toBe(est.weightsBytes); // f32 gradient per f32 weight (sizes multiples of 16 B)
    expect(est.optimizerBytes).toBeGreaterThan(2 * est.weightsBytes); // m, v and the norm's partials
  });

  it('refuses f16 weights for full-parameter training (an f16 base is frozen)', () => {
    expect(() => estimateMemory(HAND, { batch: 1, seqLen: 3, optimizer: 'adamw', weightDtype: 'f16' })).toThrow(/full-parameter training keeps f32 weights/);
  });

  it('counts the frozen reference of GRPO\'s KL term: every weight in full training, only the adapters with LoRA', () => {
    const opts = { batch: 1, seqLen: 8, optimizer: 'adamw' as const, weightDtype: 'f32' as const };
    const [full, fullRef] = [estimateMemory(PRESETS.nano, opts), estimateMemory(PRESETS.nano, { ...opts, referenceCopy: true })];
    expect(fullRef.weightsBytes - full.weightsBytes).toBe(full.gradsBytes);
    const lora = { rank: 8, targets: LORA_TARGETS };
    const [ad, adRef] = [estimateMemory(PRESETS.nano, { ...opts, lora }), estimateMemory(PRESETS.nano, { ...opts, lora, referenceCopy: true })];
    expect(adRef.weightsBytes - ad.weightsBytes).toBe(4 * countLoraParameters(PRESETS.nano, lora));
  });

  it('LoRA baseDtype f16: every 2-D weight at 2 bytes (nano, tiny, qwen3-0.6b)', () => {
    const lora = { rank: 8, targets: ['q_proj', 'v_proj'] as const };
    for (const name of ['nano', 'tiny', 'qwen3-0.6b'] as const) {
      const cfg = PRESETS[name];
      const opts = { batch: 1, seqLen: 64, optimizer: 'adamw' as const, weightDtype: 'f32' as const };
      const f32 = estimateMemory(cfg, { ...opts, lora: { ...lora, baseDtype: 'f32' } });
      const f16 = estimateMemory(cfg, { ...opts, lora: { ...lora, baseDtype: 'f16' } });
      const twoD = parameterTable(cfg).filter((p) => p.shape.length === 2).reduce((s, p) => s + p.shape[0] * p.shape[1], 0);
      expect(f32.weightsBytes - f16.weightsBytes).toBe(2 * twoD);
      expect(f32.totalBytes - f16.totalBytes).toBe(2 * twoD);
      expect(estimateMemory(cfg, { ...opts, lora: { ...lora } })).toEqual(f32); // default f32
      console.log(`${name}: frozen 2-D weights ${twoD} params, f16 base saves ${formatBytes(2 * twoD)}; weights ${formatBytes(f32.weightsBytes)} → ${formatBytes(f16.weightsBytes)}`);
    }
  });

  it('the largest buffer leaves out the vocabulary tensors (split to fit) and sees the logits chunk the adapter allows', () => {
    const full = estimateMemory(PRESETS['qwen3-0.6b'], { batch: 1, seqLen: 512, optimizer: 'adamw', weightDtype: 'f32' }, COMPAT);
    // full-parameter AdamW keeps its moments of the embedding in one buffer: that does not fit (use LoRA)
    expect(full.largestBuffer).toEqual({ name: 'AdamW m, v of a vocabulary tensor (V, C)', bytes: 151936 * 1024 * 4, perToken: false });
    const lora = estimateMemory(PRESETS['qwen3-0.6b'], { batch: 1, seqLen: 512, optimizer: 'adamw', weightDtype: 'f32', lora: { rank: 8, targets: LORA_TARGETS } }, COMPAT);
    expect(lora.largestBuffer).toEqual({ name: 'logits chunk (220, V)', bytes: 220 * 151936 * 4, perToken: true });
    const nano = estimateMemory(PRESETS.nano, { batch: 256, seqLen: 512, optimizer: 'adamw', weightDtype: 'f32' }, COMPAT);
    expect(nano.largestBuffer).toEqual({ name: 'gate, up, act (N, F)', bytes: 256 * 512 * 256 * 4, perToken: true });
  });

  it('rejects a non-positive batch', () => {
    expect(() => estimateMemory(HAND, { batch: 0, seqLen: 3, optimizer: 'adamw', weightDtype: 'f32' })).toThrow(/batch and seqLen must be positive integers, got batch 0/);
  });
});

describe('formatBytes', () => {
  it.each([[512, '512 B'], [1536, '1.5 KiB'], [256 * MiB, '256 MiB'], [2.25 * 2 ** 30, '2.3 GiB'], [0, '0 B']])('%i → %s', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });
});

describe('checkFits', () => {
  it('passes a small run on compatibility limits, and Qwen3-0.6B LoRA (its embedding split into row parts)', () => {
    expect(checkPresetFits('nano', { batch: 4, seqLen: 256, optimizer: 'adamw', weightDtype: 'f32' }, COMPAT)).toBeNull();
    expect(checkPresetFits('qwen3-0.6b', { batch: 1, seqLen: 256, optimizer: 'adamw', weightDtype: 'f32', lora: { rank: 8, targets: ['q_proj', 'v_proj'], baseDtype: 'f16' } }, COMPAT)).toBeNull();
  });

  it('names the binding that is too small and how many tokens would fit', () => {
    const est = estimateMemory(PRESETS.nano, { batch: 512, seqLen: 512, optimizer: 'adamw', weightDtype: 'f32' }, COMPAT);
    expect(checkFits(est, COMPAT, { label: 'preset nano' })).toBe(
      'preset nano needs a 256 MiB storage binding for gate, up, act (N, F); this adapter allows 128 MiB: '
      + 'use at most 131072 tokens per step (batch × seqLen, now 262144) or use a desktop GPU');
  });

  it('offers the largest smaller preset that fits', () => {
    const message = checkPresetFits('small', { batch: 256, seqLen: 512, optimizer: 'adamw', weightDtype: 'f32' }, COMPAT);
    expect(message).toMatch(/^preset small needs a [\d.]+ MiB storage binding for .*; this adapter allows 128 MiB: use at most \d+ tokens per step .* or use a desktop GPU$/);
  });

  it('checks the memory budget and suggests fewer tokens or LoRA', () => {
    const est = estimateMemory(PRESETS.small, { batch: 8, seqLen: 512, optimizer: 'adamw', weightDtype: 'f32' });
    const message = checkFits(est, { ...COMPAT, maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 31, budgetBytes: 512 * MiB }, { label: 'preset small' });
    expect(message).toMatch(/^preset small needs about [\d.]+ [MG]iB \(weights [\d.]+ MiB, gradients .*\); the budget is 512 MiB: use at most \d+ tokens per step \(batch × seqLen, now 4096\), train LoRA adapters or use a desktop GPU$/);
    const tokens = Number(/at most (\d+) tokens/.exec(message!)![1]);
    expect(checkFits(estimateMemory(PRESETS.small, { batch: 1, seqLen: tokens, optimizer: 'adamw', weightDtype: 'f32' }), { ...COMPAT, maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 31, budgetBytes: 512 * MiB })).toBeNull();
  });
});
