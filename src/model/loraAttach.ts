// Attaching LoRA adapters to a model and taking them off again: freezing (and f16-packing) the base,
// detaching, and merging W ← W + s·B·A for export. Kept apart from lora.ts (the adapters themselves)
// so that the model's weights can hold adapters without lora.ts depending on weights.ts.
import type { GpuRuntime } from '../gpu/runtime';
import { matmulForward } from '../ops/matmul';
import { type LoraAdapters, loraBaseName, packableBaseNames, scaleInPlace } from './lora';
import type { GpuWeights } from './weights';

/**
 * Puts adapters on a model: its forward, decode and backward use them, its base weights freeze
 * (base gradients are released; w.grad(base) throws), and w.trainableNames() lists the adapters.
 * With lora.baseDtype 'f16' the layer projections are packed to f16 here, once (packFrozenBase).
 * The caller keeps owning the adapters (w.destroy() does not free them).
 */
export function attachLora(rt: GpuRuntime, w: GpuWeights, adapters: LoraAdapters): void {
  const a = adapters.cfg;
  const b = w.cfg;
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('attachLora: the adapters were built for another model config');
  if (w.lora && w.lora !== adapters) throw new Error('attachLora: the model already has adapters; merge or detach them first');
  if (adapters.grads.size === 0) throw new Error('attachLora: these adapters are a frozen copy (no gradients); attach trainable adapters');
  w.releaseGrads(); // frozen: base gradients are never computed again while attached
  w.lora = adapters;
  if (adapters.lora.baseDtype === 'f16') packFrozenBase(rt, w);
}

/**
 * Replaces each 2-D base weight of w by its f16-packed copy (round to nearest even) and frees the
 * f32 one; already packed ones are left alone. Only for a frozen base (adapters attached): the
 * packed weights have no gradient and no optimizer can update them. Returns the bytes given back.
 */
export function packFrozenBase(rt: GpuRuntime, w: GpuWeights): number {
  const saved = w.packBase(packableBaseNames(w.cfg));
  // The pool keeps released buffers for reuse; destroy the free ones (after submitting the packs
  // that read them) so the f32 copies' memory really goes back.
  rt.flush();
  rt.pool.trim();
  return saved;
}

/** Unpacks every f16-packed base weight of w back to f32 (exact: the f16-rounded values). */
export function unpackFrozenBase(_rt: GpuRuntime, w: GpuWeights): void {
  w.unpackBase();
}

/**
 * Removes the adapters (the model is the plain base model again; the adapters stay allocated). An
 * f16-packed base is unpacked back to f32 (its f16-rounded values), so the model can train in full.
 */
export function detachLora(w: GpuWeights): LoraAdapters | undefined {
  const a = w.lora;
  if (a) unpackFrozenBase(a.rt, w);
  w.lora = undefined;
  return a;
}

/**
 * Export: W ← W + s·B·A on the GPU for every adapter of w, then detaches them, leaving a plain
 * f32 model with the LoRA model's outputs (download it with w.download()). The adapters stay allocated.
 */
export function mergeLora(rt: GpuRuntime, w: GpuWeights): void {
  const lora = w.lora;
  if (!lora) throw new Error('mergeLora: the model has no adapters attached');
  unpackFrozenBase(rt, w); // an f16 base merges in f32: W_f16 + s·B·A
  for (const ad of lora.adapters()) {
    const sB = rt.empty(ad.B.shape, 'f32', 'lora.merge.sB'); // (out, r)
    rt.copy(ad.B, sB);
    scaleInPlace(rt, sB, ad.scale);
    // W (out, in) += (s·B) (out, r) · A (r, in)
    matmulForward(rt, sB, ad.A, { batch: 1, M: ad.outF, K: ad.rank, N: ad.inF, transA: false, transB: false }, w.get(loraBaseName(ad.layer, ad.target)), { accumulate: true });
    rt.release(sB);
  }
  detachLora(w);
}
