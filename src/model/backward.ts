// Training backward of the Qwen3 decoder on the GPU, layer by layer in reverse (llm.c style).
// Each step restates the forward line it differentiates. Parameter gradients ACCUMULATE into
// w.grads (zero them with w.zeroGrads() at the start of an accumulation window).
// LoRA (w.lora attached): the base weights are frozen, so every base weight-gradient matmul (and
// the embedding/norm weight gradients' accumulation) is skipped; each adapted projection adds its
// adapter's part of dx and accumulates dA, dB (./lora loraBackward).
// Legend: B batch, T time, N = B·T, C hidden, V vocab, Hq/Hkv heads, D head dim, F MLP width.
import type { GpuRuntime } from '../gpu/runtime';
import { reshape, type Tensor } from '../gpu/tensor';
import { attentionBackward } from '../ops/attention';
import { accumulate, swigluBackward } from '../ops/elementwise';
import { rmsnormBackward } from '../ops/rmsnorm';
import { ropeBackward } from '../ops/rope';
import { type Activations, type BackwardScratch, loraXa, planLoraScratch } from './activations';
import { embedTokensBackward } from './embedTokens';
import { layerForward } from './forward';
import { linearBackwardInput, linearBackwardWeight } from './linear';
import { headBackwardFromLogp } from './lmHead';
import { loraBackward } from './lora';
import type { LoraTarget } from './parameters';
import type { GpuWeights } from './weights';

/**
 * Backward from per-token weights acts.dlogp (N) = dLoss/dlogp[n] (SFT: −mask/Σmask; GRPO: the
 * policy-gradient coefficients). Overwrites acts.logits with dlogits. A recomputing plan re-runs
 * each layer's forward from its saved input right before that layer's backward.
 */
