// The parameter table (llm.c style: every tensor planned here, in one place) and parameter counts.
// Memory (every buffer of a run, checked against the adapter's limits) is in ./memoryPlan.
// Shape letters: see config.ts (B, T, C, V, L, Hq, Hkv, D, F); r is the LoRA rank.

import type { ModelConfig } from './config';

export type ParameterKind = 'embedding' | 'matrix' | 'norm';

export interface ParameterSpec {
  /** Hugging Face tensor name, as in a Qwen3 model.safetensors. */
  name: string;
  /** HF layout: linear weights are (out, in). */
  shape: number[];
  kind: ParameterKind;
}

/** The linear layers LoRA can adapt (HF module names). */
export const LORA_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type LoraTarget = (typeof LORA_TARGETS)[number];

/** Every parameter in HF order; lm_head.weight only when the embeddings are not tied. */
export function parameterTable(cfg: ModelConfig): ParameterSpec[] {
  const { vocabSize: V, hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D } = cfg;
  const table: ParameterSpec[] = [{ name: 'model.embed_tokens.weight', shape: [V, C], kind: 'embedding' }];
  for (let l = 0; l < cfg.numLayers; l++) {
    const p = `model.layers.${l}`;
    table.push(
      { name: `${p}.input_layernorm.weight`, shape: [C], kind: 'norm' },
      { name: `${p}.self_attn.q_proj.weight`, shape: [Hq * D, C], kind: 'matrix' },
      { name: `${p}.self_attn.k_proj.weight`, shape: [Hkv * D, C], kind: 'matrix' },
      { name: `${p}.self_attn.v_proj.weight`, shape: [Hkv * D, C], kind: 'matrix' },
      { name: `${p}.self_attn.o_proj.weight`, shape: [C, Hq * D], kind: 'matrix' },
      { name: `${p}.self_attn.q_norm.weight`, shape: [D], kind: 'norm' },
      { name: `${p}.self_attn.k_norm.weight`, shape: [D], kind: 'norm' },
      { name: `${p}.post_attention_layernorm.weight`, shape: [C], kind: 'norm' },
      { name: `${p}.mlp.gate_proj.weight`, shape: [F, C], kind: 'matrix' },
      { name: `${p}.mlp.up_proj.weight`, shape: [F, C], kind: 'matrix' },
      { name: `${p}.mlp.down_proj.weight`, shape: [C, F], kind: 'matrix' },
    );
  }
  table.push({ name: 'model.norm.weight', shape: [C], kind: 'norm' });
  if (!cfg.tieWordEmbeddings) table.push({ name: 'lm_head.weight', shape: [V, C], kind: 'embedding' });
  return table;
}

const numel = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** Total parameter count (tied embeddings counted once). */
export function countParameters(cfg: ModelConfig): number {
  return parameterTable(cfg).reduce((sum, p) => sum + numel(p.shape), 0);
}

/** LoRA parameters: each adapted (out, in) matrix gains A (r, in) and B (out, r). */
export function countLoraParameters(cfg: ModelConfig, lora: LoraOptions): number {
  const targets = new Set<string>(lora.targets);
  return parameterTable(cfg)
    .filter((p) => p.kind === 'matrix' && targets.has(p.name.split('.').at(-2)!))
    .reduce((sum, p) => sum + lora.rank * (p.shape[0] + p.shape[1]), 0);
}

export interface LoraOptions {
  rank: number;
  targets: readonly LoraTarget[];
  /**
   * Storage of the frozen 2-D base weights (every layer projection, the embedding and the LM head)
   * while the adapters are attached: 'f16' packs them two per u32 word (half the memory; the model
   * computes with the f16-rounded values); default 'f32'. Norm weights stay f32.
   */
  baseDtype?: 'f32' | 'f16';
}

/** Bytes in binary units: 512 B, 1.5 KiB, 256 MiB, 2.2 GiB. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = unit === 0 ? String(Math.round(value)) : value.toFixed(1).replace(/\.0$/, '');
  return `${text} ${units[unit]}`;
}
