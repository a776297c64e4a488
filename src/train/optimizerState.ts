// AdamW state for a model: first/second moments per parameter, the grad-norm reducer, and the step
// counter. Norm weights get no weight decay (the usual convention).
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuWeights } from '../model/weights';
import { type AdamWConfig, adamwStep, GradNorm, type GradStats, type OptimizerSlot } from '../ops/optimizer';

/**
 * Data-parallel training's one collective step (src/shard/dataParallel.ts implements it over the
 * swarm): this process is rank `rank` of `world`; allReduce replaces w's gradients by the sum of
 * every rank's, added in rank order (so every rank holds bit-identical sums and takes the same
 * AdamW step), and returns each rank's `info` (small JSON: losses, metrics) in rank order.
 */
export interface GradientShard {
  rank: number;
  world: number;
  allReduce(w: GpuWeights, info: unknown): Promise<unknown[]>;
  /**
   * Every rank's `info` (small JSON), in rank order: counts the ranks must agree on before a step's
   * loss (GRPO's global token counts, the step's episode metrics). `what` names the round: a rank
   * that sends another round's (ranks out of step: a bug) stops the run naming both.
   */
  gather?(what: string, info: unknown): Promise<unknown[]>;
}

/** AdamW's state on the host (checkpoints): the step counter and both moments by parameter name. */
export interface AdamWSnapshot {
  step: number;
  m: Map<string, Float32Array>;
  v: Map<string, Float32Array>;
}

export class AdamWState {
  readonly slots: OptimizerSlot[];
  /** The parameter name of each slot. */
  readonly names: string[];
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
    this.names = chosen;
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

  /** Reads the moments back (exact resume); the step counter with them. */
  async snapshot(): Promise<AdamWSnapshot> {
    const m = new Map<string, Float32Array>();
    const v = new Map<string, Float32Array>();
    for (const [i, s] of this.slots.entries()) {
      m.set(this.names[i], await this.rt.readF32(s.m));
      v.set(this.names[i], await this.rt.readF32(s.v));
    }
    return { step: this.step, m, v };
  }

  /** Puts a snapshot back: every slot's moments must be there with its size. */
  restore(s: AdamWSnapshot): void {
    for (const [i, slot] of this.slots.entries()) {
      const name = this.names[i];
      const m = s.m.get(name);
      const v = s.v.get(name);
      if (!m || !v) throw new Error(`optimizer state: no saved moments for '${name}'; the checkpoint trained other parameters (full model vs LoRA?)`);
      if (m.length !== slot.m.size || v.length !== slot.v.size) throw new Error(`optimizer state: '${name}' has ${m.length} saved values, the parameter ${slot.m.size}`);
      this.rt.write(slot.m, m);
      this.rt.write(slot.v, v);
    }
    this.step = s.step;
  }

  destroy(): void {
    for (const s of this.slots) this.rt.release(s.m, s.v);
    this.rt.release(this.norm.partials, this.norm.stats);
  }
}
