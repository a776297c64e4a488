// The Qwen3 decoder as an ONNX model (opset 17, float32, standard ops only), the same math as
// src/model/forward.ts:
//   x = embed[input_ids]; per layer:
//     h = x + o_proj(attn(rope(q_norm(q_proj(rms(x)))), rope(k_norm(k_proj(rms(x)))), v_proj(rms(x))))
//     x = h + down_proj(silu(gate_proj(rms(h))) · up_proj(rms(h)))
//   logits = lm_head(rms(x))  (the embedding matrix when tied)
// Inputs: input_ids (int64 [batch, sequence]) always; attention_mask (int64 [batch, past+sequence],
// 1 = attend, 0 = padding) and position_ids (int64 [batch, sequence]) when chosen at export:
// ONNX Runtime Web requires every graph input to be fed, so "optional" means "chosen at export";
// without them the mask is causal only and positions are past…past+sequence−1.
// KV-cache variant (Optimum's names): inputs past_key_values.{l}.key/value (float [batch, Hkv,
// past, D], past may be 0), outputs present.{l}.key/value (float [batch, Hkv, past+sequence, D]).
// Legend: B batch, S sequence, P past, T = P + S, C hidden, V vocab, Hq/Hkv heads, D head dim.
import type { ModelConfig } from '../../../model/config';
import type { ModelParams } from '../../../model/checkpointIO';
import { parameterTable } from '../../../model/parameters';
import { GraphBuilder } from './graphBuilder';
import { encodeModel, ONNX_FLOAT, ONNX_INT64 } from './onnxProto';

export interface DecoderOnnxOptions {
  /** Add the attention_mask input (padding). */
  attentionMask?: boolean;
  /** Add the position_ids input (packed or left-padded rows). */
  positionIds?: boolean;
  /** Add past_key_values inputs and present outputs (incremental decoding). */
  kvCache?: boolean;
  /**
   * Weights in an external-data file beside the model: true, false, or 'auto' (default: only when
   * they would pass ONNX_INLINE_LIMIT — protobuf caps one message at 2 GiB).
   */
  externalData?: boolean | 'auto';
  /** The external-data file's name, relative to the .onnx file (default "model.onnx.data"). */
  dataFile?: string;
  /** 'auto' switches to external data above this many weight bytes (default ONNX_INLINE_LIMIT). */
  inlineLimitBytes?: number;
}

/** Weight bytes above which 'auto' writes external data: under protobuf's 2 GiB message cap with room for the graph. */
export const ONNX_INLINE_LIMIT = 1.9 * 2 ** 30;
/** Initializers of at least this size go to the external-data file (shape constants stay inline). */
const EXTERNAL_MIN_BYTES = 1024;

/** The decoder as ONNX: the model file, and the external-data file when its weights live outside it. */
export interface DecoderOnnxFiles {
  model: Uint8Array;
  /** Raw tensor bytes in parts (never one ArrayBuffer: a 0.6B model's are 2.4 GiB in f32). */
  data?: { path: string; parts: Uint8Array[]; bytes: number };
}

/** Additive mask value: exp underflows to 0, and a fully masked row stays finite (no NaN). */
const MASKED = -1e9;
export const ONNX_OPSET = 17;
export const ONNX_IR_VERSION = 8;

/** W (out, in) row-major → Wᵀ (in, out), so MatMul(x, Wᵀ) = x·Wᵀ as HF's Linear. */
function transpose(w: Float32Array, out: number, inF: number): Float32Array {
  const t = new Float32Array(w.length);
  for (let o = 0; o < out; o++) for (let i = 0; i < inF; i++) t[i * out + o] = w[o * inF + i];
  return t;
}

