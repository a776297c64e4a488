import { describe, expect, it } from 'vitest';
import { Rng, randomNormal } from '../util/rng';
import { type ModelParams, modelFromSafetensors, modelFromSafetensorsBlob, modelToSafetensors } from './checkpointIO';
import type { ModelConfig } from './config';
import { float32ToBF16Bits, float32ToF16Bits } from './halfFloat';
import { hfConfigJson } from './hfConfig';
import { parameterTable } from './parameters';
import { writeSafetensors } from './safetensors';

/** 2 layers, V 20, C 8, F 12, Hq 2, Hkv 1, D 4: every tensor shape is distinct enough to catch swaps. */
const CFG: ModelConfig = {
  vocabSize: 20, hiddenSize: 8, intermediateSize: 12, numLayers: 2, numHeads: 2, numKvHeads: 1, headDim: 4,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 32, tieWordEmbeddings: true, tokenizer: 'byte',
};
const UNTIED: ModelConfig = { ...CFG, tieWordEmbeddings: false };

/** Random weights in HF layout; `grid` rounds to multiples of 1/64 in [-2, 2], exact in F16 and BF16. */
function randomModel(cfg: ModelConfig, seed: number, grid = false): ModelParams {
  const rng = new Rng(seed);
  return new Map(parameterTable(cfg).map((p) => {
    const data = randomNormal(rng, p.shape.reduce((a, b) => a * b, 1), 0.5);
    if (grid) data.forEach((x, i) => { data[i] = Math.max(-2, Math.min(2, Math.round(x * 64) / 64)); });
    return [p.name, data];
  }));
}

/**
 * Test helper, independent of writeSafetensors: a safetensors file whose tensors are stored as
 * F16 or BF16 bit patterns (u64 LE header length, JSON, little-endian u16 data).
 */
function halfPrecisionFile(params: ModelParams, cfg: ModelConfig, dtype: 'F16' | 'BF16'): Uint8Array {
  const encode = dtype === 'F16' ? float32ToF16Bits : float32ToBF16Bits;
  const header: Record<string, unknown> = {};
  const words: number[] = [];
  for (const p of parameterTable(cfg)) {
    const data = params.get(p.name)!;
    header[p.name] = { dtype, shape: p.shape, data_offsets: [2 * words.length, 2 * (words.length + data.length)] };
    for (const x of data) words.push(encode(x));
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + 2 * words.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, json.length, true);
  out.set(json, 8);
  words.forEach((w, i) => view.setUint16(8 + json.length + 2 * i, w, true));
  return out;
}

describe('round trip', () => {
  it.each([['tied', CFG], ['untied', UNTIED]] as const)('saves and loads a %s model exactly', (_what, cfg) => {
    const params = randomModel(cfg, 1);
    const { configJson, safetensors } = modelToSafetensors(cfg, params);
    const loaded = modelFromSafetensors(configJson, safetensors);
    expect(loaded.cfg).toEqual(cfg);
    expect(loaded.warnings).toEqual([]);
    expect([...loaded.params.keys()]).toEqual(parameterTable(cfg).map((p) => p.name));
    for (const [name, data] of params) expect(loaded.params.get(name), name).toEqual(data);
  });

  it('writes torch_dtype and rounds when saving in BF16', () => {
    const params = randomModel(CFG, 2);
    const { configJson, safetensors } = modelToSafetensors(CFG, params, 'BF16');
    expect(JSON.parse(configJson).torch_dtype).toBe('bfloat16');
    const loaded = modelFromSafetensors(configJson, safetensors);
    const a = params.get('model.embed_tokens.weight')!;
    const b = loaded.params.get('model.embed_tokens.weight')!;
    for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThanOrEqual(Math.abs(a[i]) * 2 ** -8);
  });

  it('loads from a Blob reading only what is needed, with progress', async () => {
    const params = randomModel(CFG, 3);
    const { configJson, safetensors } = modelToSafetensors(CFG, params);
    const progress: number[] = [];
    const loaded = await modelFromSafetensorsBlob(configJson, new Blob([safetensors]), (loadedBytes) => progress.push(loadedBytes));
    for (const [name, data] of params) expect(loaded.params.get(name)).toEqual(data);
    expect(progress.at(-1)).toBe(safetensors.length);
  });
});

