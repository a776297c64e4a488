// The LM head and the per-token log-probs, over any vocabulary size:
// - the head weight (embed_tokens when tied, else lm_head) may be stored as row parts (./weights):
//   each part's logits (n, Vp) are computed on their own and placed into columns [v0, v0 + Vp) of
//   the logits (src/ops/copyBlock); the backward takes those columns back out per part;
// - the logits may be chunked by rows (acts.logitsRows < N, ./activations): the forward keeps only
//   logp, lse (and entropy) per token, and the backward recomputes each chunk's logits before
//   overwriting them with dlogits (the recompute costs one more head matmul per chunk);
// - a scored-rows plan (Qwen3-size vocabularies) runs the head only on the rows a batch scores
//   (assistant / policy tokens): they are gathered by index like embedding rows, and their
//   per-token results scattered back (the embedding gather / scatter kernels), so prompt and tool
//   tokens, most of an agent's context, cost nothing in the head.
// Legend: N tokens, n rows per chunk, V vocabulary, Vp rows of one part, C hidden.
import type { GpuRuntime } from '../gpu/runtime';
import { prefixView, type Tensor } from '../gpu/tensor';
import { copyBlock } from '../ops/copyBlock';
import { entropyForward, logprobBackward, logprobForward, type LogprobSpec } from '../ops/crossEntropy';
import { embeddingBackward, embeddingForward } from '../ops/embedding';
import type { Activations } from './activations';
import type { ModelConfig } from './config';
import { linearBackwardInput, linearBackwardWeightAccumulate, linearForward } from './linear';
import type { GpuWeights } from './weights';

/** The parameter the LM head reads. */
export function headName(cfg: ModelConfig): string {
  return cfg.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight';
}

/** Scratch for one part's logits (n, rows of the largest part), or undefined when the head is one buffer. */
export function headPartScratch(rt: GpuRuntime, w: GpuWeights, n: number, existing?: Tensor): Tensor | undefined {
  const parts = w.parts(headName(w.cfg));
  if (parts.length === 1) return undefined;
  const size = n * Math.max(...parts.map((p) => p.rows));
  if (existing && existing.size >= size) return existing;
  if (existing) rt.release(existing);
  return rt.empty([size], 'f32', 'lm_head.partLogits');
}

/** logits (n, V) = x (n, C) · headᵀ, part by part; `partScratch` from headPartScratch. */
export function headForward(rt: GpuRuntime, w: GpuWeights, x: Tensor, n: number, logits: Tensor, partScratch?: Tensor): void {
  const { hiddenSize: C, vocabSize: V } = w.cfg;
  const parts = w.parts(headName(w.cfg));
  if (parts.length === 1) {
    linearForward(rt, x, parts[0].tensor, n, C, V, logits);
    return;
  }
  if (!partScratch) throw new Error('headForward: the LM head is split into row parts; pass a partScratch (headPartScratch)');
  for (const p of parts) {
    const part = prefixView(partScratch, [n, p.rows]);
    linearForward(rt, x, p.tensor, n, C, p.rows, part);
    copyBlock(rt, part, logits, { rows: n, cols: p.rows, srcStride: p.rows, srcCol0: 0, dstStride: V, dstCol0: p.row0 });
  }
}

/**
 * From dlogits (n, V): dx (n, C) = dlogits · head, and (unless `frozen`) head gradient += dlogitsᵀ · x,
 * part by part.
 */
export function headBackward(rt: GpuRuntime, w: GpuWeights, dlogits: Tensor, x: Tensor, n: number, dx: Tensor, frozen: boolean, partScratch?: Tensor): void {
  const { hiddenSize: C, vocabSize: V } = w.cfg;
  const name = headName(w.cfg);
  const parts = w.parts(name);
  const grads = frozen ? null : w.gradParts(name);
  if (parts.length === 1) {
    // forward: logits = x · headᵀ
    linearBackwardInput(rt, dlogits, parts[0].tensor, n, C, V, dx);
    if (grads) linearBackwardWeightAccumulate(rt, dlogits, x, n, C, V, grads[0].tensor);
    return;
  }
  if (!partScratch) throw new Error('headBackward: the LM head is split into row parts; pass a partScratch (headPartScratch)');
  parts.forEach((p, i) => {
    // forward: logits[:, v0 : v0 + Vp] = x · part_pᵀ
    const dpart = prefixView(partScratch, [n, p.rows]);
    copyBlock(rt, dlogits, dpart, { rows: n, cols: p.rows, srcStride: V, srcCol0: p.row0, dstStride: p.rows, dstCol0: 0 });
    linearBackwardInput(rt, dpart, p.tensor, n, C, p.rows, dx, i > 0);
    if (grads) linearBackwardWeightAccumulate(rt, dpart, x, n, C, p.rows, grads[i].tensor);
  });
}