export function modelBackward(rt: GpuRuntime, w: GpuWeights, acts: Activations, s: BackwardScratch): void {
  const cfg = w.cfg;
  const { hiddenSize: C, intermediateSize: F, numHeads: Hq, numKvHeads: Hkv, headDim: D, rmsNormEps: eps } = cfg;
  const { B, T } = acts;
  const N = B * T;
  const rope = { B, T, D, theta: cfg.ropeTheta, maxPosition: cfg.maxPositionEmbeddings };
  const attn = { B, T, Hq, Hkv, D, segments: acts.segments };
  const dW = (o: number, i: number): Tensor => {
    const t = s.dW.get(`${o}×${i}`);
    if (!t) throw new Error('modelBackward: the backward scratch was planned for LoRA (no weight-gradient scratch); plan it without lora to train the base weights');
    return t;
  };
  const lora = w.lora;
  const frozen = lora !== undefined; // base weights get no gradients
  if (lora && s.lora?.g.size !== N * lora.rank) {
    if (s.lora) rt.release(s.lora.g, s.lora.normDwC, s.lora.normDwD);
    s.lora = planLoraScratch(rt, cfg, N, lora.rank);
  }
  // rmsnorm's dw output: the gradient, or (frozen) a discarded sink of the right size.
  const normDw = (name: string, size: number) => (frozen
    ? { dw: size === C ? s.lora!.normDwC : s.lora!.normDwD, accumulateDw: false }
    : { dw: w.grad(name), accumulateDw: true });

  // forward: logp = log_softmax(xnFinal · headᵀ)[target]  ⇒ d(xnFinal), d(head) (./lmHead: any
  // number of row parts; a chunked plan recomputes each chunk's logits first)
  headBackwardFromLogp(rt, w, acts, s.dxn, frozen);
  // forward: xnFinal = rmsnorm(xFinal, model.norm)
  rmsnormBackward(rt, s.dxn, acts.xFinal, w.get('model.norm.weight'), acts.rstdFinal, { N, C, eps }, { dx: s.dx, ...normDw('model.norm.weight', C) });

  for (let l = cfg.numLayers - 1; l >= 0; l--) {
    // activation checkpointing: refill the shared activations of layer l from its saved input
    if (acts.recompute) layerForward(rt, w, acts, l, true);
    const a = acts.layers[l];
    const name = (x: string) => `model.layers.${l}.${x}`;
    const W = (x: string) => w.get(name(x));
    const G = (x: string) => w.grad(name(x));
    // LoRA: dx += s·(dy·B)·A right after dx = dy·W, and dA, dB accumulate; no-op for a plain model.
    const adapt = (target: LoraTarget, dy: Tensor, x: Tensor, dx: Tensor) => {
      const ad = lora?.adapter(l, target);
      if (ad) loraBackward(rt, ad, dy, x, loraXa(rt, acts, ad.rank, l, target), N, dx, s.lora!.g);
    };
    // s.dx holds dL/d(out); forward: out = h + down  ⇒ d(down) = d(out), d(h) starts as d(out)
    // forward: down = act · down_projᵀ
    linearBackwardInput(rt, s.dx, W('mlp.down_proj.weight'), N, F, C, s.dact);
    adapt('down_proj', s.dx, a.act, s.dact);
    if (!frozen) linearBackwardWeight(rt, s.dx, a.act, N, F, C, G('mlp.down_proj.weight'), dW(C, F));
    // forward: act = silu(gate) · up
    swigluBackward(rt, s.dact, a.gate, a.up, { dgate: s.dgate, dup: s.dup });
    // forward: gate = xn2 · gate_projᵀ;  up = xn2 · up_projᵀ  ⇒ d(xn2) = dgate·Wg + dup·Wu
    linearBackwardInput(rt, s.dgate, W('mlp.gate_proj.weight'), N, C, F, s.dxn);
    adapt('gate_proj', s.dgate, a.xn2, s.dxn);
    linearBackwardInput(rt, s.dup, W('mlp.up_proj.weight'), N, C, F, s.dtmpC);
    adapt('up_proj', s.dup, a.xn2, s.dtmpC);
    accumulate(rt, s.dxn, s.dtmpC);
    if (!frozen) {
      linearBackwardWeight(rt, s.dgate, a.xn2, N, C, F, G('mlp.gate_proj.weight'), dW(F, C));
      linearBackwardWeight(rt, s.dup, a.xn2, N, C, F, G('mlp.up_proj.weight'), dW(F, C));
    }
    // forward: xn2 = rmsnorm(h, post_attention_layernorm)  ⇒ d(h) = d(out) + rmsnorm'(…)
    rmsnormBackward(rt, s.dxn, a.h, W('post_attention_layernorm.weight'), a.rstd2, { N, C, eps }, { dx: s.dtmpC2, ...normDw(name('post_attention_layernorm.weight'), C) });
    accumulate(rt, s.dx, s.dtmpC2); // s.dx = d(h)
    // forward: h = x + att · o_projᵀ
    linearBackwardInput(rt, s.dx, W('self_attn.o_proj.weight'), N, Hq * D, C, reshape(s.datt, [N, Hq * D]));
    adapt('o_proj', s.dx, reshape(a.att, [N, Hq * D]), reshape(s.datt, [N, Hq * D]));
    if (!frozen) linearBackwardWeight(rt, s.dx, reshape(a.att, [N, Hq * D]), N, Hq * D, C, G('self_attn.o_proj.weight'), dW(C, Hq * D));
    // forward: att = attention(qr, kr, v)
    attentionBackward(rt, s.datt, a.qr, a.kr, a.v, a.att, a.lse, attn, { dq: s.dqr, dk: s.dkr, dv: s.dv, stats: s.attnStats });
    // forward: qr = rope(qn), kr = rope(kn)
    ropeBackward(rt, s.dqr, acts.positions, { ...rope, H: Hq }, reshape(s.dqn, [B, T, Hq, D]));
    ropeBackward(rt, s.dkr, acts.positions, { ...rope, H: Hkv }, reshape(s.dkn, [B, T, Hkv, D]));
    // forward: qn = rmsnorm_per_head(q, q_norm), kn = rmsnorm_per_head(k, k_norm)
    rmsnormBackward(rt, s.dqn, a.q, W('self_attn.q_norm.weight'), a.qRstd, { N: N * Hq, C: D, eps }, { dx: s.dq, ...normDw(name('self_attn.q_norm.weight'), D) });
    rmsnormBackward(rt, s.dkn, a.k, W('self_attn.k_norm.weight'), a.kRstd, { N: N * Hkv, C: D, eps }, { dx: s.dk, ...normDw(name('self_attn.k_norm.weight'), D) });
    // forward: q, k, v = xn1 · {q,k,v}_projᵀ  ⇒ d(xn1) = dq·Wq + dk·Wk + dv·Wv
    const dv2 = reshape(s.dv, [N, Hkv * D]);
    linearBackwardInput(rt, s.dq, W('self_attn.q_proj.weight'), N, C, Hq * D, s.dxn);
    adapt('q_proj', s.dq, a.xn1, s.dxn);
    linearBackwardInput(rt, s.dk, W('self_attn.k_proj.weight'), N, C, Hkv * D, s.dtmpC);
    adapt('k_proj', s.dk, a.xn1, s.dtmpC);
    accumulate(rt, s.dxn, s.dtmpC);
    linearBackwardInput(rt, dv2, W('self_attn.v_proj.weight'), N, C, Hkv * D, s.dtmpC);
    adapt('v_proj', dv2, a.xn1, s.dtmpC);
    accumulate(rt, s.dxn, s.dtmpC);
    if (!frozen) {
      linearBackwardWeight(rt, s.dq, a.xn1, N, C, Hq * D, G('self_attn.q_proj.weight'), dW(Hq * D, C));
      linearBackwardWeight(rt, s.dk, a.xn1, N, C, Hkv * D, G('self_attn.k_proj.weight'), dW(Hkv * D, C));
      linearBackwardWeight(rt, dv2, a.xn1, N, C, Hkv * D, G('self_attn.v_proj.weight'), dW(Hkv * D, C));
    }
    // forward: xn1 = rmsnorm(x, input_layernorm)  ⇒ d(x) = d(h) + rmsnorm'(…)
    rmsnormBackward(rt, s.dxn, a.x, W('input_layernorm.weight'), a.rstd1, { N, C, eps }, { dx: s.dtmpC2, ...normDw(name('input_layernorm.weight'), C) });
    accumulate(rt, s.dx, s.dtmpC2); // s.dx = d(layer input)
  }
  // forward: x0 = embed_tokens[ids]  (tied: adds to the LM head's gradient in the same table)
  if (!frozen) embedTokensBackward(rt, w, s.dx, reshape(acts.ids, [N]), N);
}