describe('half-precision checkpoints', () => {
  it.each(['F16', 'BF16'] as const)('loads %s weights exactly when they are representable', (dtype) => {
    const params = randomModel(UNTIED, 4, true);
    const loaded = modelFromSafetensors(hfConfigJson(UNTIED, 'bfloat16'), halfPrecisionFile(params, UNTIED, dtype));
    for (const [name, data] of params) expect(loaded.params.get(name), name).toEqual(data);
  });

  it.each([['F16', 2 ** -11], ['BF16', 2 ** -8]] as const)('loads %s weights to within half an ulp', (dtype, relative) => {
    const params = randomModel(CFG, 5);
    const loaded = modelFromSafetensors(hfConfigJson(CFG), halfPrecisionFile(params, CFG, dtype));
    let worst = 0;
    for (const [name, data] of params) {
      const got = loaded.params.get(name)!;
      data.forEach((x, i) => { if (Math.abs(x) > 1e-3) worst = Math.max(worst, Math.abs(got[i] - x) / Math.abs(x)); });
    }
    expect(worst).toBeGreaterThan(0); // really rounded
    expect(worst).toBeLessThanOrEqual(relative);
  });
});

describe('mismatches', () => {
  const saved = (cfg: ModelConfig, change: (p: Map<string, { shape: number[]; data: Float32Array | Int32Array }>) => void) => {
    const tensors = new Map(parameterTable(cfg).map((p) => [p.name, { shape: p.shape, data: randomModel(cfg, 6).get(p.name)! as Float32Array | Int32Array }]));
    change(tensors);
    return writeSafetensors(tensors);
  };

  it('names the tensor, the expected and the found shape (and spots a transpose)', () => {
    const bytes = saved(CFG, (t) => {
      t.set('model.layers.1.mlp.down_proj.weight', { shape: [12, 8], data: new Float32Array(96) });
      t.set('model.layers.0.self_attn.q_norm.weight', { shape: [5], data: new Float32Array(5) });
    });
    expect(() => modelFromSafetensors(hfConfigJson(CFG), bytes)).toThrow(
      "checkpoint does not match config.json (2 problems): tensor 'model.layers.0.self_attn.q_norm.weight': expected shape [4], found [5]; "
      + "tensor 'model.layers.1.mlp.down_proj.weight': expected shape [8, 12], found [12, 8] (transposed? HF stores linear weights as (out, in))");
  });

  it('names missing tensors and the dtype it cannot use', () => {
    const bytes = saved(UNTIED, (t) => {
      t.delete('model.norm.weight');
      t.delete('lm_head.weight');
      t.set('model.layers.0.input_layernorm.weight', { shape: [8], data: new Int32Array(8) });
    });
    expect(() => modelFromSafetensors(hfConfigJson(UNTIED), bytes)).toThrow(new RegExp(
      "tensor 'model.layers.0.input_layernorm.weight': expected a float dtype \\(F32, F16 or BF16\\), found I32; "
      + "tensor 'model.norm.weight' \\[8\\] is missing; tensor 'lm_head.weight' \\[20, 8\\] is missing \\(config.json sets tie_word_embeddings false"));
  });

  it('recognises a checkpoint without the model. prefix', () => {
    const bytes = saved(CFG, (t) => {
      t.set('embed_tokens.weight', t.get('model.embed_tokens.weight')!);
      t.delete('model.embed_tokens.weight');
    });
    expect(() => modelFromSafetensors(hfConfigJson(CFG), bytes)).toThrow(/found 'embed_tokens.weight': the file looks like a bare Qwen3Model/);
  });

  it('ignores a tied lm_head and extra tensors with warnings', () => {
    const bytes = saved(CFG, (t) => {
      t.set('lm_head.weight', { shape: [20, 8], data: new Float32Array(160) });
      t.set('model.layers.0.self_attn.rotary_emb.inv_freq', { shape: [2], data: new Float32Array(2) });
    });
    const loaded = modelFromSafetensors(hfConfigJson(CFG), bytes);
    expect(loaded.params.has('lm_head.weight')).toBe(false);
    expect(loaded.params.size).toBe(parameterTable(CFG).length);
    expect(loaded.warnings).toEqual([
      'lm_head.weight ignored: config.json ties embeddings, so the LM head reuses model.embed_tokens.weight',
      "1 tensor not used by a Qwen3 model ignored: 'model.layers.0.self_attn.rotary_emb.inv_freq'",
    ]);
  });

  it('refuses to save parameters that do not match the config', () => {
    const params = randomModel(CFG, 7);
    params.delete('model.norm.weight');
    params.set('model.layers.0.mlp.up_proj.weight', new Float32Array(3));
    params.set('lm_head.weight', new Float32Array(160));
    expect(() => modelToSafetensors(CFG, params)).toThrow(
      "cannot save the model (3 problems): parameter 'model.layers.0.mlp.up_proj.weight': expected 96 values for shape [12, 8], found 3; "
      + "parameter 'model.norm.weight' [8] is missing; parameter 'lm_head.weight' is given but the config ties embeddings: drop it or set tieWordEmbeddings false");
  });

  it('passes config.json errors through', () => {
    const bytes = modelToSafetensors(CFG, randomModel(CFG, 8)).safetensors;
    expect(() => modelFromSafetensors({ ...JSON.parse(hfConfigJson(CFG)), attention_bias: true }, bytes)).toThrow(/attention_bias is true/);
  });
});
