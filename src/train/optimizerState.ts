// AdamW state for a model: first/second moments per parameter, the grad-norm reducer, and the step
// counter. Norm weights get no weight decay (the usual convention).
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuWeights } from '../model/weights';
import { type AdamWConfig, adamwStep, GradNorm, type GradStats, type OptimizerSlot } from '../ops/optimizer';

export class AdamWState {
  readonly slots: OptimizerSlot[];
  readonly norm: GradNorm;
  /** Optimizer steps taken (1-based after the first step). */
  step = 0;

  constructor(
    private readonly rt: GpuRuntime,
    w: GpuWeights,
    /** Restrict to these parameter names (LoRA trains adapters only); default every parameter. */
    names?: string[],
  ) {
    w.zeroGrads(); // makes sure gradients exist
    const chosen = names ?? w.trainableNames(); // LoRA attached: only the adapters train
    this.slots = chosen.map((name) => {
      const param = w.get(name);
      const kind = w.table.find((p) => p.name === name)?.kind;
      return { param, grad: w.grad(name), m: rt.zeros(param.shape, 'f32', `m:${name}`), v: rt.zeros(param.shape, 'f32', `v:${name}`), decay: kind !== 'norm' };
    });
    this.norm = new GradNorm(rt, this.slots.map((s) => s.grad));
  }

  /** Clips (maxNorm > 0) and applies one AdamW step at learning rate cfg.lr; returns the grad stats. */
  async apply(cfg: AdamWConfig, maxNorm: number): Promise<GradStats> {
    this.norm.compute(maxNorm);
    const stats = this.norm.read(); // queued before the update: reads the norm the update uses
    adamwStep(this.rt, this.slots, cfg, this.step + 1, this.norm.stats);
    const s = await stats;
    if (s.finite) this.step++;
    return s;
  }

  destroy(): void {
    for (const s of this.slots) this.rt.release(s.m, s.v);
    this.rt.release(this.norm.partials, this.norm.stats);
  }
}
