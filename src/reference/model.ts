// Float64 reference Qwen3 model: forward that saves activations, hand-written backward for every
// parameter, and the masked next-token loss — built only from ./ops (no duplicated math).
// Legend (src/model/config.ts): B batch, T time, N = B·T tokens, C hidden, V vocab, L layers,
// Hq query heads, Hkv kv heads, D head dim, F MLP width. Linear: y = x·Wᵀ with W (out, in).
import type { ModelConfig } from '../model/config';
import {
  addBackward, addForward, attentionBackward, attentionForward, crossEntropyBackward, crossEntropyForward,
  embeddingBackward, embeddingForward, matmulBackward, matmulForward, rmsnormBackward, rmsnormForward,
  ropeBackward, ropeForward, ropePositions, swigluBackward, swigluForward,
  type AttentionSpec, type MatmulSpec, type RopeSpec,
} from './ops';
import {
  getParameter, layerParamName, lmHeadName, referenceParameterShapes, shapeSize, type ReferenceParameters,
} from './modelParams';

export interface ReferenceForwardOptions {
  /** (B, T) absolute RoPE positions; default 0…T−1 per row. Packed sequences should restart them per segment. */
  positions?: Int32Array;
  /** (B, T) attention segments (see AttentionSpec.segments); default: one causal sequence per row. */
  segments?: Int32Array;
}

/** Activations one decoder layer saves for its backward. */
interface LayerCache {
  x: Float64Array; // (N, C) layer input (residual stream)
  xn1: Float64Array; // (N, C) input_layernorm(x)
  rstd1: Float64Array; // (N)
  q: Float64Array; // (N, Hq·D) q_proj output
  k: Float64Array; // (N, Hkv·D)
  v: Float64Array; // (N, Hkv·D)
  qRstd: Float64Array; // (N·Hq) q_norm
  kRstd: Float64Array; // (N·Hkv) k_norm
  qr: Float64Array; // (B, T, Hq, D) rope(q_norm(q))
  kr: Float64Array; // (B, T, Hkv, D) rope(k_norm(k))
  att: Float64Array; // (B, T, Hq, D) attention output
  lse: Float64Array; // (B, Hq, T)
  h: Float64Array; // (N, C) x + o_proj(att)
  xn2: Float64Array; // (N, C) post_attention_layernorm(h)
  rstd2: Float64Array; // (N)
  gate: Float64Array; // (N, F)
  up: Float64Array; // (N, F)
  act: Float64Array; // (N, F) silu(gate)·up
}

/** Everything referenceBackward needs. */
export interface ReferenceCache {
  B: number;
  T: number;
  inputIds: Int32Array; // (B, T)
  rope: Omit<RopeSpec, 'H'>;
  attention: AttentionSpec;
  layers: LayerCache[];
  xFinal: Float64Array; // (N, C) last layer output
  xnFinal: Float64Array; // (N, C) model.norm(xFinal)
  rstdFinal: Float64Array; // (N)
}

/** HF Linear y = x·Wᵀ as a matmul spec: x (rows, inF), W (outF, inF), y (rows, outF). */
function linearSpec(rows: number, inF: number, outF: number): MatmulSpec {
  return { batch: 1, M: rows, K: inF, N: outF, transA: false, transB: true };
}

