// LoRA (Hu et al. 2021, PEFT conventions) on the GPU: low-rank adapters on chosen projections of
// every layer, trained while the base weights stay frozen, and merged into the base for export.
//   y = x·Wᵀ + s·(x·Aᵀ)·Bᵀ,   s = alpha / r,   A (r, in), B (out, r), W (out, in)
// A starts Kaiming-uniform (PEFT: kaiming_uniform_(a=√5) ⇒ U(±1/√in)), B starts at 0, so a fresh
// adapter leaves the model unchanged. Forward (per adapted projection, rows N):
//   xa = s·x·Aᵀ (N, r)  — saved for the backward;   y += xa·Bᵀ
// Backward (dy (N, out) = dL/dy):
//   g = s·dy·B (N, r);  dx += g·A;  dA += gᵀ·x (r, in);  dB += dyᵀ·xa (out, r)
// With adapters attached (attachLora) the model's backward computes no base-weight gradient at all
// (no dW matmuls, no dW buffers): only dA, dB, and the activation gradients that reach them.
// baseDtype 'f16': attachLora packs every frozen 2-D base weight (q…down of every layer, adapted or
// not, and the embedding / LM head) to f16 pairs in u32 words, half their memory; ./linear,
// ./embedTokens and ./lmHead then run them through the packed kernels (src/ops/matmulPackedF16,
// the f16 embedding gather) in the training forward, backward (dx only) and KV-cache decode.
// detachLora and mergeLora unpack them back to f32 (the f16-rounded values). A model loaded with
// an f16 base (GpuWeights storage f16Base) is packed from the start.
// Export names are PEFT's (adapter_model.safetensors):
//   base_model.model.model.layers.{l}.self_attn.{q,k,v,o}_proj.lora_{A,B}.weight
//   base_model.model.model.layers.{l}.mlp.{gate,up,down}_proj.lora_{A,B}.weight
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d } from '../ops/grid';
import { matmulForward } from '../ops/matmul';
import { Rng } from '../util/rng';
import { type ModelConfig, validateModelConfig } from './config';
import { LORA_TARGETS, type LoraOptions, type LoraTarget, parameterTable } from './parameters';
import type { GpuWeights } from './weights';

export interface LoraConfig extends LoraOptions {
  /** r: adapter rank. */
  rank: number;
  /** The update is scaled by s = alpha / rank (PEFT `lora_alpha`). */
  alpha: number;
  /** Which projections of every layer get an adapter. */
  targets: readonly LoraTarget[];
}

/** PEFT-like defaults: rank 8, alpha 16 (s = 2), every projection. */
export const DEFAULT_LORA: LoraConfig = { rank: 8, alpha: 16, targets: LORA_TARGETS };

export function loraScale(lora: Pick<LoraConfig, 'rank' | 'alpha'>): number {
  return lora.alpha / lora.rank;
}

export function validateLoraConfig(lora: LoraConfig): LoraConfig {
  if (!Number.isInteger(lora.rank) || lora.rank < 1) throw new Error(`LoRA: rank must be a positive integer, got ${lora.rank}`);
  if (!(Number.isFinite(lora.alpha) && lora.alpha > 0)) throw new Error(`LoRA: alpha must be a positive number, got ${lora.alpha}`);
  if (lora.targets.length === 0) throw new Error(`LoRA: choose at least one target of ${LORA_TARGETS.join(', ')}`);
  for (const t of lora.targets) {
    if (!LORA_TARGETS.includes(t)) throw new Error(`LoRA: unknown target '${t}'; choose from ${LORA_TARGETS.join(', ')}`);
  }
  if (new Set(lora.targets).size !== lora.targets.length) throw new Error(`LoRA: target listed twice in [${lora.targets.join(', ')}]`);
  if (lora.baseDtype !== undefined && lora.baseDtype !== 'f32' && lora.baseDtype !== 'f16') {
    throw new Error(`LoRA: baseDtype must be 'f32' or 'f16', got '${String(lora.baseDtype)}'`);
  }
  return lora;
}

