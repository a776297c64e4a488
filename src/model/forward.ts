// Training forward of the Qwen3 decoder on the GPU: fills the planned activations and the logits.
// Per layer: h = x + o_proj(attn(rope(q_norm(q_proj(rms(x)))), rope(k_norm(k_proj(rms(x)))), v_proj(rms(x))))
//            out = h + down_proj(silu(gate_proj(rms(h))) · up_proj(rms(h)))
// Legend: B batch, T time, N = B·T, C hidden, V vocab, Hq/Hkv heads, D head dim, F MLP width.
import type { GpuRuntime } from '../gpu/runtime';
import { reshape } from '../gpu/tensor';
import { attentionForward } from '../ops/attention';
import { accumulate, swigluForward } from '../ops/elementwise';
import { checkTokenIds } from '../ops/embedding';
import { rmsnormForward } from '../ops/rmsnorm';
import { ropeForward } from '../ops/rope';
import type { Tensor } from '../gpu/tensor';
import { type Activations, loraXa } from './activations';
import { embedTokens } from './embedTokens';
import { linearForward } from './linear';
import { headLogitsIfWhole, headLogprobs } from './lmHead';
import { loraForward, loraXaForward } from './lora';
import type { LoraTarget } from './parameters';
import type { GpuWeights } from './weights';

/** One training batch on the host. */
export interface TokenBatch {
  /** (B, T) input tokens. */
  inputIds: Int32Array;
  /** (B, T) RoPE positions; default 0…T−1 per row (packed rows should restart per document). */
  positions?: Int32Array;
  /** (B, T) attention segments (documents packed in a row; negative = padding); default all 0. */
  segments?: Int32Array;
  /** (B, T) the token each position is scored against (next token); any valid id where unscored. */
  targets?: Int32Array;
  /** (B, T) ≠ 0 where a position's log-prob is used (loss mask): a scored-rows plan runs the LM head there only. */
  mask?: Float32Array;
}

/** Uploads a batch into the planned input tensors, validating ids against the vocabulary. */
export function writeBatch(rt: GpuRuntime, w: GpuWeights, acts: Activations, batch: TokenBatch): void {
  const { B, T } = acts;
  const N = B * T;
  const V = w.cfg.vocabSize;
  if (batch.inputIds.length !== N) throw new Error(`batch: inputIds has ${batch.inputIds.length} tokens, the plan is B·T = ${B}·${T}`);
  checkTokenIds(batch.inputIds, V, 'batch inputIds');
  rt.write(acts.ids, batch.inputIds);
  const positions = batch.positions ?? Int32Array.from({ length: N }, (_, i) => i % T);
  for (let i = 0; i < N; i++) {
    if (positions[i] < 0 || positions[i] >= w.cfg.maxPositionEmbeddings) {
      throw new Error(`batch: position ${positions[i]} at index ${i} is outside [0, ${w.cfg.maxPositionEmbeddings}) (maxPositionEmbeddings)`);
    }
  }
  rt.write(acts.positions, positions);
  rt.write(acts.segments, batch.segments ?? new Int32Array(N));
  if (batch.targets) {
    checkTokenIds(batch.targets, V, 'batch targets');
    rt.write(acts.targets, batch.targets);
  }
  if (acts.scored) {
    // scored-rows plan: the head will see the rows the mask scores (every row when there is no mask)
    const s = acts.scored;
    const idx = new Int32Array(N);
    const targets = new Int32Array(N);
    let M = 0;
    for (let i = 0; i < N; i++) {
      const on = batch.mask ? batch.mask[i] !== 0 : true;
      s.fill[i] = on ? 0 : NaN;
      if (!on) continue;
      idx[M] = i;
      targets[M++] = batch.targets?.[i] ?? 0;
    }
    s.count = M;
    rt.write(s.idx, idx);
    rt.write(s.targets, targets);
  }
}

/**
 * Runs the decoder over acts.ids. Leaves logits (N, V) in acts.logits when the plan holds them
 * whole; a chunked plan stops at acts.xnFinal (tokenLogprobs / readLogits run the head per chunk).
 */
export function modelForward(rt: GpuRuntime, w: GpuWeights, acts: Activations): void {
  const cfg = w.cfg;
  const { hiddenSize: C, rmsNormEps: eps } = cfg;
  const N = acts.B * acts.T;
  embedTokens(rt, w, reshape(acts.ids, [N]), N, acts.layers[0]?.x ?? acts.xFinal);
  for (let l = 0; l < cfg.numLayers; l++) layerForward(rt, w, acts, l);
  rmsnormForward(rt, acts.xFinal, w.get('model.norm.weight'), { N, C, eps }, { out: acts.xnFinal, rstd: acts.rstdFinal });
  headLogitsIfWhole(rt, w, acts);
}