/** cos and sin of pos · θ^(−2i/D), tables (maxPos, D/2), computed in float64 like the reference. */
function ropeTables(cfg: ModelConfig): { cos: Float32Array; sin: Float32Array } {
  const half = cfg.headDim / 2;
  const n = cfg.maxPositionEmbeddings;
  const cos = new Float32Array(n * half);
  const sin = new Float32Array(n * half);
  for (let p = 0; p < n; p++) {
    for (let i = 0; i < half; i++) {
      const angle = p * Math.pow(cfg.ropeTheta, (-2 * i) / cfg.headDim);
      cos[p * half + i] = Math.cos(angle);
      sin[p * half + i] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

/** The decoder as an ONNX ModelProto object (encode with encodeModel, or use decoderOnnx for bytes). */
export function decoderOnnxModel(cfg: ModelConfig, params: ModelParams, opts: DecoderOnnxOptions = {}, g = new GraphBuilder()): Record<string, unknown> {
  const { vocabSize: V, hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D, rmsNormEps: eps } = cfg;
  const rep = Hq / Hkv;
  const P = (name: string) => {
    const v = params.get(name);
    if (!v) throw new Error(`ONNX export: parameter '${name}' is missing`);
    return v;
  };
  for (const p of parameterTable(cfg)) if (P(p.name).length !== p.shape.reduce((a, b) => a * b, 1)) throw new Error(`ONNX export: '${p.name}' does not have shape [${p.shape.join(', ')}]`);
  const linear = (name: string, out: number, inF: number) => g.initF32(`${name}.T`, [inF, out], transpose(P(name), out, inF));
  const weight = (name: string, dims: number[]) => g.initF32(name, dims, P(name));

  const ids = g.input('input_ids', ONNX_INT64, ['batch', 'sequence']);
  const pastLen = 'past_sequence';
  const totalLen = opts.kvCache ? 'past_sequence + sequence' : 'sequence';
  const mask = opts.attentionMask ? g.input('attention_mask', ONNX_INT64, ['batch', totalLen]) : null;
  const posIn = opts.positionIds ? g.input('position_ids', ONNX_INT64, ['batch', 'sequence']) : null;
  const past = opts.kvCache
    ? Array.from({ length: cfg.numLayers }, (_, l) => ({
      key: g.input(`past_key_values.${l}.key`, ONNX_FLOAT, ['batch', Hkv, pastLen, D]),
      value: g.input(`past_key_values.${l}.value`, ONNX_FLOAT, ['batch', Hkv, pastLen, D]),
    }))
    : null;

  // lengths: S from input_ids, P from the first past key (0 without a cache), T = P + S
  const S = g.node('Gather', [g.node('Shape', [ids]), g.i64([1], true)], { axis: 0 });
  const Pn = past ? g.node('Gather', [g.node('Shape', [past[0].key]), g.i64([2], true)], { axis: 0 }) : g.i64([0], true);
  const T = g.node('Add', [Pn, S]);
  const one = g.i64([1], true);
  const positions = posIn ?? g.node('Unsqueeze', [g.node('Range', [Pn, T, one]), g.i64([0])]); // (B|1, S)

  // rotary tables gathered at the positions: (B|1, S, 1, D/2), broadcast over heads
  const tables = ropeTables(cfg);
  const half = D / 2;
  const cosT = g.initF32('rope.cos', [cfg.maxPositionEmbeddings, half], tables.cos);
  const sinT = g.initF32('rope.sin', [cfg.maxPositionEmbeddings, half], tables.sin);
  const cos = g.node('Unsqueeze', [g.node('Gather', [cosT, positions], { axis: 0 }), g.i64([2])]);
  const sin = g.node('Unsqueeze', [g.node('Gather', [sinT, positions], { axis: 0 }), g.i64([2])]);

  // additive attention bias: causal (key index > query index → masked), plus padding keys: (B|1, 1, S, T)
  const qIdx = g.node('Unsqueeze', [g.node('Range', [Pn, T, one]), g.i64([1])]); // (S, 1)
  const kIdx = g.node('Unsqueeze', [g.node('Range', [g.i64([0], true), T, one]), g.i64([0])]); // (1, T)
  const zero = g.f32(0);
  const masked = g.f32(MASKED);
  let bias = g.node('Where', [g.node('Greater', [kIdx, qIdx]), masked, zero]); // (S, T)
  if (mask) {
    const pad = g.node('Unsqueeze', [g.node('Equal', [mask, g.i64([0], true)]), g.i64([1, 2])]); // (B, 1, 1, T)
    bias = g.node('Add', [bias, g.node('Where', [pad, masked, zero])]);
  }

  const rms = (x: string, w: string) => {
    const meanSq = g.node('ReduceMean', [g.node('Mul', [x, x])], { axes: [-1], keepdims: 1 });
    return g.node('Mul', [g.node('Mul', [x, g.node('Reciprocal', [g.node('Sqrt', [g.node('Add', [meanSq, g.f32(eps)])])])]), w]);
  };
  const rope = (x: string) => { // x (B, S, H, D): rotate_half convention
    const [x1, x2] = g.nodeN('Split', [x, g.i64([half, half])], 2, { axis: -1 });
    const o1 = g.node('Sub', [g.node('Mul', [x1, cos]), g.node('Mul', [x2, sin])]);
    const o2 = g.node('Add', [g.node('Mul', [x2, cos]), g.node('Mul', [x1, sin])]);
    return g.node('Concat', [o1, o2], { axis: -1 });
  };
  const heads = (x: string, H: number) => g.node('Transpose', [g.node('Reshape', [x, g.i64([0, 0, H, D])])], { perm: [0, 2, 1, 3] }); // (B, H, S, D)

  let x = g.node('Gather', [weight('model.embed_tokens.weight', [V, C]), ids], { axis: 0 }); // (B, S, C)
  const scale = g.f32(1 / Math.sqrt(D));
  for (let l = 0; l < cfg.numLayers; l++) {
    const p = `model.layers.${l}`;
    const h = rms(x, weight(`${p}.input_layernorm.weight`, [C]));
    const q = g.node('Reshape', [g.node('MatMul', [h, linear(`${p}.self_attn.q_proj.weight`, Hq * D, C)]), g.i64([0, 0, Hq, D])]);
    const k = g.node('Reshape', [g.node('MatMul', [h, linear(`${p}.self_attn.k_proj.weight`, Hkv * D, C)]), g.i64([0, 0, Hkv, D])]);
    const qr = g.node('Transpose', [rope(rms(q, weight(`${p}.self_attn.q_norm.weight`, [D])))], { perm: [0, 2, 1, 3] }); // (B, Hq, S, D)
    let kr = g.node('Transpose', [rope(rms(k, weight(`${p}.self_attn.k_norm.weight`, [D])))], { perm: [0, 2, 1, 3] }); // (B, Hkv, S, D)
    let v = heads(g.node('MatMul', [h, linear(`${p}.self_attn.v_proj.weight`, Hkv * D, C)]), Hkv);
    if (past) {
      kr = g.named(`present.${l}.key`, 'Concat', [past[l].key, kr], { axis: 2 }); // (B, Hkv, T, D)
      v = g.named(`present.${l}.value`, 'Concat', [past[l].value, v], { axis: 2 });
    }
    // grouped-query attention without copying K/V: the rep query heads of a KV head become rows
    const qg = g.node('Reshape', [qr, g.i64([0, Hkv, -1, D])]); // (B, Hkv, rep·S, D)
    const scores = g.node('Mul', [g.node('MatMul', [qg, g.node('Transpose', [kr], { perm: [0, 1, 3, 2] })]), scale]); // (B, Hkv, rep·S, T)
    const probs = g.node('Softmax', [g.node('Add', [g.node('Reshape', [scores, g.i64([0, Hq, -1, 0])]), bias])], { axis: -1 }); // (B, Hq, S, T)
    const att = g.node('MatMul', [g.node('Reshape', [probs, g.i64([0, Hkv, -1, 0])]), v]); // (B, Hkv, rep·S, D)
    const merged = g.node('Reshape', [g.node('Transpose', [g.node('Reshape', [att, g.i64([0, Hq, -1, D])])], { perm: [0, 2, 1, 3] }), g.i64([0, 0, Hq * D])]);
    const hRes = g.node('Add', [x, g.node('MatMul', [merged, linear(`${p}.self_attn.o_proj.weight`, C, Hq * D)])]);
    const h2 = rms(hRes, weight(`${p}.post_attention_layernorm.weight`, [C]));
    const gate = g.node('MatMul', [h2, linear(`${p}.mlp.gate_proj.weight`, F, C)]);
    const up = g.node('MatMul', [h2, linear(`${p}.mlp.up_proj.weight`, F, C)]);
    const act = g.node('Mul', [g.node('Mul', [gate, g.node('Sigmoid', [gate])]), up]);
    x = g.node('Add', [hRes, g.node('MatMul', [act, linear(`${p}.mlp.down_proj.weight`, C, F)])]);
  }
  const xn = rms(x, weight('model.norm.weight', [C]));
  const head = cfg.tieWordEmbeddings ? g.node('Transpose', ['model.embed_tokens.weight'], { perm: [1, 0] }) : linear('lm_head.weight', V, C);
  g.named('logits', 'MatMul', [xn, head]);
  g.output('logits', ONNX_FLOAT, ['batch', 'sequence', V]);
  if (past) {
    for (let l = 0; l < cfg.numLayers; l++) {
      g.output(`present.${l}.key`, ONNX_FLOAT, ['batch', Hkv, totalLen, D]);
      g.output(`present.${l}.value`, ONNX_FLOAT, ['batch', Hkv, totalLen, D]);
    }
  }
  if (rep !== Math.floor(rep)) throw new Error('ONNX export: numKvHeads must divide numHeads');
  return g.model({
    graphName: 'qwen3_decoder', opset: ONNX_OPSET, irVersion: ONNX_IR_VERSION, producerVersion: '0.1.0',
    metadata: { model_type: 'qwen3', tokenizer: cfg.tokenizer, config: JSON.stringify(cfg) },
  });
}

function weightBytes(params: ModelParams): number {
  let total = 0;
  for (const v of params.values()) total += v.byteLength;
  return total;
}

/** The decoder's ONNX files: weights inline, or (externalData) in a data file the model points to by name and offset. */
export function decoderOnnxFiles(cfg: ModelConfig, params: ModelParams, opts: DecoderOnnxOptions = {}): DecoderOnnxFiles {
  const limit = opts.inlineLimitBytes ?? ONNX_INLINE_LIMIT;
  const external = opts.externalData === true || ((opts.externalData ?? 'auto') === 'auto' && weightBytes(params) > limit);
  if (!external) {
    const total = weightBytes(params);
    if (total > ONNX_INLINE_LIMIT) throw new Error(`ONNX export: ${(total / 2 ** 30).toFixed(2)} GiB of weights exceed protobuf's 2 GiB message limit inline; export with external data (externalData 'auto' or true: a model.onnx.data file beside the model)`);
    return { model: encodeModel(decoderOnnxModel(cfg, params, opts)) };
  }
  const path = opts.dataFile ?? 'model.onnx.data';
  if (!/^[^/\\]+$/.test(path)) throw new Error(`ONNX export: the data file name '${path}' must be a plain file name (it is stored relative to the .onnx file)`);
  const g = new GraphBuilder({ location: path, minBytes: EXTERNAL_MIN_BYTES });
  const model = encodeModel(decoderOnnxModel(cfg, params, opts, g));
  return { model, data: { path, parts: g.externalParts, bytes: g.externalDataBytes } };
}

/** ONNX bytes of the decoder with its weights inline (models under ONNX_INLINE_LIMIT; larger ones: decoderOnnxFiles). */
export function decoderOnnx(cfg: ModelConfig, params: ModelParams, opts: DecoderOnnxOptions = {}): Uint8Array {
  return decoderOnnxFiles(cfg, params, { ...opts, externalData: false }).model;
}
