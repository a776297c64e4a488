// Inference forward with a KV cache: a prefill of Tq prompt tokens per row, then one token per
// step, batched over rows of different lengths (per-row pastLen). Only the last real token of each
// row goes through the LM head (gathered before it), so a Qwen3-size vocabulary never needs a
// (B, T, V) logits buffer.
// Legend: B rows, Tq new tokens per row, Tmax cache capacity, C hidden, V vocab, Hq/Hkv heads, D head dim, F MLP.
import type { GpuRuntime } from '../gpu/runtime';
import { reshape, type Tensor } from '../gpu/tensor';
import { attentionDecode } from '../ops/attention';
import { accumulate, swigluForward } from '../ops/elementwise';
import { embeddingForward } from '../ops/embedding';
import { cacheWrite } from '../ops/kvcache';
import { rmsnormForward } from '../ops/rmsnorm';
import { ropeForward } from '../ops/rope';
import { embedTokens } from './embedTokens';
import { linearForward } from './linear';
import { headForward, headPartScratch } from './lmHead';
import { loraForward } from './lora';
import type { LoraTarget } from './parameters';
import type { GpuWeights } from './weights';

/** Longest prompt slice one prefill call feeds per row (./generate): bounds the prefill scratch. */
export const PREFILL_CHUNK_TOKENS = 256;

/** Per-layer keys (after k_norm and RoPE) and values of every cached position. */
export interface KvCache {
  B: number;
  Tmax: number;
  k: Tensor[]; // L × (B, Tmax, Hkv, D)
  v: Tensor[]; // L × (B, Tmax, Hkv, D)
}

/** Scratch of one decode call shape (B, Tq), reused across calls with the same Tq. */
interface DecodeScratch {
  tokens: Tensor; // (B, Tq) i32
  positions: Tensor; // (B, Tq) i32
  pastLen: Tensor; // (B) i32
  lastRow: Tensor; // (B) i32 index into the (B·Tq) rows: b·Tq + lastRealToken[b]
  x: Tensor; // (B·Tq, C) residual stream
  xn: Tensor; // (B·Tq, C)
  q: Tensor; // (B·Tq, Hq·D)
  k: Tensor; // (B·Tq, Hkv·D)
  v: Tensor; // (B, Tq, Hkv, D)
  qn: Tensor; // (B·Tq, Hq·D)
  kn: Tensor; // (B·Tq, Hkv·D)
  qr: Tensor; // (B, Tq, Hq, D)
  kr: Tensor; // (B, Tq, Hkv, D)
  rstd: Tensor; // (B·Tq) residual-stream norms
  rstdQ: Tensor; // (B·Tq·Hq) q_norm
  rstdK: Tensor; // (B·Tq·Hkv) k_norm
  att: Tensor; // (B, Tq, Hq, D)
  lse: Tensor; // (B, Hq, Tq)
  gate: Tensor; // (B·Tq, F)
  up: Tensor; // (B·Tq, F)
  act: Tensor; // (B·Tq, F)
  last: Tensor; // (B, C) final-normed hidden state of each row's last real token
  logits: Tensor; // (B, V)
  loraXa?: Tensor; // (B·Tq, r) LoRA only: s·x·Aᵀ of one adapter at a time (allocated by the first LoRA call)
  headPart?: Tensor; // (B, rows of the largest part) a split LM head's per-part logits
}

export class Decoder {
  readonly cache: KvCache;
  private scratch = new Map<number, DecodeScratch>();

  constructor(
    private readonly rt: GpuRuntime,
    readonly w: GpuWeights,
    readonly B: number,
    readonly Tmax: number,
  ) {
    const { numLayers: L, numKvHeads: Hkv, headDim: D, maxPositionEmbeddings } = w.cfg;
    if (Tmax > maxPositionEmbeddings) throw new Error(`decoder: cache of ${Tmax} positions exceeds the model's maxPositionEmbeddings ${maxPositionEmbeddings}`);
    const mk = (kind: string, l: number) => rt.empty([B, Tmax, Hkv, D], 'f32', `${kind}cache${l}`);
    this.cache = { B, Tmax, k: Array.from({ length: L }, (_, l) => mk('k', l)), v: Array.from({ length: L }, (_, l) => mk('v', l)) };
  }

