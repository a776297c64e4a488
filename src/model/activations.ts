// The activations a training forward saves for the backward, planned once per (B, T) and reused
// every step (llm.c style), plus the backward's scratch buffers.
// Two memory savers for long contexts, both chosen here ('auto' by size, see planActivationLayout):
// - recompute (activation checkpointing): only each layer's input x is kept per layer; every other
//   activation is one shared set that the backward refills by re-running that layer's forward
//   (one more forward of the trunk, ~+33 % compute, for 1/L of the activation memory);
// - chunked LM head: the (N, V) logits are never held at once; the head runs over n-row chunks
//   (forward: logp, lse, entropy per chunk; backward: the chunk's logits recomputed, then dlogits in
//   place), so a Qwen3 vocabulary costs an (n, V) buffer instead of (N, V).
// Legend: B batch, T time, N = B·T, C hidden, V vocab, Hq/Hkv heads, D head dim, F MLP width.
import type { GpuRuntime } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import type { ModelConfig } from './config';
import type { LoraOptions, LoraTarget } from './parameters';

/** Logits kept at once by default: the whole (N, V) when it fits, else chunks of this many bytes. */
export const DEFAULT_LOGITS_BUDGET_BYTES = 256 * 1024 * 1024;
/** Saved per-layer activations above this total switch 'auto' to recompute. */
export const RECOMPUTE_ABOVE_BYTES = 1024 * 1024 * 1024;
/** Vocabularies at least this large run the LM head on scored rows only ('auto'): there it costs ~V·C per row. */
export const SCORED_ROWS_FROM_VOCAB = 16384;

export interface ActivationOptions {
  /** Activation checkpointing: true, false, or 'auto' (when the saved activations would exceed RECOMPUTE_ABOVE_BYTES). Default 'auto'. */
  recompute?: boolean | 'auto';
  /** Most bytes of logits held at once (default DEFAULT_LOGITS_BUDGET_BYTES, capped by the binding limit). */
  logitsBudgetBytes?: number;
  /** The device's largest storage binding (default: from the runtime). */
  maxBindingBytes?: number;
  /**
   * Run the LM head only on the rows a batch scores (its `mask`: assistant / policy tokens), not on
   * prompt and tool tokens: their log-probs are never used. true, false, or 'auto' (vocabularies of
   * SCORED_ROWS_FROM_VOCAB or more). Unscored positions then read NaN in logp / lse / entropy.
   */
  scoredRowsOnly?: boolean | 'auto';
}

/** What planActivations will do for this shape: recompute or not, and logits rows held at once. */
export interface ActivationLayout {
  recompute: boolean;
  /** n: rows of logits held at once (N when the head is not chunked). */
  logitsRows: number;
  /** The LM head runs on a batch's scored rows only (gathered n at a time). */
  scoredRowsOnly: boolean;
}

/** f32 elements one layer saves per token (everything but x, which is kept per layer in either mode). */
export function layerElementsPerToken(cfg: ModelConfig, loraRankTargets = 0): number {
  const { hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D } = cfg;
  // xn1, rstd1, q, k, v, qn, qRstd, kn, kRstd, qr, kr, att, lse, h, xn2, rstd2, gate, up, act, LoRA xa
  return C + 1 + 3 * Hq * D + Hq + 4 * Hkv * D + Hkv + Hq * D + Hq + C + C + 1 + 3 * F + loraRankTargets;
}

export function planActivationLayout(cfg: ModelConfig, N: number, opts: ActivationOptions & { maxBindingBytes: number }, lora?: LoraOptions): ActivationLayout {
  const loraExtra = lora ? lora.rank * lora.targets.length : 0;
  const saved = 4 * N * cfg.numLayers * layerElementsPerToken(cfg, loraExtra);
  const recompute = opts.recompute === 'auto' || opts.recompute === undefined ? saved > RECOMPUTE_ABOVE_BYTES : opts.recompute;
  const rowBytes = 4 * cfg.vocabSize;
  const budget = Math.min(opts.logitsBudgetBytes ?? DEFAULT_LOGITS_BUDGET_BYTES, opts.maxBindingBytes);
  const logitsRows = Math.max(1, Math.min(N, Math.floor(budget / rowBytes)));
  const scoredRowsOnly = opts.scoredRowsOnly === 'auto' || opts.scoredRowsOnly === undefined ? cfg.vocabSize >= SCORED_ROWS_FROM_VOCAB : opts.scoredRowsOnly;
  return { recompute, logitsRows, scoredRowsOnly };
}

