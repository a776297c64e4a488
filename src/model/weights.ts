// Model parameters on the GPU, keyed by HF name (parameterTable order), with their gradients.
import type { GpuRuntime } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { isPackedF16 } from '../ops/matmulPackedF16';
import { Rng } from '../util/rng';
import { type ModelConfig, validateModelConfig } from './config';
import { unpackF16Pairs } from './halfFloat';
import type { LoraAdapters } from './lora';
import { type ParameterSpec, parameterTable } from './parameters';

export class GpuWeights {
  readonly table: ParameterSpec[];
  readonly params = new Map<string, Tensor>();
  /** Gradients, same names and shapes; created by ensureGrads(). */
  readonly grads = new Map<string, Tensor>();
  /**
   * LoRA adapters (set by attachLora in ./lora): forward, decode and backward add them, the base
   * weights are frozen (no base gradients), and the adapter tensors are reachable by PEFT name
   * through get/grad. Undefined: plain full-parameter model.
   */
  lora?: LoraAdapters;

  constructor(
    private readonly rt: GpuRuntime,
    readonly cfg: ModelConfig,
    /** Host values, or f32 GPU tensors that are copied on the GPU (see frozenCopy). */
    values: Map<string, Float32Array | Tensor>,
  ) {
    validateModelConfig(cfg);
    this.table = parameterTable(cfg);
    for (const p of this.table) {
      const v = values.get(p.name);
      const size = p.shape.reduce((a, b) => a * b, 1);
      if (!v) throw new Error(`model weights: missing tensor '${p.name}' of shape [${p.shape.join(', ')}]`);
      const n = v instanceof Float32Array ? v.length : v.size;
      if (n !== size) throw new Error(`model weights: '${p.name}' has ${n} values, expected shape [${p.shape.join(', ')}] = ${size}`);
      if (v instanceof Float32Array) {
        this.params.set(p.name, rt.upload(v, p.shape, 'f32', p.name));
      } else {
        if (v.dtype !== 'f32') throw new Error(`model weights: '${p.name}' is a ${v.dtype} tensor; copies need f32`);
        const t = rt.empty(p.shape, 'f32', p.name);
        rt.copy(v, t);
        this.params.set(p.name, t);
      }
    }
  }

  /**
   * A GPU-side copy of the current parameters with no gradients (e.g. GRPO's frozen reference
   * model); no host round trip. A LoRA model is refused: its base is frozen and may be f16-packed.
   */
  frozenCopy(): GpuWeights {
    if (this.lora) throw new Error('model weights: frozenCopy of a model with LoRA adapters attached is not supported: merge or detach the adapters first');
    return new GpuWeights(this.rt, this.cfg, this.params);
  }

  /** The parameter tensor `name`; throws naming it when absent. */
  get(name: string): Tensor {
    const t = this.params.get(name) ?? this.lora?.params.get(name);
    if (!t) throw new Error(`model weights: no parameter named '${name}'`);
    return t;
  }

  grad(name: string): Tensor {
    if (this.lora) {
      const g = this.lora.grads.get(name);
      if (!g) throw new Error(`model gradients: '${name}' is frozen while LoRA adapters are attached; train w.trainableNames()`);
      return g;
    }
    const t = this.grads.get(name);
    if (!t) throw new Error(`model gradients: no gradient for '${name}' (call ensureGrads first)`);
    return t;
  }

  /** Allocates (once) and zeroes every gradient: the start of a gradient-accumulation window. */
  zeroGrads(): void {
    if (this.lora) return this.lora.zeroGrads(); // base frozen: its gradients are never allocated
    for (const p of this.table) {
      let g = this.grads.get(p.name);
      if (!g) this.grads.set(p.name, (g = this.rt.empty(p.shape, 'f32', `grad:${p.name}`)));
      this.rt.clear(g);
    }
  }

  /** Reads every parameter back (checkpoints, export, tests). */
  async download(): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const p of this.table) {
      const t = this.get(p.name);
      // A LoRA f16 base stores frozen projections as f16 pairs in u32 words: return their f32 values.
      out.set(p.name, isPackedF16(t) ? unpackF16Pairs((await this.rt.read(t)) as Uint32Array, t.logicalSize) : await this.rt.readF32(t));
    }
    return out;
  }

  async downloadGrads(): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const name of this.trainableNames()) out.set(name, await this.rt.readF32(this.grad(name)));
    return out;
  }

  /** What an optimizer should train: every parameter, or only the adapters when LoRA is attached. */
  trainableNames(): string[] {
    return this.lora ? this.lora.names : this.table.map((p) => p.name);
  }

  destroy(): void {
    for (const t of this.params.values()) this.rt.release(t);
    for (const t of this.grads.values()) this.rt.release(t);
    this.params.clear();
    this.grads.clear();
  }
}

/**
 * Seeded initial values (GPT-2/Qwen-style): matrices and embeddings N(0, 0.02²), the residual
 * output projections (o_proj, down_proj) scaled by 1/sqrt(2L), norms 1.
 */
export function initialWeights(cfg: ModelConfig, seed: number): Map<string, Float32Array> {
  const rng = new Rng(seed);
  const out = new Map<string, Float32Array>();
  const residualStd = 0.02 / Math.sqrt(2 * cfg.numLayers);
  for (const p of parameterTable(cfg)) {
    const n = p.shape.reduce((a, b) => a * b, 1);
    const v = new Float32Array(n);
    if (p.kind === 'norm') v.fill(1);
    else {
      const std = /o_proj|down_proj/.test(p.name) ? residualStd : 0.02;
      for (let i = 0; i < n; i++) v[i] = rng.normal(0, std);
    }
    out.set(p.name, v);
  }
  return out;
}