export function referenceForward(
  cfg: ModelConfig,
  params: ReferenceParameters,
  inputIds: Int32Array, // (B, T)
  B: number,
  T: number,
  opts: ReferenceForwardOptions = {},
): { logits: Float64Array; cache: ReferenceCache } {
  const { vocabSize: V, hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D, rmsNormEps: eps } = cfg;
  referenceParameterShapes(cfg); // validates the config
  const N = B * T;
  if (inputIds.length !== N) throw new Error(`referenceForward: inputIds has ${inputIds.length} values, needs B·T = ${N}`);
  const P = (name: string, size: number) => getParameter(params, name, size);
  const rope = { B, T, D, theta: cfg.ropeTheta, positions: opts.positions ?? ropePositions(B, T) };
  const attention: AttentionSpec = { B, T, Hq, Hkv, D, segments: opts.segments };

  let x = embeddingForward(inputIds, P('model.embed_tokens.weight', V * C), V, C); // (N, C)
  const layers: LayerCache[] = [];
  for (let l = 0; l < cfg.numLayers; l++) {
    const W = (suffix: string, size: number) => P(layerParamName(l, suffix), size);
    const { out: xn1, rstd: rstd1 } = rmsnormForward(x, W('input_layernorm.weight', C), N, C, eps);
    const q = matmulForward(xn1, W('self_attn.q_proj.weight', Hq * D * C), linearSpec(N, C, Hq * D)); // (N, Hq·D)
    const k = matmulForward(xn1, W('self_attn.k_proj.weight', Hkv * D * C), linearSpec(N, C, Hkv * D)); // (N, Hkv·D)
    const v = matmulForward(xn1, W('self_attn.v_proj.weight', Hkv * D * C), linearSpec(N, C, Hkv * D)); // (N, Hkv·D)
    const qn = rmsnormForward(q, W('self_attn.q_norm.weight', D), N * Hq, D, eps); // per head over D
    const kn = rmsnormForward(k, W('self_attn.k_norm.weight', D), N * Hkv, D, eps);
    const qr = ropeForward(qn.out, { ...rope, H: Hq }); // (B, T, Hq, D)
    const kr = ropeForward(kn.out, { ...rope, H: Hkv }); // (B, T, Hkv, D)
    const { out: att, lse } = attentionForward(qr, kr, v, attention);
    const o = matmulForward(att, W('self_attn.o_proj.weight', C * Hq * D), linearSpec(N, Hq * D, C)); // (N, C)
    const h = addForward(x, o); // (N, C)
    const { out: xn2, rstd: rstd2 } = rmsnormForward(h, W('post_attention_layernorm.weight', C), N, C, eps);
    const gate = matmulForward(xn2, W('mlp.gate_proj.weight', F * C), linearSpec(N, C, F)); // (N, F)
    const up = matmulForward(xn2, W('mlp.up_proj.weight', F * C), linearSpec(N, C, F)); // (N, F)
    const act = swigluForward(gate, up); // (N, F)
    const down = matmulForward(act, W('mlp.down_proj.weight', C * F), linearSpec(N, F, C)); // (N, C)
    layers.push({ x, xn1, rstd1, q, k, v, qRstd: qn.rstd, kRstd: kn.rstd, qr, kr, att, lse, h, xn2, rstd2, gate, up, act });
    x = addForward(h, down);
  }
  const { out: xnFinal, rstd: rstdFinal } = rmsnormForward(x, P('model.norm.weight', C), N, C, eps);
  const logits = matmulForward(xnFinal, P(lmHeadName(cfg), V * C), linearSpec(N, C, V)); // (B, T, V)
  return { logits, cache: { B, T, inputIds, rope, attention, layers, xFinal: x, xnFinal, rstdFinal } };
}

/**
 * Gradients of every parameter (HF names, same shapes) given dL/dlogits (B, T, V). With `only`,
 * just those parameters' gradients are formed (the others come back as zeros): at a Qwen3-size
 * vocabulary the embedding and LM-head gradients are 1.2 GB each in float64, and LoRA needs neither.
 */