export interface LayerActivations {
  x: Tensor; // (N, C) layer input (residual stream)
  xn1: Tensor; // (N, C) input_layernorm(x)
  rstd1: Tensor; // (N)
  q: Tensor; // (N, Hq·D) q_proj output, before q_norm
  k: Tensor; // (N, Hkv·D)
  v: Tensor; // (B, T, Hkv, D) v_proj output (used by attention as is)
  qn: Tensor; // (N, Hq·D) q_norm(q)
  qRstd: Tensor; // (N·Hq)
  kn: Tensor; // (N, Hkv·D)
  kRstd: Tensor; // (N·Hkv)
  qr: Tensor; // (B, T, Hq, D) rope(qn)
  kr: Tensor; // (B, T, Hkv, D) rope(kn)
  att: Tensor; // (B, T, Hq, D) attention output
  lse: Tensor; // (B, Hq, T)
  h: Tensor; // (N, C) x + o_proj(att)
  xn2: Tensor; // (N, C) post_attention_layernorm(h)
  rstd2: Tensor; // (N)
  gate: Tensor; // (N, F)
  up: Tensor; // (N, F)
  act: Tensor; // (N, F) silu(gate)·up
}

export interface Activations {
  B: number;
  T: number;
  ids: Tensor; // (B, T) i32 input tokens
  positions: Tensor; // (B, T) i32 RoPE positions
  segments: Tensor; // (B, T) i32 attention segments (packing; negative = padding)
  layers: LayerActivations[];
  xFinal: Tensor; // (N, C) last layer output
  xnFinal: Tensor; // (N, C) model.norm(xFinal)
  rstdFinal: Tensor; // (N)
  /** (n, V) with n = logitsRows: all N rows (overwritten in place by dlogits in the backward) or one chunk. */
  logits: Tensor;
  /** n: logits rows held at once; < N means the head runs in chunks (./lmHead) and recomputes them in the backward. */
  logitsRows: number;
  targets: Tensor; // (N) i32 next tokens
  logp: Tensor; // (N) log-prob of each target
  lseLogits: Tensor; // (N) log-sum-exp of each logits row (of logits / temperature)
  /** Softmax temperature of logp / lse / entropy and their backward (GRPO scores at its rollouts' T); absent = 1. */
  temperature?: number;
  dlogp: Tensor; // (N) dLoss/dlogp per token (host-computed weights), or (N, 3) rows with an entropy bonus
  /** Activation checkpointing: layers[l].x is per layer, every other layer tensor is shared and recomputed. */
  recompute: boolean;
  /** Chunked or scored-rows head: one chunk's rows of the per-token tensors (./lmHead). */
  chunk?: HeadChunk;
  /** The head runs on the scored rows of each batch only (see ActivationOptions.scoredRowsOnly). */
  scoredRowsOnly: boolean;
  /** Scored-rows plans: this batch's scored rows, set by writeBatch. */
  scored?: ScoredRows;
  /** A split LM head's per-part logits (n, rows of the largest part), allocated on first use. */
  headPart?: Tensor;
  /** LoRA only: s·x·Aᵀ (N, r) per adapted projection, keyed `${layer}.${target}` (`${target}` when recomputing). */
  loraXa?: Map<string, Tensor>;
}

/** The rows of a batch whose log-probs are used (mask ≠ 0), in order. */
export interface ScoredRows {
  /** M: how many. */
  count: number;
  idx: Tensor; // (N) i32: the M row indices, then unused
  targets: Tensor; // (N) i32: their targets, compacted
  /** (N) host values: 0 at scored rows, NaN elsewhere (what logp / lse / entropy start from). */
  fill: Float32Array;
}

/** Per-chunk copies of the per-token tensors (n rows), for the chunked LM head. */
export interface HeadChunk {
  idx: Tensor; // (n) i32 row indices of this chunk (scored-rows plans)
  x: Tensor; // (n, C) rows of xnFinal
  targets: Tensor; // (n) i32
  logp: Tensor; // (n)
  lse: Tensor; // (n)
  dlogp: Tensor; // (n) or (n, 3)
  entropy: Tensor; // (n)
  dx: Tensor; // (n, C) gradient of xnFinal rows
}

