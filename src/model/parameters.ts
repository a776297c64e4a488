// The parameter and activation tables (llm.c style: every tensor planned here, in one place),
// parameter counts, a training-memory estimate and a check against WebGPU adapter limits.
// Shape letters: see config.ts (B, T, C, V, L, Hq, Hkv, D, F); r is the LoRA rank.

import { type ModelConfig, PRESETS, type PresetName } from './config';

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
   * Storage of the frozen projection weights (q, k, v, o, gate, up, down of every layer) while the
   * adapters are attached: 'f16' packs them two per u32 word (half the memory; the model computes
   * with the f16-rounded values); default 'f32'. Embeddings, LM head and norms stay f32.
   */
  baseDtype?: 'f32' | 'f16';
}

export interface ActivationSpec {
  name: string;
  /** Shape of one buffer; perLayer buffers exist once per layer (L of them). */
  shape: number[];
  perLayer: boolean;
  /** Why the backward pass needs it. */
  why: string;
}

/**
 * What the training forward saves for the backward pass (f32). The activation model:
 * - attention is computed in tiles (flash style): no (B, Hq, T, T) score matrix is kept, only
 *   the row log-sum-exp, and the backward recomputes scores from q, k, v;
 * - each activation kind is one buffer per layer, not one (L, …) buffer as in llm.c, so
 *   WebGPU's per-binding limit applies to one layer's tensor;
 * - logits are overwritten in place by their gradient (as llm.c does), so they count once.
 * The backward's working set (gradients of one layer's activations, reused layer after layer)
 * is in activationScratchElements.
 */
export function activationTable(cfg: ModelConfig, batch: number, seqLen: number, lora?: LoraOptions): ActivationSpec[] {
  const [B, T] = [batch, seqLen];
  const { vocabSize: V, hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D } = cfg;
  const layer = (name: string, shape: number[], why: string): ActivationSpec => ({ name, shape, perLayer: true, why });
  const once = (name: string, shape: number[], why: string): ActivationSpec => ({ name, shape, perLayer: false, why });
  const table: ActivationSpec[] = [
    once('tokens', [B, T], 'embedding backward scatters into these rows'),
    once('targets', [B, T], 'cross-entropy backward'),
    layer('ln1_in', [B, T, C], 'input_layernorm backward (the residual stream entering the layer)'),
    layer('ln1_rstd', [B, T], 'input_layernorm backward'),
    layer('ln1_out', [B, T, C], 'q/k/v projection weight gradients'),
    layer('q_raw', [B, T, Hq * D], 'q_norm backward (q before its RMSNorm)'),
    layer('q_rstd', [B, T, Hq], 'q_norm backward'),
    layer('k_raw', [B, T, Hkv * D], 'k_norm backward (k before its RMSNorm)'),
    layer('k_rstd', [B, T, Hkv], 'k_norm backward'),
    layer('q', [B, T, Hq * D], 'attention backward (after q_norm and RoPE)'),
    layer('k', [B, T, Hkv * D], 'attention backward (after k_norm and RoPE)'),
    layer('v', [B, T, Hkv * D], 'attention backward'),
    layer('attn_out', [B, T, Hq * D], 'attention backward and the o_proj weight gradient'),
    layer('attn_lse', [B, Hq, T], 'attention backward recomputes the softmax from it'),
    layer('ln2_in', [B, T, C], 'post_attention_layernorm backward (residual after attention)'),
    layer('ln2_rstd', [B, T], 'post_attention_layernorm backward'),
    layer('ln2_out', [B, T, C], 'gate/up projection weight gradients'),
    layer('mlp_gate', [B, T, F], 'SwiGLU backward'),
    layer('mlp_up', [B, T, F], 'SwiGLU backward'),
    layer('mlp_act', [B, T, F], 'down_proj weight gradient (silu(gate) · up)'),
  ];
  for (const target of lora?.targets ?? []) {
    table.push(layer(`lora_${target}_xa`, [B, T, lora!.rank], `LoRA B gradient for ${target} (x · A)`));
  }
  table.push(
    once('lnf_in', [B, T, C], 'final norm backward'),
    once('lnf_rstd', [B, T], 'final norm backward'),
    once('lnf_out', [B, T, C], 'LM head weight gradient'),
    once('logits', [B, T, V], 'softmax cross-entropy backward; overwritten by dlogits'),
    once('losses', [B, T], 'per-token loss for masking and logging'),
  );
  return table;
}