function partScratchFor(rt: GpuRuntime, w: GpuWeights, acts: Activations): Tensor | undefined {
  acts.headPart = headPartScratch(rt, w, acts.logitsRows, acts.headPart);
  return acts.headPart;
}

/** The training forward's head, unchunked: acts.logits (N, V) from acts.xnFinal. Chunked and scored-rows plans skip it (headLogprobs does it per chunk). */
export function headLogitsIfWhole(rt: GpuRuntime, w: GpuWeights, acts: Activations): void {
  const N = acts.B * acts.T;
  if (acts.logitsRows < N || acts.scoredRowsOnly) return;
  headForward(rt, w, acts.xnFinal, N, acts.logits, partScratchFor(rt, w, acts));
}

/** Visits [n0, m) row chunks of N with at most acts.logitsRows rows each. */
function forChunks(acts: Activations, body: (n0: number, m: number) => void): void {
  const N = acts.B * acts.T;
  for (let n0 = 0; n0 < N; n0 += acts.logitsRows) body(n0, Math.min(acts.logitsRows, N - n0));
}

/**
 * The rows [k0, k0 + m) of a chunk into ch.x (m, C): scored rows gathered by index into ch.idx
 * (the xnFinal rows looked up like embedding rows), or a contiguous copy. Targets likewise.
 */
function loadChunkRows(rt: GpuRuntime, acts: Activations, C: number, k0: number, m: number): void {
  const ch = acts.chunk!;
  const N = acts.B * acts.T;
  if (acts.scored) {
    rt.copyRange(acts.scored.idx, k0, ch.idx, 0, m);
    rt.copyRange(acts.scored.targets, k0, ch.targets, 0, m);
    embeddingForward(rt, prefixView(ch.idx, [m]), acts.xnFinal, { N: m, V: N, C }, prefixView(ch.x, [m, C]));
  } else {
    rt.copyRange(acts.xnFinal, k0 * C, ch.x, 0, m * C);
    rt.copyRange(acts.targets, k0, ch.targets, 0, m);
  }
}

/** Per-token values of a chunk (m rows of `width`) back to their N positions: scattered by index, or copied. */
function storeChunkValues(rt: GpuRuntime, acts: Activations, from: Tensor, to: Tensor, width: number, k0: number, m: number): void {
  const N = acts.B * acts.T;
  if (acts.scored) embeddingBackward(rt, prefixView(from, [m, width]), prefixView(acts.chunk!.idx, [m]), { N: m, V: N, C: width }, to); // into 0 (scored) / NaN
  else rt.copyRange(from, 0, to, k0 * width, m * width);
}

/** Per-token values at a chunk's rows into `to` (m rows of `width`): gathered by index, or copied. */
function loadChunkValues(rt: GpuRuntime, acts: Activations, from: Tensor, to: Tensor, width: number, k0: number, m: number): void {
  const N = acts.B * acts.T;
  if (acts.scored) embeddingForward(rt, prefixView(acts.chunk!.idx, [m]), from, { N: m, V: N, C: width }, prefixView(to, [m * width]));
  else rt.copyRange(from, k0 * width, to, 0, m * width);
}

/** Visits the chunks of the rows the head runs on: the scored ones (scored-rows plans) or all N. */
function forHeadChunks(acts: Activations, body: (k0: number, m: number) => void): void {
  if (!acts.scored) return forChunks(acts, body);
  for (let k0 = 0; k0 < acts.scored.count; k0 += acts.logitsRows) body(k0, Math.min(acts.logitsRows, acts.scored.count - k0));
}

/** The log-prob / entropy kernels' sizes for `rows` head rows, at the temperature the activations score at. */
function headSpec(acts: Activations, rows: number, V: number): LogprobSpec {
  return { N: rows, V, temperature: acts.temperature };
}

/**
 * logp (N) of acts.targets and the row lse (N) saved for the backward; with `entropy`, H (N) of each
 * row's softmax too. Unchunked: from acts.logits (modelForward computed them). Chunked: the head
 * runs per chunk and only these per-token values are kept.
 */