/** Gradients of activations, reused across layers (the backward walks one layer at a time). */
export interface BackwardScratch {
  dx: Tensor; // (N, C) gradient of the residual stream
  dxn: Tensor; // (N, C) gradient of a norm output
  dtmpC: Tensor; // (N, C) a second (N, C) term before accumulation
  dtmpC2: Tensor; // (N, C) rmsnorm dx before it joins the residual gradient
  dq: Tensor; // (N, Hq·D)
  dk: Tensor; // (N, Hkv·D)
  dv: Tensor; // (B, T, Hkv, D)
  dqn: Tensor; // (N, Hq·D)
  dkn: Tensor; // (N, Hkv·D)
  dqr: Tensor; // (B, T, Hq, D)
  dkr: Tensor; // (B, T, Hkv, D)
  datt: Tensor; // (B, T, Hq, D)
  dact: Tensor; // (N, F)
  dgate: Tensor; // (N, F)
  dup: Tensor; // (N, F)
  attnStats: Tensor; // (B, Hq, T, 2) attention backward scratch
  /** One weight-gradient scratch per distinct weight shape, keyed "out×in" (empty when planned for LoRA). */
  dW: Map<string, Tensor>;
  /** LoRA only: the adapters' backward scratch and sinks for the frozen norms' weight gradients. */
  lora?: LoraScratch;
}

export interface LoraScratch {
  g: Tensor; // (N, r) s·dy·B of one adapter at a time
  normDwC: Tensor; // (C) discarded dw of input/post_attention/final norms (frozen)
  normDwD: Tensor; // (D) discarded dw of q_norm/k_norm (frozen)
}

/**
 * With `lora`, also the (N, r) xa of every adapted projection (otherwise the first LoRA forward adds
 * them). `opts` chooses recompute and the logits chunk (default 'auto' from sizes and device limits).
 */
export function planActivations(rt: GpuRuntime, cfg: ModelConfig, B: number, T: number, lora?: LoraOptions, opts: ActivationOptions = {}): Activations {
  const { hiddenSize: C, vocabSize: V, numHeads: Hq, numKvHeads: Hkv, headDim: D, intermediateSize: F } = cfg;
  const N = B * T;
  const layout = planActivationLayout(cfg, N, { ...opts, maxBindingBytes: opts.maxBindingBytes ?? rt.ctx.limits.maxStorageBufferBindingSize }, lora);
  const e = (shape: number[], label: string, dtype: 'f32' | 'i32' = 'f32') => rt.empty(shape, dtype, label);
  const layerSet = (L: (s: string) => string, x: Tensor): LayerActivations => ({
    x, xn1: e([N, C], L('xn1')), rstd1: e([N], L('rstd1')),
    q: e([N, Hq * D], L('q')), k: e([N, Hkv * D], L('k')), v: e([B, T, Hkv, D], L('v')),
    qn: e([N, Hq * D], L('qn')), qRstd: e([N * Hq], L('qRstd')), kn: e([N, Hkv * D], L('kn')), kRstd: e([N * Hkv], L('kRstd')),
    qr: e([B, T, Hq, D], L('qr')), kr: e([B, T, Hkv, D], L('kr')), att: e([B, T, Hq, D], L('att')), lse: e([B, Hq, T], L('lse')),
    h: e([N, C], L('h')), xn2: e([N, C], L('xn2')), rstd2: e([N], L('rstd2')),
    gate: e([N, F], L('gate')), up: e([N, F], L('up')), act: e([N, F], L('act')),
  });
  const layers: LayerActivations[] = [];
  // recompute: one shared set (re-filled layer by layer), only x kept per layer
  const shared = layout.recompute && cfg.numLayers > 0 ? layerSet((s) => `shared.${s}`, e([N, C], 'L0.x')) : null;
  for (let l = 0; l < cfg.numLayers; l++) {
    const L = (s: string) => `L${l}.${s}`;
    layers.push(shared ? { ...shared, x: l === 0 ? shared.x : e([N, C], L('x')) } : layerSet(L, e([N, C], L('x'))));
  }
  const n = layout.logitsRows;
  const acts: Activations = {
    B, T, layers, recompute: layout.recompute, logitsRows: n, scoredRowsOnly: layout.scoredRowsOnly,
    ids: e([B, T], 'ids', 'i32'), positions: e([B, T], 'positions', 'i32'), segments: e([B, T], 'segments', 'i32'),
    xFinal: e([N, C], 'xFinal'), xnFinal: e([N, C], 'xnFinal'), rstdFinal: e([N], 'rstdFinal'),
    logits: e([n, V], n < N ? 'logits chunk' : 'logits'), targets: e([N], 'targets', 'i32'), logp: e([N], 'logp'), lseLogits: e([N], 'lseLogits'), dlogp: e([N], 'dlogp'),
  };
  if (n < N || layout.scoredRowsOnly) {
    acts.chunk = {
      idx: e([n], 'chunk.idx', 'i32'), x: e([n, C], 'chunk.x'), targets: e([n], 'chunk.targets', 'i32'), logp: e([n], 'chunk.logp'), lse: e([n], 'chunk.lse'),
      dlogp: e([n], 'chunk.dlogp'), entropy: e([n], 'chunk.entropy'), dx: e([n, C], 'chunk.dx'),
    };
  }
  if (layout.scoredRowsOnly) acts.scored = { count: 0, idx: e([N], 'scored.idx', 'i32'), targets: e([N], 'scored.targets', 'i32'), fill: new Float32Array(N) };
  if (lora) for (let l = 0; l < cfg.numLayers; l++) for (const t of lora.targets) loraXa(rt, acts, lora.rank, l, t);
  return acts;
}

