// Global gradient norm, clipping and AdamW on the GPU (shaders/optimizer.wgsl). The clip scale
// and a finiteness flag stay on the GPU, so a step needs no readback; callers read `stats` when
// they want to log the norm or learn that an update was skipped.
import code from '../../shaders/optimizer.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d } from './grid';

const WG = 256;
const MAX_PARTIALS_PER_TENSOR = 64;

export interface AdamWConfig {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
}

export const DEFAULT_ADAMW: AdamWConfig = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 };

/** One parameter tensor with its gradient and AdamW moments (all the same shape). */
export interface OptimizerSlot {
  param: Tensor;
  grad: Tensor;
  m: Tensor;
  v: Tensor;
  /** Decoupled weight decay applies to this tensor (off for norms, by convention). */
  decay: boolean;
}

/** Packs the shader's Params struct (every field, in declaration order). */
function optimizerParams(p: Partial<{ n: number; offset: number; lr: number; beta1: number; beta2: number; eps: number; wd: number; bc1: number; bc2: number; maxNorm: number }>): ArrayBuffer {
  return packParams([
    ['u32', p.n ?? 0], ['u32', p.offset ?? 0], ['f32', p.lr ?? 0], ['f32', p.beta1 ?? 0], ['f32', p.beta2 ?? 0],
    ['f32', p.eps ?? 0], ['f32', p.wd ?? 0], ['f32', p.bc1 ?? 1], ['f32', p.bc2 ?? 1], ['f32', p.maxNorm ?? 0],
  ]);
}

function partialsFor(n: number): number {
  return Math.min(MAX_PARTIALS_PER_TENSOR, Math.max(1, Math.ceil(n / WG)));
}

/** Host view of the stats tensor. */
export interface GradStats {
  /** Global L2 norm of all gradients before clipping. */
  norm: number;
  /** Factor applied to every gradient: min(1, maxNorm / (norm + 1e-6)), or 1 without clipping. */
  scale: number;
  /** False when the norm was NaN/Inf: the AdamW step was skipped and the weights are unchanged. */
  finite: boolean;
}

export class GradNorm {
  private readonly offsets: number[] = [];
  readonly partials: Tensor; // (P)
  readonly stats: Tensor; // (4): norm, scale, finite, unused

  constructor(
    private readonly rt: GpuRuntime,
    private readonly grads: readonly Tensor[],
  ) {
    let total = 0;
    for (const g of grads) {
      this.offsets.push(total);
      total += partialsFor(g.size);
    }
    this.partials = rt.zeros([Math.max(total, 1)], 'f32', 'gradnorm.partials');
    this.stats = rt.zeros([4], 'f32', 'gradnorm.stats');
  }

  /** Computes norm, clip scale and finiteness into `stats` (maxNorm ≤ 0: no clipping). */
  compute(maxNorm: number): Tensor {
    this.grads.forEach((g, i) => {
      this.rt.dispatch({
        op: 'grad_sumsq', code, entryPoint: 'forward_sumsq_partial',
        params: optimizerParams({ n: g.size, offset: this.offsets[i] }),
        bindings: { 1: g, 2: this.partials }, workgroups: [partialsFor(g.size)],
      });
    });
    this.rt.dispatch({
      op: 'grad_stats', code, entryPoint: 'forward_grad_stats',
      params: optimizerParams({ n: this.partials.size, maxNorm }),
      bindings: { 3: this.partials, 4: this.stats }, workgroups: [1],
    });
    return this.stats;
  }

  async read(): Promise<GradStats> {
    const s = await this.rt.readF32(this.stats);
    return { norm: s[0], scale: s[1], finite: s[2] === 1 };
  }
}

/**
 * One AdamW step (1-based `step`) over every slot, with gradients scaled by stats[1] and the whole
 * update skipped when stats[2] says the gradients were not finite. lr is per call (schedules live
 * in the trainer).
 */
export function adamwStep(rt: GpuRuntime, slots: readonly OptimizerSlot[], cfg: AdamWConfig, step: number, stats: Tensor): void {
  if (!Number.isInteger(step) || step < 1) throw new Error(`adamwStep: step must be a 1-based integer, got ${step}`);
  const bc1 = 1 - Math.pow(cfg.beta1, step);
  const bc2 = 1 - Math.pow(cfg.beta2, step);
  for (const s of slots) {
    const n = s.param.size;
    for (const t of [s.grad, s.m, s.v]) {
      if (t.size !== n) throw new Error(`adamwStep: '${t.label}' has ${t.size} elements, param '${s.param.label}' has ${n}`);
    }
    rt.dispatch({
      op: 'adamw', code, entryPoint: 'forward_adamw',
      params: optimizerParams({ n, lr: cfg.lr, beta1: cfg.beta1, beta2: cfg.beta2, eps: cfg.eps, wd: s.decay ? cfg.weightDecay : 0, bc1, bc2 }),
      bindings: { 1: s.grad, 5: stats, 6: s.param, 7: s.m, 8: s.v }, workgroups: grid1d(n, WG),
    });
  }
}