export function headLogprobs(rt: GpuRuntime, w: GpuWeights, acts: Activations, entropy?: Tensor): void {
  const { vocabSize: V, hiddenSize: C } = w.cfg;
  const N = acts.B * acts.T;
  if (entropy && entropy.size !== N) throw new Error(`headLogprobs: entropy '${entropy.label}' needs N = ${N} elements, has ${entropy.size}`);
  const ch = acts.chunk;
  if (!ch) {
    logprobForward(rt, acts.logits, acts.targets, headSpec(acts, N, V), { logp: acts.logp, lse: acts.lseLogits });
    if (entropy) entropyForward(rt, acts.logits, acts.lseLogits, headSpec(acts, N, V), entropy);
    return;
  }
  const scratch = partScratchFor(rt, w, acts);
  if (acts.scored) {
    // unscored positions read NaN (their log-probs are never computed); scored ones are scattered into 0
    for (const t of [acts.logp, acts.lseLogits, ...(entropy ? [entropy] : [])]) rt.write(t, acts.scored.fill);
  }
  forHeadChunks(acts, (k0, m) => {
    loadChunkRows(rt, acts, C, k0, m);
    const logits = prefixView(acts.logits, [m, V]);
    const lse = prefixView(ch.lse, [m]);
    headForward(rt, w, prefixView(ch.x, [m, C]), m, logits, scratch);
    logprobForward(rt, logits, prefixView(ch.targets, [m]), headSpec(acts, m, V), { logp: prefixView(ch.logp, [m]), lse });
    storeChunkValues(rt, acts, ch.logp, acts.logp, 1, k0, m);
    storeChunkValues(rt, acts, ch.lse, acts.lseLogits, 1, k0, m);
    if (entropy) {
      entropyForward(rt, logits, lse, headSpec(acts, m, V), prefixView(ch.entropy, [m]));
      storeChunkValues(rt, acts, ch.entropy, entropy, 1, k0, m);
    }
  });
}

/**
 * Backward of logp = log_softmax(x · headᵀ / T)[target] (T = acts.temperature, 1 when unset) from
 * acts.dlogp ((N) or (N, 3) rows with an entropy bonus): dxn (N, C) = dL/d xnFinal, and the head's
 * gradient unless `frozen`.
 * Unchunked: dlogits overwrite acts.logits in place. Chunked: each chunk's logits are recomputed first.
 */
export function headBackwardFromLogp(rt: GpuRuntime, w: GpuWeights, acts: Activations, dxn: Tensor, frozen: boolean): void {
  const { vocabSize: V, hiddenSize: C } = w.cfg;
  const N = acts.B * acts.T;
  const scratch = partScratchFor(rt, w, acts);
  const ch = acts.chunk;
  if (!ch) {
    // forward: logp = log_softmax(logits / T)[target]  ⇒ dlogits (in place over the logits)
    const dlogits = logprobBackward(rt, acts.dlogp, acts.logits, acts.targets, acts.lseLogits, headSpec(acts, N, V), { inPlace: true });
    headBackward(rt, w, dlogits, acts.xnFinal, N, dxn, frozen, scratch);
    return;
  }
  const width = acts.dlogp.size === 3 * N ? 3 : 1; // (N, 3) rows: dlogp, dH, H
  if (ch.dlogp.size !== width * acts.logitsRows) {
    rt.release(ch.dlogp);
    ch.dlogp = rt.empty(width === 3 ? [acts.logitsRows, 3] : [acts.logitsRows], 'f32', 'chunk.dlogp');
  }
  if (acts.scored) rt.clear(dxn); // unscored rows get no gradient from the head
  forHeadChunks(acts, (k0, m) => {
    loadChunkRows(rt, acts, C, k0, m);
    loadChunkValues(rt, acts, acts.lseLogits, ch.lse, 1, k0, m);
    loadChunkValues(rt, acts, acts.dlogp, ch.dlogp, width, k0, m);
    const x = prefixView(ch.x, [m, C]);
    const logits = prefixView(acts.logits, [m, V]);
    headForward(rt, w, x, m, logits, scratch); // recompute this chunk's logits
    const dlogp = prefixView(ch.dlogp, width === 3 ? [m, 3] : [m]);
    const dlogits = logprobBackward(rt, dlogp, logits, prefixView(ch.targets, [m]), prefixView(ch.lse, [m]), headSpec(acts, m, V), { inPlace: true });
    headBackward(rt, w, dlogits, x, m, prefixView(ch.dx, [m, C]), frozen, scratch);
    storeChunkValues(rt, acts, ch.dx, dxn, C, k0, m);
  });
}

/** Every logit (N, V) on the host, e.g. for a debug dump; runs the head chunk by chunk when chunked (after modelForward). */
export async function readLogits(rt: GpuRuntime, w: GpuWeights, acts: Activations): Promise<Float32Array> {
  const { vocabSize: V, hiddenSize: C } = w.cfg;
  const N = acts.B * acts.T;
  if (!acts.chunk) return rt.readF32(acts.logits);
  const out = new Float32Array(N * V);
  const scratch = partScratchFor(rt, w, acts);
  const chunks: [number, number][] = [];
  forChunks(acts, (n0, m) => chunks.push([n0, m]));
  for (const [n0, m] of chunks) {
    rt.copyRange(acts.xnFinal, n0 * C, acts.chunk.x, 0, m * C);
    headForward(rt, w, prefixView(acts.chunk.x, [m, C]), m, prefixView(acts.logits, [m, V]), scratch);
    out.set((await rt.readF32(acts.logits)).subarray(0, m * V), n0 * V);
  }
  return out;
}