/** HF module path of a target in layer l: `model.layers.3.self_attn.q_proj`. */
export function loraModule(l: number, target: LoraTarget): string {
  const block = target === 'gate_proj' || target === 'up_proj' || target === 'down_proj' ? 'mlp' : 'self_attn';
  return `model.layers.${l}.${block}.${target}`;
}

/** The adapted base weight: `model.layers.3.self_attn.q_proj.weight`. */
export function loraBaseName(l: number, target: LoraTarget): string {
  return `${loraModule(l, target)}.weight`;
}

/** PEFT's tensor name: `base_model.model.model.layers.3.self_attn.q_proj.lora_A.weight`. */
export function loraParameterName(l: number, target: LoraTarget, which: 'A' | 'B'): string {
  return `base_model.model.${loraModule(l, target)}.lora_${which}.weight`;
}

export interface LoraParameterSpec {
  name: string;
  /** A: (r, in); B: (out, r). */
  shape: [number, number];
  layer: number;
  target: LoraTarget;
  which: 'A' | 'B';
  /** The base weight (out, in) this adapter adds to. */
  base: string;
}

/** Every adapter tensor, layer by layer, targets in LORA_TARGETS order, A before B. */
export function loraParameterTable(cfg: ModelConfig, lora: LoraConfig): LoraParameterSpec[] {
  validateModelConfig(cfg);
  validateLoraConfig(lora);
  const shapes = new Map(parameterTable(cfg).map((p) => [p.name, p.shape]));
  const out: LoraParameterSpec[] = [];
  for (let l = 0; l < cfg.numLayers; l++) {
    for (const target of LORA_TARGETS.filter((t) => lora.targets.includes(t))) {
      const base = loraBaseName(l, target);
      const [o, i] = shapes.get(base)!;
      out.push({ name: loraParameterName(l, target, 'A'), shape: [lora.rank, i], layer: l, target, which: 'A', base });
      out.push({ name: loraParameterName(l, target, 'B'), shape: [o, lora.rank], layer: l, target, which: 'B', base });
    }
  }
  return out;
}

/** Seeded PEFT init: A ~ U(−1/√in, 1/√in) (kaiming_uniform_, a = √5), B = 0. */
export function initialLoraWeights(cfg: ModelConfig, lora: LoraConfig, seed: number): Map<string, Float32Array> {
  const rng = new Rng(seed);
  const out = new Map<string, Float32Array>();
  for (const p of loraParameterTable(cfg, lora)) {
    const v = new Float32Array(p.shape[0] * p.shape[1]);
    if (p.which === 'A') {
      const bound = 1 / Math.sqrt(p.shape[1]);
      for (let i = 0; i < v.length; i++) v[i] = rng.uniform(-bound, bound);
    }
    out.set(p.name, v);
  }
  return out;
}

/** PEFT's adapter_config.json for these adapters (export next to adapter_model.safetensors). */
export function peftAdapterConfig(lora: LoraConfig, baseModel = ''): Record<string, unknown> {
  return {
    peft_type: 'LORA', task_type: 'CAUSAL_LM', base_model_name_or_path: baseModel, r: lora.rank, lora_alpha: lora.alpha,
    lora_dropout: 0, target_modules: [...lora.targets], bias: 'none', fan_in_fan_out: false, inference_mode: true,
  };
}

/** One adapted projection as the forward and backward see it. */
export interface LoraAdapter {
  layer: number;
  target: LoraTarget;
  inF: number;
  outF: number;
  rank: number;
  scale: number;
  A: Tensor; // (r, in)
  B: Tensor; // (out, r)
  /** Gradients, accumulated by the backward; absent on a frozen copy (a GRPO reference). */
  dA?: Tensor; // (r, in)
  dB?: Tensor; // (out, r)
}

/** The adapters of one model on the GPU: parameters and gradients keyed by PEFT name. */
export class LoraAdapters {
  readonly table: LoraParameterSpec[];
  readonly scale: number;
  readonly params = new Map<string, Tensor>();
  readonly grads = new Map<string, Tensor>();
  private readonly byModule = new Map<string, LoraAdapter>();