  private scratchFor(Tq: number): DecodeScratch {
    let s = this.scratch.get(Tq);
    if (s) return s;
    const { hiddenSize: C, vocabSize: V, numHeads: Hq, numKvHeads: Hkv, headDim: D, intermediateSize: F } = this.w.cfg;
    const B = this.B;
    const N = B * Tq;
    const e = (shape: number[], label: string, dtype: 'f32' | 'i32' = 'f32') => this.rt.empty(shape, dtype, `decode.${label}`);
    s = {
      tokens: e([B, Tq], 'tokens', 'i32'), positions: e([B, Tq], 'positions', 'i32'), pastLen: e([B], 'pastLen', 'i32'), lastRow: e([B], 'lastRow', 'i32'),
      x: e([N, C], 'x'), xn: e([N, C], 'xn'), q: e([N, Hq * D], 'q'), k: e([N, Hkv * D], 'k'), v: e([B, Tq, Hkv, D], 'v'),
      qn: e([N, Hq * D], 'qn'), kn: e([N, Hkv * D], 'kn'), qr: e([B, Tq, Hq, D], 'qr'), kr: e([B, Tq, Hkv, D], 'kr'),
      rstd: e([N], 'rstd'), rstdQ: e([N * Hq], 'rstdQ'), rstdK: e([N * Hkv], 'rstdK'), att: e([B, Tq, Hq, D], 'att'), lse: e([B, Hq, Tq], 'lse'),
      gate: e([N, F], 'gate'), up: e([N, F], 'up'), act: e([N, F], 'act'), last: e([B, C], 'last'), logits: e([B, V], 'logits'),
    };
    this.scratch.set(Tq, s);
    return s;
  }

