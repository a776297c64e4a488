import { describe, expect, it } from 'vitest';
import { type ModelConfig, PRESETS } from './config';
import {
  activationTable, checkFits, checkPresetFits, countLoraParameters, countParameters, estimateMemory, formatBytes, parameterTable,
} from './parameters';

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

describe('estimateMemory', () => {
  it('adds up the hand model: 59 floats per token per layer, 22 once, 63 scratch', () => {
    const est = estimateMemory(HAND, { batch: 1, seqLen: 3, optimizer: 'adamw', weightDtype: 'f32' });
    expect(est).toMatchObject({ weightsBytes: 704, gradsBytes: 704, optimizerBytes: 1408, activationsBytes: 4 * 3 * (59 + 22 + 63) });
    expect(est.totalBytes).toBe(704 + 704 + 1408 + 1728);
  });

  it('keeps an f32 master copy when training f16 weights in full', () => {
    const est = estimateMemory(HAND, { batch: 1, seqLen: 3, optimizer: 'adamw', weightDtype: 'f16' });
    expect([est.weightsBytes, est.gradsBytes, est.optimizerBytes]).toEqual([352, 704, 1408 + 704]);
  });

  it('counts the frozen f32 reference copy that GRPO keeps for its KL term', () => {
    const est = estimateMemory(HAND, { batch: 1, seqLen: 3, optimizer: 'adamw', weightDtype: 'f32', referenceCopy: true });
    expect([est.weightsBytes, est.gradsBytes, est.optimizerBytes]).toEqual([704 + 704, 704, 1408]);
  });

  it('trains only the adapters with LoRA', () => {
    const lora = { rank: 2, targets: ['q_proj', 'down_proj'] as const };
    const adapters = 2 * (4 + 4) + 2 * (6 + 4);
    const est = estimateMemory(HAND, { batch: 1, seqLen: 3, optimizer: 'adamw', weightDtype: 'f16', lora: { ...lora, targets: [...lora.targets] } });
    expect([est.weightsBytes, est.gradsBytes, est.optimizerBytes]).toEqual([352 + 4 * adapters, 4 * adapters, 8 * adapters]);
    expect(activationTable(HAND, 1, 3, { rank: 2, targets: ['q_proj'] }).map((a) => a.name)).toContain('lora_q_proj_xa');
  });

  it('LoRA baseDtype f16: the layer projections at 2 bytes each (nano, tiny, qwen3-0.6b savings)', () => {
    const lora = { rank: 8, targets: ['q_proj', 'v_proj'] as const };
    for (const name of ['nano', 'tiny', 'qwen3-0.6b'] as const) {
      const cfg = PRESETS[name];
      const opts = { batch: 1, seqLen: 64, optimizer: 'adamw' as const, weightDtype: 'f32' as const };
      const f32 = estimateMemory(cfg, { ...opts, lora: { ...lora, baseDtype: 'f32' } });
      const f16 = estimateMemory(cfg, { ...opts, lora: { ...lora, baseDtype: 'f16' } });
      const projections = parameterTable(cfg).filter((p) => p.kind === 'matrix').reduce((s, p) => s + p.shape[0] * p.shape[1], 0);
      expect(f32.weightsBytes - f16.weightsBytes).toBe(2 * projections);
      expect(f32.totalBytes - f16.totalBytes).toBe(2 * projections);
      expect(estimateMemory(cfg, { ...opts, lora: { ...lora } })).toEqual(f32); // default f32
      console.log(`${name}: frozen projections ${projections} params, f16 base saves ${formatBytes(2 * projections)} (${2 * projections} B); weights ${formatBytes(f32.weightsBytes)} → ${formatBytes(f16.weightsBytes)}`);
    }
  });

  it('finds the largest buffer: the embedding gradient for full 0.6B training, logits for a big nano batch', () => {
    const full = estimateMemory(PRESETS['qwen3-0.6b'], { batch: 1, seqLen: 512, optimizer: 'adamw', weightDtype: 'f16' });
    expect(full.largestBuffer).toEqual({ name: 'gradient of model.embed_tokens.weight', bytes: 151936 * 1024 * 4, perToken: false });
    const nano = estimateMemory(PRESETS.nano, { batch: 256, seqLen: 512, optimizer: 'adamw', weightDtype: 'f32' });
    expect(nano.largestBuffer).toEqual({ name: 'logits', bytes: 256 * 512 * 272 * 4, perToken: true });
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
  it('passes a small run on compatibility limits', () => {
    expect(checkPresetFits('nano', { batch: 4, seqLen: 256, optimizer: 'adamw', weightDtype: 'f32' }, COMPAT)).toBeNull();
  });

  it('names the logits binding and how many tokens would fit', () => {
    const est = estimateMemory(PRESETS.nano, { batch: 256, seqLen: 512, optimizer: 'adamw', weightDtype: 'f32' });
    expect(checkFits(est, COMPAT, { label: 'preset nano' })).toBe(
      'preset nano needs a 136 MiB storage binding for logits; this adapter allows 128 MiB: '
      + 'use at most 123361 tokens per step (batch × seqLen, now 131072) or use a desktop GPU');
  });

  it('offers the largest smaller preset that fits', () => {
    const message = checkPresetFits('qwen3-0.6b', { batch: 1, seqLen: 256, optimizer: 'adamw', weightDtype: 'f16', lora: { rank: 8, targets: ['q_proj', 'v_proj'] } }, COMPAT);
    expect(message).toBe('preset qwen3-0.6b needs a 296.8 MiB storage binding for model.embed_tokens.weight; this adapter allows 128 MiB: '
      + 'choose small or use a desktop GPU');
  });

  it('checks the memory budget and suggests fewer tokens or LoRA', () => {
    const est = estimateMemory(PRESETS.small, { batch: 8, seqLen: 512, optimizer: 'adamw', weightDtype: 'f32' });
    const message = checkFits(est, { ...COMPAT, maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 31, budgetBytes: 512 * MiB }, { label: 'preset small' });
    expect(message).toMatch(/^preset small needs about [\d.]+ [MG]iB \(weights [\d.]+ MiB, gradients .*\); the budget is 512 MiB: use at most \d+ tokens per step \(batch × seqLen, now 4096\), train LoRA adapters or use a desktop GPU$/);
    const tokens = Number(/at most (\d+) tokens/.exec(message!)![1]);
    expect(checkFits(estimateMemory(PRESETS.small, { batch: 1, seqLen: tokens, optimizer: 'adamw', weightDtype: 'f32' }), { ...COMPAT, maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 31, budgetBytes: 512 * MiB })).toBeNull();
  });
});