  constructor(
    readonly rt: GpuRuntime,
    readonly cfg: ModelConfig,
    readonly lora: LoraConfig,
    /** Adapter values by PEFT name (a loaded adapter); default initialLoraWeights(cfg, lora, seed). */
    values?: Map<string, Float32Array>,
    seed = 0,
    /** GPU tensors to copy instead (frozenCopy): no gradients are allocated. */
    copyFrom?: LoraAdapters,
  ) {
    this.table = loraParameterTable(cfg, lora);
    this.scale = loraScale(lora);
    const init = copyFrom ? null : values ?? initialLoraWeights(cfg, lora, seed);
    for (const p of this.table) {
      if (copyFrom) {
        const t = rt.empty(p.shape, 'f32', `${p.name}:frozen`);
        rt.copy(copyFrom.params.get(p.name)!, t);
        this.params.set(p.name, t);
        continue;
      }
      const v = init!.get(p.name);
      if (!v) throw new Error(`LoRA weights: missing tensor '${p.name}' of shape [${p.shape.join(', ')}]`);
      if (v.length !== p.shape[0] * p.shape[1]) throw new Error(`LoRA weights: '${p.name}' has ${v.length} values, expected shape [${p.shape.join(', ')}]`);
      this.params.set(p.name, rt.upload(v, p.shape, 'f32', p.name));
      this.grads.set(p.name, rt.zeros(p.shape, 'f32', `grad:${p.name}`));
    }
    for (let l = 0; l < cfg.numLayers; l++) {
      for (const target of lora.targets) {
        const nameA = loraParameterName(l, target, 'A');
        const nameB = loraParameterName(l, target, 'B');
        const [outF, rank] = this.params.get(nameB)!.shape;
        this.byModule.set(`${l}.${target}`, {
          layer: l, target, inF: this.params.get(nameA)!.shape[1], outF, rank, scale: this.scale,
          A: this.params.get(nameA)!, B: this.params.get(nameB)!, dA: this.grads.get(nameA), dB: this.grads.get(nameB),
        });
      }
    }
  }

  get rank(): number {
    return this.lora.rank;
  }

  /** Trainable tensor names (what the optimizer gets). */
  get names(): string[] {
    return this.table.map((p) => p.name);
  }

  /** The adapter on `target` of layer l, or undefined when that projection is not adapted. */
  adapter(l: number, target: LoraTarget): LoraAdapter | undefined {
    return this.byModule.get(`${l}.${target}`);
  }

  adapters(): LoraAdapter[] {
    return [...this.byModule.values()];
  }

  zeroGrads(): void {
    for (const g of this.grads.values()) this.rt.clear(g);
  }

  /** A frozen GPU copy of the adapters as they are now (no gradients): GRPO's reference policy. */
  frozenCopy(): LoraAdapters {
    return new LoraAdapters(this.rt, this.cfg, this.lora, undefined, 0, this);
  }

  /** Adapter values by PEFT name (export: adapter_model.safetensors). */
  async download(): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const p of this.table) out.set(p.name, await this.rt.readF32(this.params.get(p.name)!));
    return out;
  }

  async downloadGrads(): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const p of this.table) {
      const g = this.grads.get(p.name);
      if (!g) throw new Error(`LoRA: '${p.name}' has no gradient (a frozen copy)`);
      out.set(p.name, await this.rt.readF32(g));
    }
    return out;
  }

  destroy(): void {
    this.rt.release(...this.params.values(), ...this.grads.values());
    this.params.clear();
    this.grads.clear();
    this.byModule.clear();
  }
}

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

