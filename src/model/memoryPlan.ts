// The GPU memory plan of a training run, buffer by buffer, as the code allocates it (./weights,
// ./lora, ./activations, the trainers' optimizer state, the GRPO loss buffers, the decoder's KV
// cache): every buffer padded as the buffer pool pads it, so the plan equals what is allocated
// (memoryPlan.test.ts checks that against the pool). The page and the CLI print it before a run;
// checkMemoryPlan names any buffer a storage binding cannot hold, and the budget.
// Legend: B rows, T tokens per row, N = B·T, C hidden, V vocab, L layers, F MLP width, r LoRA rank.
import { type ActivationLayout, type ActivationOptions, planActivationLayout } from './activations';
import { type ModelConfig, PRESETS, type PresetName } from './config';
import { PREFILL_CHUNK_TOKENS } from './decode';
import { countLoraParameters, countParameters, formatBytes, type LoraOptions, type LoraTarget, parameterTable, type ParameterSpec } from './parameters';
import { partBytes, rowRanges } from './weights';

export type MemoryGroup = 'weights' | 'adapters' | 'gradients' | 'optimizer' | 'activations' | 'reference' | 'kv cache';
export const MEMORY_GROUPS: readonly MemoryGroup[] = ['weights', 'adapters', 'gradients', 'optimizer', 'activations', 'reference', 'kv cache'];

export interface MemoryPlanOptions {
  /** Training micro-batch: B rows of T tokens. */
  batch: number;
  seqLen: number;
  /** Train LoRA adapters on a frozen base; absent: full-parameter training (f32 weights). */
  lora?: { rank: number; targets: readonly LoraTarget[] };
  /** Storage of the frozen base under LoRA (default 'f16'); full-parameter training is f32. */
  baseDtype?: 'f32' | 'f16';
  /** GRPO's KL term: a frozen reference (LoRA: a copy of the adapters only; full: of every weight). */
  klReference?: boolean;
  /** GRPO's per-token loss buffers (inputs, statistics, entropy, reference log-probs). */
  grpo?: boolean;
  /** Rollout decoding at the same time: a KV cache of `rows` × `length` positions and its (chunked) prefill scratch. */
  decode?: { rows: number; length: number };
  recompute?: ActivationOptions['recompute'];
  logitsBudgetBytes?: number;
  scoredRowsOnly?: ActivationOptions['scoredRowsOnly'];
  /** Device limits: the vocabulary split, the logits chunk, and the binding check (default: no split, no check). */
  limits?: { maxStorageBufferBindingSize: number; maxBufferSize: number };
}

export interface PlannedBuffer {
  name: string;
  group: MemoryGroup;
  /** Bytes of one buffer, padded as the pool pads it. */
  bytes: number;
  /** How many such buffers (e.g. one per layer). */
  count: number;
}

export interface MemoryPlan {
  buffers: PlannedBuffer[];
  byGroup: Record<MemoryGroup, number>;
  totalBytes: number;
  layout: ActivationLayout & { vocabParts: number; tokens: number };
  /** The biggest single buffer (what one storage binding must hold). */
  largest: PlannedBuffer;
}

const pad = (bytes: number) => Math.max(16, Math.ceil(bytes / 16) * 16);
const f32 = (elements: number) => pad(4 * elements);
const numel = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);
const MAX_GRAD_PARTIALS = 64; // src/ops/optimizer.ts: per-tensor partial sums of the norm
const GRPO_STATS = 8; // src/ops/grpoLoss.ts

/** Buffers of one parameter as ./weights stores it (row parts for the vocabulary tensors). */
function parameterBuffers(p: ParameterSpec, f16: boolean, maxPart: number, group: MemoryGroup, prefix = ''): PlannedBuffer[] {
  if (p.shape.length === 1) return [{ name: `${prefix}${p.name}`, group, bytes: f32(p.shape[0]), count: 1 }];
  const [R, C] = p.shape;
  const ranges = p.kind === 'embedding' ? rowRanges(R, C, f16, maxPart) : [{ row0: 0, rows: R }];
  return ranges.map((r) => ({ name: `${prefix}${p.name}${ranges.length > 1 ? ` [rows ${r.row0}…${r.row0 + r.rows - 1}]` : ''}${f16 ? ' (f16)' : ''}`, group, bytes: partBytes(r.rows, C, f16), count: 1 }));
}