/** Backward working set: one layer's activation gradients (reused per layer) plus dresidual (B, T, C). */
function activationScratchElements(table: ActivationSpec[], cfg: ModelConfig, tokens: number): number {
  const oneLayer = table.filter((a) => a.perLayer).reduce((s, a) => s + numel(a.shape), 0);
  return oneLayer + tokens * cfg.hiddenSize;
}

export interface MemoryOptions {
  batch: number;
  seqLen: number;
  optimizer: 'adamw';
  /** Train low-rank adapters only; the base weights stay frozen. */
  lora?: LoraOptions;
  /** Storage of the base weights; gradients, optimizer states and activations are f32. */
  weightDtype: 'f32' | 'f16';
  /** GRPO with a KL term keeps a frozen f32 copy of every parameter (the reference model). */
  referenceCopy?: boolean;
}

export interface MemoryBuffer {
  name: string;
  bytes: number;
  /** True when the size grows with batch × seqLen (activations). */
  perToken: boolean;
}

export interface MemoryEstimate {
  weightsBytes: number;
  gradsBytes: number;
  optimizerBytes: number;
  activationsBytes: number;
  totalBytes: number;
  largestBufferBytes: number;
  /** The biggest single GPU buffer (what a storage binding must hold). */
  largestBuffer: MemoryBuffer;
  /** batch × seqLen: activations grow linearly with it. */
  tokens: number;
  trainableParameters: number;
  /** True when only LoRA adapters train. */
  lora: boolean;
}

/**
 * Training memory. Weights: base in weightDtype (LoRA baseDtype 'f16': the layer projections in
 * f16) + LoRA adapters in f32. Gradients: f32 per
 * trainable parameter. AdamW: m and v in f32, plus an f32 master copy when training f16 weights
 * in full. Activations: activationTable() + backward scratch, f32.
 */