/** Names of the frozen weights baseDtype 'f16' packs: every 2-D base weight (projections, embedding, LM head). */
export function packableBaseNames(cfg: ModelConfig): string[] {
  return parameterTable(cfg).filter((p) => p.shape.length === 2).map((p) => p.name);
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

// Scales a tensor in place. Inline WGSL (one 5-line kernel) rather than a shaders/ file: LoRA's
// only new kernel, and the matmul op has no alpha. Candidate for shaders/elementwise.wgsl.
const SCALE_WG = 256;
const SCALE_CODE = /* wgsl */ `
struct Params { n: u32, scale: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
const WG = ${SCALE_WG}u;
@compute @workgroup_size(WG)
fn forward_scale(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i < p.n) { x[i] = x[i] * p.scale; }
}`;

/** x ← s·x in place (skipped when s = 1). */
export function scaleInPlace(rt: GpuRuntime, x: Tensor, s: number): void {
  if (s === 1) return;
  rt.dispatch({
    op: 'lora_scale', code: SCALE_CODE, entryPoint: 'forward_scale', params: packParams([['u32', x.size], ['f32', s]]),
    bindings: [x], workgroups: grid1d(x.size, SCALE_WG),
  });
}

function checkRows(what: string, t: Tensor, rows: number, cols: number, name: string): void {
  if (t.size !== rows * cols) throw new Error(`${what}: ${name} '${t.label}' has ${t.size} elements, expected (${rows}, ${cols})`);
}

/**
 * y (N, out) += s·(x·Aᵀ)·Bᵀ after the base projection wrote y; xa (N, r) receives s·x·Aᵀ (the
 * backward's dB needs it).
 */
export function loraForward(rt: GpuRuntime, ad: LoraAdapter, x: Tensor, rows: number, y: Tensor, xa: Tensor): void {
  const { inF, outF, rank: r } = ad;
  checkRows('loraForward', x, rows, inF, 'x');
  checkRows('loraForward', y, rows, outF, 'y');
  checkRows('loraForward', xa, rows, r, 'xa');
  loraXaForward(rt, ad, x, rows, xa);
  matmulForward(rt, xa, ad.B, { batch: 1, M: rows, K: r, N: outF, transA: false, transB: true }, y, { accumulate: true });
}

/** xa (N, r) = s·x·Aᵀ alone: what the backward needs (recomputing a layer whose output is already consumed). */
export function loraXaForward(rt: GpuRuntime, ad: LoraAdapter, x: Tensor, rows: number, xa: Tensor): void {
  checkRows('loraXaForward', x, rows, ad.inF, 'x');
  checkRows('loraXaForward', xa, rows, ad.rank, 'xa');
  matmulForward(rt, x, ad.A, { batch: 1, M: rows, K: ad.inF, N: ad.rank, transA: false, transB: true }, xa); // x·Aᵀ
  scaleInPlace(rt, xa, ad.scale);
}

/**
 * Backward of the adapter part of y = x·Wᵀ + s·(x·Aᵀ)·Bᵀ given dy (N, out): dx (N, in) += s·(dy·B)·A
 * (dx already holds dy·W), dA += s·(dy·B)ᵀ·x, dB += dyᵀ·xa with the forward's xa = s·x·Aᵀ.
 * g (N, r) is scratch.
 */
export function loraBackward(rt: GpuRuntime, ad: LoraAdapter, dy: Tensor, x: Tensor, xa: Tensor, rows: number, dx: Tensor, g: Tensor): void {
  const { inF, outF, rank: r } = ad;
  checkRows('loraBackward', dy, rows, outF, 'dy');
  checkRows('loraBackward', x, rows, inF, 'x');
  checkRows('loraBackward', xa, rows, r, 'xa');
  checkRows('loraBackward', dx, rows, inF, 'dx');
  checkRows('loraBackward', g, rows, r, 'scratch g');
  if (!ad.dA || !ad.dB) throw new Error(`loraBackward: the adapter on layer ${ad.layer} ${ad.target} is a frozen copy (no gradients)`);
  // forward: y += xa·Bᵀ  ⇒  dB += dyᵀ·xa,  d(xa) = dy·B
  matmulForward(rt, dy, xa, { batch: 1, M: outF, K: rows, N: r, transA: true, transB: false }, ad.dB, { accumulate: true });
  matmulForward(rt, dy, ad.B, { batch: 1, M: rows, K: outF, N: r, transA: false, transB: false }, g);
  // forward: xa = s·x·Aᵀ  ⇒  g = s·d(xa);  dA += gᵀ·x;  dx += g·A
  scaleInPlace(rt, g, ad.scale);
  matmulForward(rt, g, x, { batch: 1, M: r, K: rows, N: inF, transA: true, transB: false }, ad.dA, { accumulate: true });
  matmulForward(rt, g, ad.A, { batch: 1, M: rows, K: r, N: inF, transA: false, transB: false }, dx, { accumulate: true });
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