  /**
   * Feeds Tq tokens per row (B, Tq) at positions pastLen[b] … pastLen[b] + Tq − 1, writing their
   * keys/values into the cache, and returns the logits (B, V) of token lastIndex[b] of each row
   * (rows shorter than Tq are right-padded; their padding is overwritten by later tokens).
   */
  async forward(tokens: Int32Array, pastLen: Int32Array, lastIndex: Int32Array): Promise<Float32Array> {
    const cfg = this.w.cfg;
    const { vocabSize: V, hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D, rmsNormEps: eps } = cfg;
    const B = this.B;
    const Tq = tokens.length / B;
    if (!Number.isInteger(Tq) || Tq < 1) throw new Error(`decoder: ${tokens.length} tokens is not a multiple of B = ${B}`);
    for (let b = 0; b < B; b++) {
      if (pastLen[b] + Tq > this.Tmax) throw new Error(`decoder: row ${b} would reach position ${pastLen[b] + Tq}, past the cache capacity ${this.Tmax}: raise maxNewTokens' cache or shorten the prompt`);
    }
    const rt = this.rt;
    const s = this.scratchFor(Tq);
    const N = B * Tq;
    rt.write(s.tokens, tokens);
    rt.write(s.positions, Int32Array.from({ length: N }, (_, i) => pastLen[Math.floor(i / Tq)] + (i % Tq)));
    rt.write(s.pastLen, pastLen);
    rt.write(s.lastRow, Int32Array.from({ length: B }, (_, b) => b * Tq + lastIndex[b]));
    const rope = { B, T: Tq, D, theta: cfg.ropeTheta, maxPosition: cfg.maxPositionEmbeddings };

    embedTokens(rt, this.w, reshape(s.tokens, [N]), N, s.x);
    const lora = this.w.lora;
    if (lora && s.loraXa?.size !== N * lora.rank) {
      rt.release(s.loraXa);
      s.loraXa = rt.empty([N, lora.rank], 'f32', 'decode.loraXa');
    }
    for (let l = 0; l < cfg.numLayers; l++) {
      const W = (x: string) => this.w.get(`model.layers.${l}.${x}`);
      // LoRA (adapters attached): y += s·(x·Aᵀ)·Bᵀ after the base projection; no-op for a plain model.
      const adapt = (target: LoraTarget, x: Tensor, y: Tensor) => {
        const ad = lora?.adapter(l, target);
        if (ad) loraForward(rt, ad, x, N, y, s.loraXa!);
      };
      rmsnormForward(rt, s.x, W('input_layernorm.weight'), { N, C, eps }, { out: s.xn, rstd: s.rstd });
      linearForward(rt, s.xn, W('self_attn.q_proj.weight'), N, C, Hq * D, s.q);
      adapt('q_proj', s.xn, s.q);
      linearForward(rt, s.xn, W('self_attn.k_proj.weight'), N, C, Hkv * D, s.k);
      adapt('k_proj', s.xn, s.k);
      linearForward(rt, s.xn, W('self_attn.v_proj.weight'), N, C, Hkv * D, reshape(s.v, [N, Hkv * D]));
      adapt('v_proj', s.xn, reshape(s.v, [N, Hkv * D]));
      rmsnormForward(rt, s.q, W('self_attn.q_norm.weight'), { N: N * Hq, C: D, eps }, { out: s.qn, rstd: s.rstdQ });
      rmsnormForward(rt, s.k, W('self_attn.k_norm.weight'), { N: N * Hkv, C: D, eps }, { out: s.kn, rstd: s.rstdK });
      ropeForward(rt, reshape(s.qn, [B, Tq, Hq, D]), s.positions, { ...rope, H: Hq }, s.qr);
      ropeForward(rt, reshape(s.kn, [B, Tq, Hkv, D]), s.positions, { ...rope, H: Hkv }, s.kr);
      cacheWrite(rt, s.kr, s.pastLen, this.cache.k[l], { B, Tq, Tmax: this.Tmax, H: Hkv, D });
      cacheWrite(rt, s.v, s.pastLen, this.cache.v[l], { B, Tq, Tmax: this.Tmax, H: Hkv, D });
      attentionDecode(rt, s.qr, this.cache.k[l], this.cache.v[l], { B, Tq, Tmax: this.Tmax, Hq, Hkv, D, pastLen: s.pastLen }, { out: s.att, lse: s.lse });
      linearForward(rt, reshape(s.att, [N, Hq * D]), W('self_attn.o_proj.weight'), N, Hq * D, C, s.xn);
      adapt('o_proj', reshape(s.att, [N, Hq * D]), s.xn);
      accumulate(rt, s.x, s.xn); // x = x + o
      rmsnormForward(rt, s.x, W('post_attention_layernorm.weight'), { N, C, eps }, { out: s.xn, rstd: s.rstd });
      linearForward(rt, s.xn, W('mlp.gate_proj.weight'), N, C, F, s.gate);
      adapt('gate_proj', s.xn, s.gate);
      linearForward(rt, s.xn, W('mlp.up_proj.weight'), N, C, F, s.up);
      adapt('up_proj', s.xn, s.up);
      swigluForward(rt, s.gate, s.up, s.act);
      linearForward(rt, s.act, W('mlp.down_proj.weight'), N, F, C, s.xn);
      adapt('down_proj', s.act, s.xn);
      accumulate(rt, s.x, s.xn); // x = x + mlp
    }
    rmsnormForward(rt, s.x, this.w.get('model.norm.weight'), { N, C, eps }, { out: s.xn, rstd: s.rstd });
    // Pick each row's last real token (an embedding lookup into the (N, C) hidden states).
    embeddingForward(rt, s.lastRow, s.xn, { N: B, V: N, C }, s.last);
    s.headPart = headPartScratch(rt, this.w, B, s.headPart);
    headForward(rt, this.w, s.last, B, s.logits, s.headPart);
    return rt.readF32(s.logits);
  }

  /** Fills this cache's row b with row rowOf[b] of `from`'s cache (same model and Tmax): a prefill shared by identical prompts. */
  copyCacheRows(from: Decoder, rowOf: Int32Array): void {
    if (from.Tmax !== this.Tmax || from.w.cfg !== this.w.cfg || rowOf.length !== this.B) throw new Error(`decoder: copyCacheRows needs the same model and Tmax and one source row per row (${rowOf.length} for ${this.B})`);
    const { numKvHeads: Hkv, headDim: D } = this.w.cfg;
    const rowSize = this.Tmax * Hkv * D;
    for (let l = 0; l < this.cache.k.length; l++) {
      for (let b = 0; b < this.B; b++) {
        if (rowOf[b] < 0 || rowOf[b] >= from.B) throw new Error(`decoder: copyCacheRows source row ${rowOf[b]} is outside [0, ${from.B})`);
        this.rt.copyRange(from.cache.k[l], rowOf[b] * rowSize, this.cache.k[l], b * rowSize, rowSize);
        this.rt.copyRange(from.cache.v[l], rowOf[b] * rowSize, this.cache.v[l], b * rowSize, rowSize);
      }
    }
  }

  destroy(): void {
    this.rt.release(...this.cache.k, ...this.cache.v);
    for (const s of this.scratch.values()) this.rt.release(...Object.values(s)); // includes loraXa when allocated
    this.scratch.clear();
  }
}