export function referenceBackward(
  cfg: ModelConfig,
  params: ReferenceParameters,
  cache: ReferenceCache,
  dlogits: Float64Array, // (B, T, V)
  only?: ReadonlySet<string>,
): ReferenceParameters {
  const want = (name: string) => !only || only.has(name);
  const { vocabSize: V, hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D } = cfg;
  const { B, T, rope, attention } = cache;
  const N = B * T;
  if (dlogits.length !== N * V) throw new Error(`referenceBackward: dlogits has ${dlogits.length} values, needs B·T·V = ${N * V}`);
  const P = (name: string) => params.get(name) as Float64Array; // sizes were checked by the forward
  const grads: ReferenceParameters = new Map();
  const accumulate = (name: string, g: Float64Array) => {
    const prev = grads.get(name);
    if (!prev) grads.set(name, g);
    else for (let i = 0; i < g.length; i++) prev[i] += g[i];
  };

  // forward: logits = xnFinal · lm_headᵀ
  let dxnFinal: Float64Array;
  if (want(lmHeadName(cfg))) {
    const head = matmulBackward(dlogits, cache.xnFinal, P(lmHeadName(cfg)), linearSpec(N, C, V));
    accumulate(lmHeadName(cfg), head.db);
    dxnFinal = head.da;
  } else {
    dxnFinal = linearInputGradient(dlogits, P(lmHeadName(cfg)), N, C, V);
  }
  // forward: xnFinal = rmsnorm(xFinal, model.norm)
  const fin = rmsnormBackward(dxnFinal, cache.xFinal, P('model.norm.weight'), cache.rstdFinal, N, C);
  accumulate('model.norm.weight', fin.dw);
  let dx = fin.dx; // (N, C) gradient of the residual stream

  for (let l = cfg.numLayers - 1; l >= 0; l--) {
    const c = cache.layers[l];
    const name = (suffix: string) => layerParamName(l, suffix);
    const W = (suffix: string) => P(name(suffix));
    // forward: out = h + down
    const res2 = addBackward(dx);
    // forward: down = act · down_projᵀ
    const dDown = matmulBackward(res2.db, c.act, W('mlp.down_proj.weight'), linearSpec(N, F, C));
    accumulate(name('mlp.down_proj.weight'), dDown.db);
    // forward: act = silu(gate) · up
    const dAct = swigluBackward(dDown.da, c.gate, c.up);
    // forward: gate = xn2 · gate_projᵀ;  up = xn2 · up_projᵀ
    const dGate = matmulBackward(dAct.dgate, c.xn2, W('mlp.gate_proj.weight'), linearSpec(N, C, F));
    const dUp = matmulBackward(dAct.dup, c.xn2, W('mlp.up_proj.weight'), linearSpec(N, C, F));
    accumulate(name('mlp.gate_proj.weight'), dGate.db);
    accumulate(name('mlp.up_proj.weight'), dUp.db);
    // forward: xn2 = rmsnorm(h, post_attention_layernorm)
    const dXn2 = addForward(dGate.da, dUp.da);
    const ln2 = rmsnormBackward(dXn2, c.h, W('post_attention_layernorm.weight'), c.rstd2, N, C);
    accumulate(name('post_attention_layernorm.weight'), ln2.dw);
    const dh = addForward(res2.da, ln2.dx); // h feeds both the residual and the norm
    // forward: h = x + o
    const res1 = addBackward(dh);
    // forward: o = att · o_projᵀ
    const dO = matmulBackward(res1.db, c.att, W('self_attn.o_proj.weight'), linearSpec(N, Hq * D, C));
    accumulate(name('self_attn.o_proj.weight'), dO.db);
    // forward: att, lse = attention(qr, kr, v)
    const dAtt = attentionBackward(dO.da, c.qr, c.kr, c.v, c.att, c.lse, attention);
    // forward: qr = rope(q_norm(q));  kr = rope(k_norm(k))
    const dqn = ropeBackward(dAtt.dq, { ...rope, H: Hq });
    const dkn = ropeBackward(dAtt.dk, { ...rope, H: Hkv });
    const qNorm = rmsnormBackward(dqn, c.q, W('self_attn.q_norm.weight'), c.qRstd, N * Hq, D);
    const kNorm = rmsnormBackward(dkn, c.k, W('self_attn.k_norm.weight'), c.kRstd, N * Hkv, D);
    accumulate(name('self_attn.q_norm.weight'), qNorm.dw);
    accumulate(name('self_attn.k_norm.weight'), kNorm.dw);
    // forward: q = xn1 · q_projᵀ;  k = xn1 · k_projᵀ;  v = xn1 · v_projᵀ
    const dQ = matmulBackward(qNorm.dx, c.xn1, W('self_attn.q_proj.weight'), linearSpec(N, C, Hq * D));
    const dK = matmulBackward(kNorm.dx, c.xn1, W('self_attn.k_proj.weight'), linearSpec(N, C, Hkv * D));
    const dV = matmulBackward(dAtt.dv, c.xn1, W('self_attn.v_proj.weight'), linearSpec(N, C, Hkv * D));
    accumulate(name('self_attn.q_proj.weight'), dQ.db);
    accumulate(name('self_attn.k_proj.weight'), dK.db);
    accumulate(name('self_attn.v_proj.weight'), dV.db);
    // forward: xn1 = rmsnorm(x, input_layernorm)
    const dXn1 = addForward(addForward(dQ.da, dK.da), dV.da);
    const ln1 = rmsnormBackward(dXn1, c.x, W('input_layernorm.weight'), c.rstd1, N, C);
    accumulate(name('input_layernorm.weight'), ln1.dw);
    dx = addForward(res1.da, ln1.dx); // x feeds both the residual and the norm
  }
  // forward: x0 = embed_tokens[inputIds]  (tied: adds to the LM-head gradient accumulated above)
  if (want('model.embed_tokens.weight')) accumulate('model.embed_tokens.weight', embeddingBackward(dx, cache.inputIds, V, C));

  // Return in planning order, so callers iterating the map see referenceParameterShapes' order.
  const ordered: ReferenceParameters = new Map();
  for (const { name, shape } of referenceParameterShapes(cfg)) {
    if (want(name)) ordered.set(name, grads.get(name) ?? new Float64Array(shapeSize(shape)));
  }
  return ordered;
}

/** dx (N, in) = dy (N, out) · W (out, in), rows of W read contiguously (the LM head's 151 936 rows). */
function linearInputGradient(dy: Float64Array, W: Float64Array, N: number, inF: number, outF: number): Float64Array {
  const dx = new Float64Array(N * inF);
  for (let n = 0; n < N; n++) {
    for (let o = 0; o < outF; o++) {
      const g = dy[n * outF + o];
      if (g === 0) continue;
      const row = o * inF;
      for (let i = 0; i < inF; i++) dx[n * inF + i] += g * W[row + i];
    }
  }
  return dx;
}

/** Mean next-token cross-entropy over mask (Σ mask·(−logp) / max(Σ mask, 1)) and every parameter gradient. */
export function referenceLoss(
  cfg: ModelConfig,
  params: ReferenceParameters,
  inputIds: Int32Array, // (B, T)
  targets: Int32Array, // (B, T)
  mask: Float64Array, // (B, T) 0/1 or weights
  B: number,
  T: number,
  opts: ReferenceForwardOptions & { only?: ReadonlySet<string> } = {},
): { loss: number; logits: Float64Array; grads: ReferenceParameters } {
  const V = cfg.vocabSize;
  const N = B * T;
  const { logits, cache } = referenceForward(cfg, params, inputIds, B, T, opts);
  const { loss, lse } = crossEntropyForward(logits, targets, mask, N, V);
  const dlogits = crossEntropyBackward(logits, targets, mask, lse, N, V);
  return { loss, logits, grads: referenceBackward(cfg, params, cache, dlogits, opts.only) };
}
