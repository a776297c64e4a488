// Supervised fine-tuning on tokenised conversations: packed batches, masked next-token loss on
// assistant tokens, AdamW with warm-up + cosine schedule, gradient clipping and accumulation,
// periodic held-out loss, metrics streamed per step. A NaN/Inf loss skips the update (the GPU
// optimizer refuses non-finite gradients) and is reported; the weights stay the last good ones.
import type { GpuRuntime } from '../../gpu/runtime';
import { type EncodedDoc, type PackedRow, packDocuments, stackRows } from '../../data/packing';
import { planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from '../../model/activations';
import { supervisedLoss, supervisedStep } from '../../model/trainStep';
import type { GpuWeights } from '../../model/weights';
import { Rng } from '../../util/rng';
import { AdamWState, type AdamWSnapshot } from '../optimizerState';
import { learningRate } from '../schedule';

export interface SftConfig {
  /** Rows per micro-batch (B). */
  batchSize: number;
  /** Tokens per row (T). */
  seqLen: number;
  /** Micro-batches per optimizer step. */
  gradAccumSteps: number;
  /** Optimizer steps. */
  steps: number;
  /** Peak learning rate. */
  lr: number;
  /** Linear warm-up steps. */
  warmupSteps: number;
  /** Final lr as a fraction of the peak (cosine decay). */
  minLrRatio: number;
  /** Decoupled weight decay (not applied to norm weights). */
  weightDecay: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Global gradient-norm clip; 0 disables. */
  maxGradNorm: number;
  /** Held-out loss every this many steps (0: never). */
  evalEvery: number;
  /** Row order shuffling seed. */
  seed: number;
  /** Pack several conversations per row (true) or one per row with padding (false). */
  pack: boolean;
}

export const DEFAULT_SFT: SftConfig = {
  batchSize: 8, seqLen: 256, gradAccumSteps: 1, steps: 100, lr: 3e-3, warmupSteps: 10, minLrRatio: 0.1,
  weightDecay: 0.0, beta1: 0.9, beta2: 0.95, eps: 1e-8, maxGradNorm: 1.0, evalEvery: 0, seed: 1, pack: true,
};

export interface SftMetrics {
  step: number;
  /** Mean masked loss over the step's micro-batches. */
  loss: number;
  lr: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  /** Scored (assistant) tokens per second in this step. */
  tokensPerSec: number;
  /** True when the update was skipped because the loss or gradients were not finite. */
  skipped: boolean;
  /** Held-out loss, on steps where it was measured. */
  evalLoss?: number;
}

/** Where the row stream is (exact resume): the shuffle RNG, this epoch's order and the next index in it. */
export interface RowSamplerState {
  rng: number;
  order: number[];
  pos: number;
}

/** Cycles over packed rows in a seeded shuffled order, B rows per batch (padding rows at the end of an epoch). */
class RowSampler {
  private order: number[] = [];
  private pos = 0;
  private rng: Rng;

  constructor(
    private readonly rows: PackedRow[],
    private readonly B: number,
    private readonly T: number,
    seed: number,
  ) {
    this.rng = new Rng(seed);
  }

  state(): RowSamplerState {
    return { rng: this.rng.saveState(), order: this.order.slice(), pos: this.pos };
  }

  restore(s: RowSamplerState): void {
    if (s.order.some((i) => i < 0 || i >= this.rows.length)) throw new Error(`SFT resume: the saved row order indexes ${this.rows.length} packed rows no more: resume with the same data, seqLen and packing`);
    this.rng = Rng.fromState(s.rng);
    this.order = s.order.slice();
    this.pos = s.pos;
  }

  next(): PackedRow {
    const picked: PackedRow[] = [];
    while (picked.length < this.B) {
      if (this.pos >= this.order.length) {
        this.order = this.rng.shuffle(this.rows.map((_, i) => i));
        this.pos = 0;
      }
      picked.push(this.rows[this.order[this.pos++]]);
    }
    return stackRows(picked);
  }

  static batches(rows: PackedRow[], B: number, T: number, padId: number): PackedRow[] {
    const out: PackedRow[] = [];
    for (let i = 0; i < rows.length; i += B) {
      const chunk = rows.slice(i, i + B);
      while (chunk.length < B) chunk.push(paddingRow(T, padId));
      out.push(stackRows(chunk));
    }
    return out;
  }
}

function paddingRow(T: number, padId: number): PackedRow {
  return {
    inputIds: new Int32Array(T).fill(padId), targets: new Int32Array(T).fill(padId), mask: new Float32Array(T),
    segments: new Int32Array(T).fill(-1), positions: new Int32Array(T),
  };
}

function scored(mask: Float32Array): number {
  let n = 0;
  for (const m of mask) if (m !== 0) n++;
  return n;
}

/** Held-out masked loss over all held-out rows (token-weighted). */
export async function evalLoss(rt: GpuRuntime, w: GpuWeights, rows: PackedRow[], B: number, T: number, padId: number): Promise<number> {
  const acts = planActivations(rt, w.cfg, B, T, w.lora?.lora);
  let num = 0;
  let den = 0;
  try {
    for (const batch of RowSampler.batches(rows, B, T, padId)) {
      const { loss } = await supervisedLoss(rt, w, acts, batch);
      const n = scored(batch.mask);
      num += loss * n;
      den += n;
    }
  } finally {
    releaseActivations(rt, acts);
  }
  return num / Math.max(den, 1);
}

/** What exact resume of an SFT run needs besides the weights: the last step done and the row stream. */
export interface SftLoopState {
  step: number;
  sampler: RowSamplerState;
}

/**
 * Exact resume: `from` continues after a saved step (the weights must already be the checkpoint's),
 * afterStep sees the state after every step (a caller saves checkpoints there), stopAfter ends the
 * run early (the schedule still spans cfg.steps).
 */
export interface SftResume {
  from?: { state: SftLoopState; optimizer: AdamWSnapshot };
  afterStep?: (state: SftLoopState, opt: AdamWState, w: GpuWeights) => Promise<void>;
  stopAfter?: number;
}

export async function trainSft(
  rt: GpuRuntime,
  w: GpuWeights,
  data: { train: EncodedDoc[]; heldout?: EncodedDoc[]; padId: number },
  cfg: SftConfig,
  onMetrics?: (m: SftMetrics) => void,
  resume: SftResume = {},
): Promise<SftMetrics[]> {
  const { batchSize: B, seqLen: T } = cfg;
  const pack = { seqLen: T, padId: data.padId, pack: cfg.pack };
  const trainRows = packDocuments(data.train, pack);
  const heldRows = data.heldout?.length ? packDocuments(data.heldout, pack) : [];
  if (trainRows.length === 0) throw new Error('SFT: no training conversations');
  const sampler = new RowSampler(trainRows, B, T, cfg.seed);
  const acts = planActivations(rt, w.cfg, B, T, w.lora?.lora);
  const scratch = planBackwardScratch(rt, w.cfg, B, T, w.lora?.lora);
  const opt = new AdamWState(rt, w);
  const history: SftMetrics[] = [];
  if (resume.from) {
    sampler.restore(resume.from.state.sampler);
    opt.restore(resume.from.optimizer);
  }
  const first = (resume.from?.state.step ?? 0) + 1;
  const last = Math.min(cfg.steps, resume.stopAfter ?? cfg.steps);
  try {
    for (let step = first; step <= last; step++) {
      const t0 = performance.now();
      w.zeroGrads();
      let lossSum = 0;
      let tokens = 0;
      for (let micro = 0; micro < cfg.gradAccumSteps; micro++) {
        const batch = sampler.next();
        const { loss } = await supervisedStep(rt, w, acts, scratch, batch, 1 / cfg.gradAccumSteps);
        lossSum += loss;
        tokens += scored(batch.mask);
      }
      const lr = learningRate({ lr: cfg.lr, warmupSteps: cfg.warmupSteps, totalSteps: cfg.steps, minLrRatio: cfg.minLrRatio }, step);
      const stats = await opt.apply({ lr, beta1: cfg.beta1, beta2: cfg.beta2, eps: cfg.eps, weightDecay: cfg.weightDecay }, cfg.maxGradNorm);
      const loss = lossSum / cfg.gradAccumSteps;
      const m: SftMetrics = {
        step, loss, lr, gradNorm: stats.norm,
        tokensPerSec: tokens / ((performance.now() - t0) / 1000),
        skipped: !stats.finite || !Number.isFinite(loss),
      };
      if (cfg.evalEvery > 0 && heldRows.length > 0 && (step % cfg.evalEvery === 0 || step === cfg.steps)) {
        m.evalLoss = await evalLoss(rt, w, heldRows, B, T, data.padId);
      }
      history.push(m);
      onMetrics?.(m);
      await resume.afterStep?.({ step, sampler: sampler.state() }, opt, w);
    }
  } finally {
    releaseActivations(rt, acts);
    releaseBackwardScratch(rt, scratch);
    opt.destroy();
  }
  return history;
}