export function estimateMemory(cfg: ModelConfig, options: MemoryOptions): MemoryEstimate {
  const { batch, seqLen, lora } = options;
  if (!(Number.isInteger(batch) && batch > 0 && Number.isInteger(seqLen) && seqLen > 0)) {
    throw new Error(`estimateMemory: batch and seqLen must be positive integers, got batch ${batch}, seqLen ${seqLen}`);
  }
  const weightBytes = options.weightDtype === 'f16' ? 2 : 4;
  const tokens = batch * seqLen;
  const params = parameterTable(cfg);
  const base = countParameters(cfg);
  const loraParams = lora ? countLoraParameters(cfg, lora) : 0;
  const trainable = lora ? loraParams : base;
  const masterCopy = !lora && options.weightDtype === 'f16' ? 4 * trainable : 0;

  const acts = activationTable(cfg, batch, seqLen, lora);
  const savedElements = acts.reduce((s, a) => s + numel(a.shape) * (a.perLayer ? cfg.numLayers : 1), 0);
  const activationsBytes = 4 * (savedElements + activationScratchElements(acts, cfg, tokens));

  // LoRA with baseDtype 'f16' stores the layer projections (kind 'matrix') packed, 2 bytes each.
  const bytesOf = (p: ParameterSpec) => (p.kind === 'matrix' && lora?.baseDtype === 'f16' ? 2 : weightBytes);
  const buffers: MemoryBuffer[] = [
    ...params.map((p) => ({ name: p.name, bytes: numel(p.shape) * bytesOf(p), perToken: false })),
    ...acts.map((a) => ({ name: a.name, bytes: 4 * numel(a.shape), perToken: true })),
  ];
  // f32 gradients and AdamW moments of the biggest trainable tensor can outgrow f16 weights.
  if (!lora) buffers.push(...params.map((p) => ({ name: `gradient of ${p.name}`, bytes: 4 * numel(p.shape), perToken: false })));
  const largestBuffer = buffers.reduce((a, b) => (b.bytes > a.bytes ? b : a));

  const weightsBytes = params.reduce((sum, p) => sum + numel(p.shape) * bytesOf(p), 0) + 4 * loraParams + (options.referenceCopy ? 4 * base : 0);
  const gradsBytes = 4 * trainable;
  const optimizerBytes = 2 * 4 * trainable + masterCopy;
  return {
    weightsBytes, gradsBytes, optimizerBytes, activationsBytes,
    totalBytes: weightsBytes + gradsBytes + optimizerBytes + activationsBytes,
    largestBufferBytes: largestBuffer.bytes, largestBuffer, tokens, trainableParameters: trainable, lora: lora !== undefined,
  };
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

export interface DeviceLimits {
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
  /** Memory the run may use in total (optional: WebGPU does not report free memory). */
  budgetBytes?: number;
}

export interface FitContext {
  /** How to name the model in messages, e.g. "preset small". */
  label?: string;
  /** Smaller choices that would fit, offered in the advice. */
  alternatives?: readonly string[];
}

/** "a, b or c". */
function orList(items: string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** null when the estimate fits the limits, otherwise one message naming each problem and what to do. */
export function checkFits(estimate: MemoryEstimate, limits: DeviceLimits, context: FitContext = {}): string | null {
  const label = context.label ?? 'this model';
  const choose = context.alternatives?.length ? [`choose ${context.alternatives.join(' or ')}`] : [];
  const tokensAdvice = (maxTokens: number) => (maxTokens > 0
    ? [`use at most ${maxTokens} tokens per step (batch × seqLen, now ${estimate.tokens})`] : []);
  const problems: string[] = [];
  const big = estimate.largestBuffer;
  const bufferProblem = (kind: string, limit: number) => {
    const fewer = big.perToken ? tokensAdvice(Math.floor(limit / (big.bytes / estimate.tokens))) : [];
    problems.push(`${label} needs a ${formatBytes(big.bytes)} ${kind} for ${big.name}; this adapter allows ${formatBytes(limit)}: `
      + orList([...fewer, ...choose, 'use a desktop GPU']));
  };
  if (big.bytes > limits.maxStorageBufferBindingSize) bufferProblem('storage binding', limits.maxStorageBufferBindingSize);
  else if (big.bytes > limits.maxBufferSize) bufferProblem('buffer', limits.maxBufferSize);
  if (limits.budgetBytes !== undefined && estimate.totalBytes > limits.budgetBytes) {
    const fixed = estimate.totalBytes - estimate.activationsBytes;
    const fewer = tokensAdvice(Math.floor((limits.budgetBytes - fixed) / (estimate.activationsBytes / estimate.tokens)));
    const lora = estimate.lora ? [] : ['train LoRA adapters'];
    problems.push(`${label} needs about ${formatBytes(estimate.totalBytes)} (weights ${formatBytes(estimate.weightsBytes)}, `
      + `gradients ${formatBytes(estimate.gradsBytes)}, optimizer ${formatBytes(estimate.optimizerBytes)}, activations ${formatBytes(estimate.activationsBytes)}); `
      + `the budget is ${formatBytes(limits.budgetBytes)}: ${orList([...fewer, ...lora, ...choose, 'use a desktop GPU'])}`);
  }
  return problems.length ? problems.join('; ') : null;
}

/** checkFits for a preset, offering the largest smaller preset that fits with the same options. */
export function checkPresetFits(preset: PresetName, options: MemoryOptions, limits: DeviceLimits): string | null {
  const names = Object.keys(PRESETS) as PresetName[]; // ordered small to large
  const fitting = names.slice(0, names.indexOf(preset))
    .filter((name) => checkFits(estimateMemory(PRESETS[name], options), limits) === null);
  const alternatives = fitting.length ? [fitting[fitting.length - 1]] : [];
  return checkFits(estimateMemory(PRESETS[preset], options), limits, { label: `preset ${preset}`, alternatives });
}