function loraShapes(cfg: ModelConfig, lora: NonNullable<MemoryPlanOptions['lora']>): { name: string; shape: [number, number] }[] {
  const shapes = new Map(parameterTable(cfg).map((p) => [p.name.split('.').slice(-2, -1)[0], p.shape]));
  const out: { name: string; shape: [number, number] }[] = [];
  for (const t of lora.targets) {
    const [o, i] = shapes.get(t)!;
    out.push({ name: `lora_A ${t}`, shape: [lora.rank, i] }, { name: `lora_B ${t}`, shape: [o, lora.rank] });
  }
  return out; // per layer
}

/** Every buffer of a training run with these options, and the totals. */
export function planMemory(cfg: ModelConfig, o: MemoryPlanOptions): MemoryPlan {
  const { batch: B, seqLen: T } = o;
  if (!(Number.isInteger(B) && B > 0 && Number.isInteger(T) && T > 0)) throw new Error(`memory plan: batch and seqLen must be positive integers, got batch ${B}, seqLen ${T}`);
  const { vocabSize: V, hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D, numLayers: L } = cfg;
  const N = B * T;
  const maxBinding = o.limits ? Math.min(o.limits.maxStorageBufferBindingSize, o.limits.maxBufferSize) : Number.MAX_SAFE_INTEGER;
  const f16 = o.lora !== undefined && (o.baseDtype ?? 'f16') === 'f16';
  const table = parameterTable(cfg);
  const buffers: PlannedBuffer[] = [];
  const add = (group: MemoryGroup, name: string, bytes: number, count = 1) => { if (count > 0) buffers.push({ name, group, bytes, count }); };

  // weights (./weights)
  for (const p of table) buffers.push(...parameterBuffers(p, f16 && p.shape.length === 2, maxBinding, 'weights'));
  const head = table.find((p) => p.name === (cfg.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight'))!;
  const headParts = rowRanges(V, C, f16, maxBinding);

  // trainable tensors: LoRA adapters (./lora) or every weight; gradients and AdamW moments
  const trainable: number[] = []; // element counts
  if (o.lora) {
    for (const s of loraShapes(cfg, o.lora)) {
      add('adapters', s.name, f32(numel(s.shape)), L);
      add('gradients', `grad ${s.name}`, f32(numel(s.shape)), L);
      for (let l = 0; l < L; l++) trainable.push(numel(s.shape));
      if (o.klReference) add('reference', `frozen ${s.name}`, f32(numel(s.shape)), L);
    }
  } else {
    for (const p of table) {
      buffers.push(...parameterBuffers(p, false, maxBinding, 'gradients', 'grad '));
      trainable.push(numel(p.shape));
      if (o.klReference) buffers.push(...parameterBuffers(p, false, maxBinding, 'reference', 'frozen '));
    }
  }
  const vocabTensor = (n: number) => n === V * C;
  for (const n of trainable) add('optimizer', vocabTensor(n) ? 'AdamW m, v of a vocabulary tensor (V, C)' : 'AdamW m, v', f32(n), 2);
  add('optimizer', 'gradient-norm partials', f32(Math.max(1, trainable.reduce((s, n) => s + Math.min(MAX_GRAD_PARTIALS, Math.max(1, Math.ceil(n / 256))), 0))));
  add('optimizer', 'gradient-norm stats', f32(4));

  // activations (./activations planActivations + the chunked head's scratch) and the backward scratch
  const layout = planActivationLayout(cfg, N, { recompute: o.recompute, logitsBudgetBytes: o.logitsBudgetBytes, scoredRowsOnly: o.scoredRowsOnly, maxBindingBytes: o.limits ? o.limits.maxStorageBufferBindingSize : Number.MAX_SAFE_INTEGER }, o.lora);
  const layerSets = layout.recompute ? 1 : L;
  add('activations', 'layer input x (N, C)', f32(N * C), L);
  add('activations', 'xn1, h, xn2 (N, C)', f32(N * C), 3 * layerSets);
  add('activations', 'q, qn, qr, att (N, Hq·D)', f32(N * Hq * D), 4 * layerSets);
  add('activations', 'k, v, kn, kr (N, Hkv·D)', f32(N * Hkv * D), 4 * layerSets);
  add('activations', 'gate, up, act (N, F)', f32(N * F), 3 * layerSets);
  add('activations', 'rstd1, rstd2 (N)', f32(N), 2 * layerSets);
  add('activations', 'q_norm rstd, attention lse (N·Hq)', f32(N * Hq), 2 * layerSets);
  add('activations', 'k_norm rstd (N·Hkv)', f32(N * Hkv), layerSets);
  if (o.lora) add('activations', 'LoRA s·x·Aᵀ (N, r)', f32(N * o.lora.rank), o.lora.targets.length * layerSets);
  add('activations', `RoPE cos, sin tables (${cfg.maxPositionEmbeddings}, D/2)`, f32(cfg.maxPositionEmbeddings * (D / 2)), 2); // once per runtime and shape
  add('activations', 'ids, positions, segments, targets (N, i32)', f32(N), 4);
  add('activations', 'xFinal, xnFinal (N, C)', f32(N * C), 2);
  add('activations', 'rstdFinal, logp, lse, dlogp (N)', f32(N), 4);
  const n = layout.logitsRows;
  add('activations', n < N ? `logits chunk (${n}, V)` : 'logits (N, V)', f32(n * V));
  if (n < N || layout.scoredRowsOnly) {
    add('activations', 'chunk rows x, dx (n, C)', f32(n * C), 2);
    add('activations', 'chunk idx, targets, logp, lse, dlogp, entropy (n)', f32(n), 6);
  }
  if (layout.scoredRowsOnly) add('activations', 'scored rows idx, targets (N, i32)', f32(N), 2);
  if (headParts.length > 1) add('activations', `LM head part logits (n, ${Math.max(...headParts.map((r) => r.rows))})`, f32(n * Math.max(...headParts.map((r) => r.rows))));
  add('activations', 'backward dx, dxn, dtmpC, dtmpC2 (N, C)', f32(N * C), 4);
  add('activations', 'backward dq, dqn, dqr, datt (N, Hq·D)', f32(N * Hq * D), 4);
  add('activations', 'backward dk, dv, dkn, dkr (N, Hkv·D)', f32(N * Hkv * D), 4);
  add('activations', 'backward dact, dgate, dup (N, F)', f32(N * F), 3);
  add('activations', 'backward attention stats (N·Hq, 2)', f32(2 * N * Hq));
  if (o.lora) {
    add('activations', 'backward LoRA g (N, r)', f32(N * o.lora.rank));
    add('activations', 'frozen norm-weight gradient sinks (C), (D)', f32(C) + f32(D));
  } else {
    // one weight-gradient scratch per distinct projection shape (the head accumulates directly)
    const shapes = new Set([[Hq * D, C], [Hkv * D, C], [C, Hq * D], [F, C], [C, F]].map(([a, b]) => `${a}×${b}`));
    for (const s of shapes) { const [a, b] = s.split('×').map(Number); add('activations', `backward dW scratch (${s})`, f32(a * b)); }
  }
  if (o.grpo) {
    add('activations', 'GRPO entropy, reference logp (N)', f32(N), o.klReference ? 2 : 1);
    add('activations', 'GRPO token inputs (N, 3)', f32(3 * N));
    add('activations', `GRPO statistics (N, ${GRPO_STATS})`, f32(GRPO_STATS * N));
  }

  // rollout decoding (./decode): the KV cache and the prefill's scratch (Tq = length, the worst case)
  if (o.decode) {
    const { rows: R, length: Tm } = o.decode;
    add('kv cache', `keys, values (rows ${R}, ${Tm}, Hkv, D) per layer`, f32(R * Tm * Hkv * D), 2 * L);
    const M = R * Math.min(Tm, PREFILL_CHUNK_TOKENS); // prompts are prefilled in chunks (./generate)
    add('kv cache', 'prefill scratch (rows·T, C | Hq·D | Hkv·D | F)', f32(M * C) * 2 + f32(M * Hq * D) * 4 + f32(M * Hkv * D) * 4 + f32(M * F) * 3
      + f32(M) * 3 + f32(M * Hq) * 2 + f32(M * Hkv) + (o.lora ? f32(M * o.lora.rank) : 0));
    add('kv cache', 'decode logits (rows, V) and row gather', f32(R * V) + f32(R * C) + 2 * f32(R) + (headParts.length > 1 ? f32(R * Math.max(...headParts.map((r) => r.rows))) : 0));
  }

  const byGroup = Object.fromEntries(MEMORY_GROUPS.map((g) => [g, 0])) as Record<MemoryGroup, number>;
  for (const b of buffers) byGroup[b.group] += b.bytes * b.count;
  const totalBytes = MEMORY_GROUPS.reduce((s, g) => s + byGroup[g], 0);
  const largest = buffers.filter((b) => !b.name.startsWith('prefill scratch')).reduce((a, b) => (b.bytes > a.bytes ? b : a)); // the prefill line sums several buffers
  return { buffers, byGroup, totalBytes, layout: { ...layout, vocabParts: rowRanges(head.shape[0], C, f16, maxBinding).length, tokens: N }, largest };
}

/** null when the plan fits; otherwise what does not, naming the buffer, the limit, and what would fit. */
export function checkMemoryPlan(plan: MemoryPlan, limits: { maxStorageBufferBindingSize: number; maxBufferSize: number; budgetBytes?: number }, label = 'this run'): string | null {
  const problems: string[] = [];
  const bind = Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  const tooBig = plan.buffers.filter((b) => b.bytes > bind && !b.name.startsWith('prefill scratch')).sort((a, b) => b.bytes - a.bytes);
  const hold = `this adapter's storage bindings hold ${formatBytes(bind)}`;
  const activations = tooBig.filter((b) => b.group === 'activations');
  if (activations.length) {
    // every activation buffer grows with the tokens: the largest per-token one decides
    const tokens = Math.min(...activations.map((b) => Math.floor(bind / (b.bytes / plan.layout.tokens))));
    problems.push(`${label} needs a ${formatBytes(activations[0].bytes)} buffer for ${activations[0].name}; ${hold}: `
      + `use at most ${tokens} tokens per step (batch × seqLen, now ${plan.layout.tokens}), or a GPU with larger bindings`);
  }
  const kv = tooBig.find((b) => b.group === 'kv cache');
  if (kv) problems.push(`${label} needs a ${formatBytes(kv.bytes)} buffer for the KV cache (${kv.name}); ${hold}: decode fewer rows at a time or shorter rollouts`);
  const weight = tooBig.find((b) => b.group !== 'activations' && b.group !== 'kv cache');
  if (weight) problems.push(`${label} needs a ${formatBytes(weight.bytes)} buffer for ${weight.name}; ${hold}: choose a model with smaller layers, or a GPU with larger bindings`);
  if (limits.budgetBytes !== undefined && plan.totalBytes > limits.budgetBytes) {
    const perToken = plan.byGroup.activations / plan.layout.tokens;
    const kvBytes = plan.byGroup['kv cache'];
    const model = plan.totalBytes - plan.byGroup.activations - kvBytes; // weights, adapters, gradients, optimizer, reference
    const tokens = Math.floor((limits.budgetBytes - model - kvBytes) / perToken);
    // Advice in order: fewer tokens per step if that alone fits; else the decoder's KV cache if the model fits
    // without it; else the model itself is too big.
    const advice = tokens > 0
      ? `use at most ${tokens} tokens per step (now ${plan.layout.tokens}), fewer rollout rows, or LoRA on an f16 base`
      : model + perToken < limits.budgetBytes && kvBytes > 0
        ? `the rollout decoder's KV cache (${formatBytes(kvBytes)}) leaves no room: decode fewer rows at a time or shorter rollouts`
        : 'the weights alone do not fit: choose a smaller model';
    problems.push(`${label} needs ${formatBytes(plan.totalBytes)} (${groupSummary(plan)}); the budget is ${formatBytes(limits.budgetBytes)}: ${advice}`);
  }
  return problems.length ? problems.join('; ') : null;
}

function groupSummary(plan: MemoryPlan): string {
  return MEMORY_GROUPS.filter((g) => plan.byGroup[g] > 0).map((g) => `${g} ${formatBytes(plan.byGroup[g])}`).join(', ');
}

/** The plan as lines to print: one per group, the layout, the total, and the biggest buffers. */
export function formatMemoryPlan(plan: MemoryPlan, label = 'memory plan'): string[] {
  const lines = [`${label}: ${formatBytes(plan.totalBytes)} in all`];
  for (const g of MEMORY_GROUPS) if (plan.byGroup[g] > 0) lines.push(`  ${g.padEnd(11)} ${formatBytes(plan.byGroup[g]).padStart(10)}`);
  const l = plan.layout;
  lines.push(`  layout: ${l.tokens} tokens per micro-batch; ${l.recompute ? 'activations recomputed per layer (only layer inputs kept)' : 'every activation kept'}; `
    + `logits ${l.logitsRows < l.tokens ? `in chunks of ${l.logitsRows} rows (recomputed in the backward)` : 'whole'}${l.scoredRowsOnly ? ', for scored rows only' : ''}; vocabulary in ${l.vocabParts} buffer${l.vocabParts > 1 ? 's' : ''}`);
  const top = [...plan.buffers].sort((a, b) => b.bytes * b.count - a.bytes * a.count).slice(0, 5);
  lines.push(`  largest: ${top.map((b) => `${b.name}${b.count > 1 ? ` ×${b.count}` : ''} ${formatBytes(b.bytes * b.count)}`).join('; ')}`);
  return lines;
}

// ---- the summary API of the fit checks (fit.ts, the page): totals of planMemory and one check ----

export interface MemoryOptions {
  batch: number;
  seqLen: number;
  optimizer: 'adamw';
  /** Train low-rank adapters only; the base weights stay frozen (stored in lora.baseDtype, default f32). */
  lora?: LoraOptions;
  /** Full-parameter training stores f32 weights; 'f16' applies to a frozen base under LoRA only. */
  weightDtype: 'f32' | 'f16';
  /** GRPO with a KL term keeps a frozen reference (LoRA: the adapters; full: every weight). */
  referenceCopy?: boolean;
}

export interface MemoryBuffer {
  name: string;
  bytes: number;
  /** True when the size grows with batch × seqLen (activations). */
  perToken: boolean;
}

export interface MemoryEstimate {
  /** Base weights, adapters and the frozen reference. */
  weightsBytes: number;
  gradsBytes: number;
  optimizerBytes: number;
  activationsBytes: number;
  totalBytes: number;
  largestBufferBytes: number;
  /**
   * The biggest buffer that must fit one storage binding. The vocabulary tensors are left out:
   * they are split into row parts that fit any adapter (./weights).
   */
  largestBuffer: MemoryBuffer;
  tokens: number;
  /** Bytes that grow with each token of batch × seqLen, and those that do not (the advice's linear model). */
  bytesPerToken: number;
  fixedBytes: number;
  trainableParameters: number;
  lora: boolean;
}

/**
 * planMemory's totals in the shape of the fit checks. `limits` (the adapter's) size the vocabulary
 * parts and the logits chunk as the run will; without them nothing is split or chunked below 256 MiB.
 */
export function estimateMemory(cfg: ModelConfig, options: MemoryOptions, limits?: Pick<DeviceLimits, 'maxBufferSize' | 'maxStorageBufferBindingSize'>): MemoryEstimate {
  const { batch, seqLen, lora } = options;
  if (!(Number.isInteger(batch) && batch > 0 && Number.isInteger(seqLen) && seqLen > 0)) {
    throw new Error(`estimateMemory: batch and seqLen must be positive integers, got batch ${batch}, seqLen ${seqLen}`);
  }
  if (!lora && options.weightDtype === 'f16') throw new Error('estimateMemory: full-parameter training keeps f32 weights; an f16 base is frozen (train it with LoRA)');
  const planAt = (b: number, t: number) => planMemory(cfg, {
    batch: b, seqLen: t, lora: lora && { rank: lora.rank, targets: lora.targets }, baseDtype: lora?.baseDtype ?? 'f32', klReference: options.referenceCopy,
    limits: limits && { maxBufferSize: limits.maxBufferSize, maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize },
  });
  const plan = planAt(batch, seqLen);
  // the advice's slope from short rows, where every activation is kept and the logits are whole:
  // the steepest part of the curve (recompute and chunking only flatten it), so its advice fits
  const one = planAt(1, 1);
  const bytesPerToken = (planAt(1, 65).totalBytes - one.totalBytes) / 64;
  const vocab = /^(grad |frozen )?(model\.embed_tokens|lm_head)\.weight/;
  const largest = plan.buffers.filter((b) => !vocab.test(b.name) && !b.name.startsWith('prefill')).reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const trainable = lora ? countLoraParameters(cfg, lora) : countParameters(cfg);
  return {
    weightsBytes: plan.byGroup.weights + plan.byGroup.adapters + plan.byGroup.reference,
    gradsBytes: plan.byGroup.gradients, optimizerBytes: plan.byGroup.optimizer, activationsBytes: plan.byGroup.activations,
    totalBytes: plan.totalBytes, largestBufferBytes: largest.bytes, largestBuffer: { name: largest.name, bytes: largest.bytes, perToken: largest.group === 'activations' },
    tokens: plan.layout.tokens, bytesPerToken, fixedBytes: one.totalBytes - bytesPerToken, trainableParameters: trainable, lora: lora !== undefined,
  };
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
    const fewer = tokensAdvice(Math.floor((limits.budgetBytes - estimate.fixedBytes) / estimate.bytesPerToken));
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
    .filter((name) => checkFits(estimateMemory(PRESETS[name], options, limits), limits) === null);
  const alternatives = fitting.length ? [fitting[fitting.length - 1]] : [];
  return checkFits(estimateMemory(PRESETS[preset], options, limits), limits, { label: `preset ${preset}`, alternatives });
}