/**
 * Decoder layer l: from acts.layers[l].x, fills the layer's activations and writes the next
 * layer's input (acts.layers[l + 1].x, or acts.xFinal). The backward of a recomputing plan re-runs
 * it with `recomputeOnly` (every saved activation, not the output it already consumed).
 */
export function layerForward(rt: GpuRuntime, w: GpuWeights, acts: Activations, l: number, recomputeOnly = false): void {
  const cfg = w.cfg;
  const { hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D, rmsNormEps: eps } = cfg;
  const { B, T } = acts;
  const N = B * T;
  const rope = { B, T, D, theta: cfg.ropeTheta, maxPosition: cfg.maxPositionEmbeddings };
  const attn = { B, T, Hq, Hkv, D, segments: acts.segments };
  const a = acts.layers[l];
  const W = (s: string) => w.get(`model.layers.${l}.${s}`);
  // LoRA (adapters attached): y += s·(x·Aᵀ)·Bᵀ after the base projection; no-op for a plain model.
  const adapt = (target: LoraTarget, x: Tensor, y: Tensor) => {
    const ad = w.lora?.adapter(l, target);
    if (ad) loraForward(rt, ad, x, N, y, loraXa(rt, acts, ad.rank, l, target));
  };
  rmsnormForward(rt, a.x, W('input_layernorm.weight'), { N, C, eps }, { out: a.xn1, rstd: a.rstd1 });
  linearForward(rt, a.xn1, W('self_attn.q_proj.weight'), N, C, Hq * D, a.q);
  adapt('q_proj', a.xn1, a.q);
  linearForward(rt, a.xn1, W('self_attn.k_proj.weight'), N, C, Hkv * D, a.k);
  adapt('k_proj', a.xn1, a.k);
  linearForward(rt, a.xn1, W('self_attn.v_proj.weight'), N, C, Hkv * D, reshape(a.v, [N, Hkv * D]));
  adapt('v_proj', a.xn1, reshape(a.v, [N, Hkv * D]));
  // QK-norm: RMSNorm over each head's D values with one (D) weight shared by the heads.
  rmsnormForward(rt, a.q, W('self_attn.q_norm.weight'), { N: N * Hq, C: D, eps }, { out: a.qn, rstd: a.qRstd });
  rmsnormForward(rt, a.k, W('self_attn.k_norm.weight'), { N: N * Hkv, C: D, eps }, { out: a.kn, rstd: a.kRstd });
  ropeForward(rt, reshape(a.qn, [B, T, Hq, D]), acts.positions, { ...rope, H: Hq }, a.qr);
  ropeForward(rt, reshape(a.kn, [B, T, Hkv, D]), acts.positions, { ...rope, H: Hkv }, a.kr);
  attentionForward(rt, a.qr, a.kr, a.v, attn, { out: a.att, lse: a.lse });
  linearForward(rt, reshape(a.att, [N, Hq * D]), W('self_attn.o_proj.weight'), N, Hq * D, C, a.h); // h = o…
  adapt('o_proj', reshape(a.att, [N, Hq * D]), a.h);
  accumulate(rt, a.h, a.x); // …+ x (residual)
  rmsnormForward(rt, a.h, W('post_attention_layernorm.weight'), { N, C, eps }, { out: a.xn2, rstd: a.rstd2 });
  linearForward(rt, a.xn2, W('mlp.gate_proj.weight'), N, C, F, a.gate);
  adapt('gate_proj', a.xn2, a.gate);
  linearForward(rt, a.xn2, W('mlp.up_proj.weight'), N, C, F, a.up);
  adapt('up_proj', a.xn2, a.up);
  swigluForward(rt, a.gate, a.up, a.act);
  if (recomputeOnly) {
    // the backward needs no down projection (its output was consumed already), only its LoRA xa
    const ad = w.lora?.adapter(l, 'down_proj');
    if (ad) loraXaForward(rt, ad, a.act, N, loraXa(rt, acts, ad.rank, l, 'down_proj'));
    return;
  }
  const next = l + 1 < cfg.numLayers ? acts.layers[l + 1].x : acts.xFinal;
  linearForward(rt, a.act, W('mlp.down_proj.weight'), N, F, C, next);
  adapt('down_proj', a.act, next);
  accumulate(rt, next, a.h); // out = down + h (residual)
}

/**
 * logp (N) of acts.targets and the row lse saved for the backward (after modelForward); with
 * `entropy`, the per-token entropy (N) of the softmax as well (chunk by chunk on a chunked plan).
 */
export function tokenLogprobs(rt: GpuRuntime, w: GpuWeights, acts: Activations, entropy?: Tensor): void {
  headLogprobs(rt, w, acts, entropy);
}