/** The saved s·x·Aᵀ (N, r) of `target` in layer l (one per target when recomputing), allocated on first use (or when the rank changed). */
export function loraXa(rt: GpuRuntime, acts: Activations, rank: number, l: number, target: LoraTarget): Tensor {
  const N = acts.B * acts.T;
  const key = acts.recompute ? target : `${l}.${target}`;
  acts.loraXa ??= new Map();
  let t = acts.loraXa.get(key);
  if (t && t.size !== N * rank) {
    rt.release(t);
    t = undefined;
  }
  if (!t) acts.loraXa.set(key, (t = rt.empty([N, rank], 'f32', `L${key}.lora_xa`)));
  return t;
}

/**
 * With `lora` (base weights frozen) no weight-gradient scratch is planned — for a Qwen3-size
 * vocabulary the (V, C) one alone is 600 MiB — only the adapters' scratch; such a scratch cannot
 * serve a full-parameter backward.
 */
export function planBackwardScratch(rt: GpuRuntime, cfg: ModelConfig, B: number, T: number, lora?: LoraOptions): BackwardScratch {
  const { hiddenSize: C, numHeads: Hq, numKvHeads: Hkv, headDim: D, intermediateSize: F } = cfg;
  const N = B * T;
  const e = (shape: number[], label: string) => rt.empty(shape, 'f32', label);
  const dW = new Map<string, Tensor>();
  // the LM head's weight gradient accumulates straight into its (row-part) gradient: no (V, C) scratch
  for (const [o, i] of lora ? [] : [[Hq * D, C], [Hkv * D, C], [C, Hq * D], [F, C], [C, F]]) {
    const key = `${o}×${i}`;
    if (!dW.has(key)) dW.set(key, e([o, i], `dW ${key}`));
  }
  return {
    dx: e([N, C], 'dx'), dxn: e([N, C], 'dxn'), dtmpC: e([N, C], 'dtmpC'), dtmpC2: e([N, C], 'dtmpC2'),
    dq: e([N, Hq * D], 'dq'), dk: e([N, Hkv * D], 'dk'), dv: e([B, T, Hkv, D], 'dv'),
    dqn: e([N, Hq * D], 'dqn'), dkn: e([N, Hkv * D], 'dkn'),
    dqr: e([B, T, Hq, D], 'dqr'), dkr: e([B, T, Hkv, D], 'dkr'), datt: e([B, T, Hq, D], 'datt'),
    dact: e([N, F], 'dact'), dgate: e([N, F], 'dgate'), dup: e([N, F], 'dup'),
    attnStats: e([B, Hq, T, 2], 'attnStats'), dW,
    lora: lora ? planLoraScratch(rt, cfg, N, lora.rank) : undefined,
  };
}

/** The LoRA part of the backward scratch for N = B·T rows and rank r. */
export function planLoraScratch(rt: GpuRuntime, cfg: ModelConfig, N: number, rank: number): LoraScratch {
  return {
    g: rt.empty([N, rank], 'f32', 'lora.g'),
    normDwC: rt.empty([cfg.hiddenSize], 'f32', 'lora.frozenNormDw'), normDwD: rt.empty([cfg.headDim], 'f32', 'lora.frozenQkNormDw'),
  };
}

function tensorsOf(obj: object): Tensor[] {
  return Object.values(obj).filter((v): v is Tensor => typeof v === 'object' && v !== null && 'buffer' in v && 'label' in v); // not host typed arrays
}

export function releaseActivations(rt: GpuRuntime, acts: Activations): void {
  const all = new Set<Tensor>(); // recompute shares tensors between layers: release each once
  for (const l of acts.layers) for (const t of tensorsOf(l)) all.add(t);
  for (const t of [...tensorsOf(acts), ...(acts.chunk ? tensorsOf(acts.chunk) : []), ...(acts.scored ? tensorsOf(acts.scored) : []), ...(acts.loraXa?.values() ?? [])]) all.add(t);
  rt.release(...all);
}

export function releaseBackwardScratch(rt: GpuRuntime, s: BackwardScratch): void {
  rt.release(...tensorsOf(s), ...s.dW.values(), ...(s.lora ? tensorsOf(s.lora) : []));
}
