import { describe, expect, it } from 'vitest';
import { PRESETS, type PresetName } from './config';
import { hfConfigJson, modelConfigFromHf, modelConfigToHf, readHfConfig } from './hfConfig';

/** Qwen3-0.6B's config.json as published (transformers 4.51). */
const QWEN3_0_6B = `{
  "architectures": ["Qwen3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 1024,
  "initializer_range": 0.02,
  "intermediate_size": 3072,
  "max_position_embeddings": 40960,
  "max_window_layers": 28,
  "model_type": "qwen3",
  "num_attention_heads": 16,
  "num_hidden_layers": 28,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}`;

const withChange = (change: Record<string, unknown>) => ({ ...JSON.parse(QWEN3_0_6B), ...change });

describe('reading config.json', () => {
  it('maps the real Qwen3-0.6B config to the qwen3-0.6b preset without warnings', () => {
    expect(readHfConfig(QWEN3_0_6B)).toEqual({ cfg: PRESETS['qwen3-0.6b'], warnings: [] });
  });

  it('reads rope_theta from transformers 5 rope_parameters', () => {
    const { rope_theta: _unused, ...rest } = JSON.parse(QWEN3_0_6B);
    const cfg = modelConfigFromHf({ ...rest, rope_parameters: { rope_type: 'default', rope_theta: 500000 } });
    expect(cfg.ropeTheta).toBe(500000);
  });

  it('picks the tokenizer from tabforge_tokenizer, else from the vocabulary size', () => {
    const small = withChange({ vocab_size: 272, hidden_size: 64, intermediate_size: 128, num_hidden_layers: 1, head_dim: 16 });
    expect(modelConfigFromHf(small).tokenizer).toBe('byte');
    expect(modelConfigFromHf({ ...small, tabforge_tokenizer: 'qwen3' }).tokenizer).toBe('qwen3');
  });

  it('fills HF defaults for optional fields', () => {
    const { rms_norm_eps: _a, rope_theta: _b, max_position_embeddings: _c, tie_word_embeddings: _d, ...rest } = JSON.parse(QWEN3_0_6B);
    const cfg = modelConfigFromHf(rest);
    expect([cfg.rmsNormEps, cfg.ropeTheta, cfg.maxPositionEmbeddings, cfg.tieWordEmbeddings]).toEqual([1e-6, 10000, 32768, false]);
  });

  it('warns about ignored settings', () => {
    const { warnings } = readHfConfig(withChange({ attention_dropout: 0.1, architectures: ['Qwen3Model'] }));
    expect(warnings).toEqual([
      'architectures ["Qwen3Model"] does not list Qwen3ForCausalLM; loading it as one',
      'attention_dropout 0.1 is ignored: TabForge trains without dropout',
    ]);
  });

  const rejected: [string, unknown, RegExp][] = [
    ['broken JSON', '{"model_type": ', /config.json is not valid JSON/],
    ['another architecture', withChange({ model_type: 'qwen2' }), /model_type "qwen2" is not supported: TabForge trains the Qwen3 architecture/],
    ['a missing field', withChange({ head_dim: undefined }), /head_dim is missing/],
    ['a wrong type', withChange({ hidden_size: '1024' }), /hidden_size must be a number, got "1024"/],
    ['a fractional size', withChange({ num_hidden_layers: 2.5 }), /num_hidden_layers must be a whole number, got 2.5/],
    ['attention bias', withChange({ attention_bias: true }), /attention_bias is true: TabForge implements Qwen3 attention without/],
    ['another activation', withChange({ hidden_act: 'gelu' }), /hidden_act "gelu" is not supported/],
    ['RoPE scaling', withChange({ rope_scaling: { rope_type: 'yarn', factor: 4 } }), /rope_scaling .*yarn.* is not supported \(plain RoPE only\)/],
    ['a sliding window', withChange({ use_sliding_window: true }), /use_sliding_window is true/],
    ['kv heads that do not divide the heads', withChange({ num_key_value_heads: 3 }), /numKvHeads \(3\) must divide numHeads \(16\)/],
    ['an unknown tokenizer', withChange({ tabforge_tokenizer: 'gpt2' }), /tabforge_tokenizer Invalid option: expected one of "byte"\|"qwen3"\|"qwen3-trimmed", got "gpt2"/],
  ];
  it.each(rejected)('rejects %s, naming the field', (_what, input, message) => {
    expect(() => readHfConfig(input)).toThrow(message);
  });

  it('lists every bad field at once', () => {
    expect(() => readHfConfig(withChange({ vocab_size: 0, intermediate_size: undefined })))
      .toThrow(/vocab_size must be > 0, got 0; intermediate_size is missing/);
  });
});

describe('writing config.json', () => {
  it.each(Object.keys(PRESETS) as PresetName[])('round-trips preset %s', (name) => {
    const text = hfConfigJson(PRESETS[name]);
    expect(readHfConfig(text)).toEqual({ cfg: PRESETS[name], warnings: [] });
  });

  it('writes the fields transformers needs to load a Qwen3ForCausalLM', () => {
    const hf = modelConfigToHf(PRESETS.nano, 'bfloat16');
    expect(hf).toMatchObject({
      architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', hidden_act: 'silu', attention_bias: false,
      rope_scaling: null, torch_dtype: 'bfloat16', vocab_size: 272, head_dim: 24, num_key_value_heads: 2,
      tie_word_embeddings: true, tabforge_tokenizer: 'byte',
    });
  });
});
