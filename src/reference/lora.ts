// Float64 reference LoRA, by composition with the reference model (no second copy of the model):
// an adapted linear layer y = x·Wᵀ + s·(x·Aᵀ)·Bᵀ is the plain layer with the merged weight
//   W' = W + s·B·A          (s = alpha / r; A (r, in), B (out, r), W (out, in))
// so the LoRA model's logits and loss are referenceLoss on the merged parameters, and the adapter
// gradients follow exactly from the merged weight's gradient dW' (out, in) by the chain rule:
//   dB = s·dW'·Aᵀ  (out, r)        dA = s·Bᵀ·dW'  (r, in)
// With dW' = dyᵀ·x these are the GPU's dB = dyᵀ·(s·x·Aᵀ) and dA = s·(dy·B)ᵀ·x.
// Adapters are keyed by the name of the base weight they adapt (`model.layers.0.self_attn.q_proj.weight`);
// PEFT's export names live with the GPU LoRA (src/model/lora.ts).
import type { ModelConfig } from '../model/config';
import { referenceLoss, type ReferenceForwardOptions } from './model';
import { referenceParameterShapes, type ReferenceParameters } from './modelParams';
import { matmulForward } from './ops';

export interface ReferenceLoraAdapter {
  A: Float64Array; // (r, in)
  B: Float64Array; // (out, r)
}

export interface ReferenceLora {
  rank: number;
  /** s = alpha / rank. */
  scale: number;
  /** Keyed by the adapted base weight's HF name. */
  adapters: Map<string, ReferenceLoraAdapter>;
}

export interface ReferenceLoraGrads {
  dA: Float64Array; // (r, in)
  dB: Float64Array; // (out, r)
}

/** (out, in) of every adapted weight, checking each adapter's A and B sizes. */
function adaptedShapes(cfg: ModelConfig, lora: ReferenceLora): Map<string, [out: number, inF: number]> {
  const shapes = new Map(referenceParameterShapes(cfg).map((p) => [p.name, p.shape]));
  const out = new Map<string, [number, number]>();
  const r = lora.rank;
  for (const [name, { A, B }] of lora.adapters) {
    const shape = shapes.get(name);
    if (!shape || shape.length !== 2) throw new Error(`reference LoRA: '${name}' is not a weight matrix of this model`);
    const [o, i] = shape;
    if (A.length !== r * i) throw new Error(`reference LoRA: A of '${name}' has ${A.length} values, expected (r, in) = (${r}, ${i})`);
    if (B.length !== o * r) throw new Error(`reference LoRA: B of '${name}' has ${B.length} values, expected (out, r) = (${o}, ${r})`);
    out.set(name, [o, i]);
  }
  return out;
}

/** A copy of params with every adapted weight replaced by W + s·B·A. */
export function mergeReferenceLora(cfg: ModelConfig, params: ReferenceParameters, lora: ReferenceLora): ReferenceParameters {
  const merged: ReferenceParameters = new Map(params);
  for (const [name, [o, i]] of adaptedShapes(cfg, lora)) {
    const { A, B } = lora.adapters.get(name)!;
    const BA = matmulForward(B, A, { batch: 1, M: o, K: lora.rank, N: i, transA: false, transB: false }); // (out, in)
    const W = params.get(name)!;
    merged.set(name, W.map((w, k) => w + lora.scale * BA[k]));
  }
  return merged;
}

/**
 * Loss, logits and the gradient of every adapter (dA, dB) of the LoRA model; the base weights are
 * frozen, so no base gradient is returned.
 */
export function referenceLoraLoss(
  cfg: ModelConfig,
  params: ReferenceParameters,
  lora: ReferenceLora,
  inputIds: Int32Array, // (B, T)
  targets: Int32Array, // (B, T)
  mask: Float64Array, // (B, T)
  B: number,
  T: number,
  opts: ReferenceForwardOptions = {},
): { loss: number; logits: Float64Array; grads: Map<string, ReferenceLoraGrads> } {
  const shapes = adaptedShapes(cfg, lora);
  const merged = mergeReferenceLora(cfg, params, lora);
  const r = referenceLoss(cfg, merged, inputIds, targets, mask, B, T, { ...opts, only: new Set(shapes.keys()) }); // the base is frozen: adapted weights only
  const grads = new Map<string, ReferenceLoraGrads>();
  const s = lora.scale;
  for (const [name, [o, i]] of shapes) {
    const { A, B: Bm } = lora.adapters.get(name)!;
    const dW = r.grads.get(name)!; // (out, in), gradient of the merged weight
    // W' = W + s·B·A  ⇒  dB = s·dW'·Aᵀ, dA = s·Bᵀ·dW'
    const dB = matmulForward(dW, A, { batch: 1, M: o, K: i, N: lora.rank, transA: false, transB: true }).map((v) => s * v);
    const dA = matmulForward(Bm, dW, { batch: 1, M: lora.rank, K: o, N: i, transA: true, transB: false }).map((v) => s * v);
    grads.set(name, { dA, dB });
  }
  return { loss: r.loss, logits: r.logits, grads };
}
