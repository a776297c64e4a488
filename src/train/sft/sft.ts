// Supervised fine-tuning on tokenised conversations: packed batches, masked next-token loss on
// assistant tokens, AdamW with warm-up + cosine schedule, gradient clipping and accumulation,
// periodic held-out loss, metrics streamed per step. A NaN/Inf loss skips the update (the GPU
// optimizer refuses non-finite gradients) and is reported; the weights stay the last good ones.
import type { GpuRuntime } from '../../gpu/runtime';
import { type EncodedDoc, type PackedRow, packDocuments, stackRows } from '../../data/packing';
import { packSharedPrefixRows } from '../../data/sharedPrefixRows';
import { planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from '../../model/activations';
import { supervisedLoss, supervisedStep } from '../../model/trainStep';
import type { GpuWeights } from '../../model/weights';
import { Rng } from '../../util/rng';
import { AdamWState, type AdamWSnapshot, type GradientShard } from '../optimizerState';
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
  /**
   * Conversations with the same opening (system block: instructions and tools) hold it once per
   * row, each conversation's rest as a branch attending to it (data/sharedPrefixRows.ts): the same
   * loss and gradients as separate rows for far fewer tokens when the opening is most of a short
   * conversation (routing: ~230 of ~300 tokens). Default false.
   */
  sharePrefix?: boolean;
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
  /** Tokens the step ran through forward and backward (every non-padding token of its rows). */
  tokens: number;
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

/** The token ids up to a conversation's second <|im_start|> (its system block), as a grouping key. */
function openingKey(doc: EncodedDoc, imStart: number): string {
  const second = doc.ids.indexOf(imStart, 1);
  return doc.ids.slice(0, second < 0 ? doc.ids.length : second).join(',');
}

/** Rows where conversations with the same system block share it (groups in first-seen order, documents in their order). */
export function sharedOpeningRows(docs: readonly EncodedDoc[], T: number, padId: number): PackedRow[] {
  const imStart = docs[0]?.ids[0] ?? 0; // every conversation starts with <|im_start|>
  const groups = new Map<string, number[]>();
  docs.forEach((d, i) => {
    const k = openingKey(d, imStart);
    const g = groups.get(k);
    if (g) g.push(i);
    else groups.set(k, [i]);
  });
  const order = [...groups.values()];
  const ordered = order.flat().map((i) => docs[i]);
  const groupOf = order.flatMap((g, gi) => g.map(() => gi));
  return packSharedPrefixRows(ordered, groupOf, { seqLen: T, padId, pack: true }).rows;
}

/** Rows [from, from + count) of a stacked (B, T) batch (views, no copy). */
function sliceRows(batch: PackedRow, from: number, count: number, T: number): PackedRow {
  const cut = <A extends Int32Array | Float32Array>(a: A) => a.subarray(from * T, (from + count) * T) as A;
  return { inputIds: cut(batch.inputIds), targets: cut(batch.targets), mask: cut(batch.mask), segments: cut(batch.segments), positions: cut(batch.positions) };
}

const maskSum = (mask: Float32Array) => mask.reduce((a, m) => a + m, 0);

/** Non-padding tokens of a batch (padding positions have segment −1). */
function processed(segments: Int32Array): number {
  let n = 0;
  for (const s of segments) if (s >= 0) n++;
  return n;
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
  /**
   * Data parallel (src/shard/dataParallel.ts): every rank draws the same global batch of B rows and
   * trains rows [⌊rank·B/world⌋, ⌊(rank+1)·B/world⌋) (B need not be a multiple of world, only at
   * least world: 4 rows over 3 ranks are 1, 1 and 2). With allReduce, each rank's loss weights are
   * normalised by the GLOBAL batch's mask sum and the gradients summed across ranks, so N ranks at
   * batch B take the steps one process takes at batch B. Without it, each rank trains on its rows
   * alone (DiLoCo's inner steps; a caller averages the weights every few steps).
   */
  shard?: Omit<GradientShard, 'allReduce'> & Partial<Pick<GradientShard, 'allReduce'>>;
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
  const rowsOf = (docs: EncodedDoc[]) => (cfg.sharePrefix ? sharedOpeningRows(docs, T, data.padId) : packDocuments(docs, pack));
  const trainRows = rowsOf(data.train);
  const heldRows = data.heldout?.length ? rowsOf(data.heldout) : [];
  if (trainRows.length === 0) throw new Error('SFT: no training conversations');
  const sampler = new RowSampler(trainRows, B, T, cfg.seed);
  const shard = resume.shard;
  if (shard && (shard.rank < 0 || shard.rank >= shard.world)) throw new Error(`SFT data parallel: rank ${shard.rank} is not one of ${shard.world} ranks`);
  // the rows of each micro-batch this process runs (its activations are planned for that many)
  const [lo, hi] = shard ? [Math.floor((shard.rank * B) / shard.world), Math.floor(((shard.rank + 1) * B) / shard.world)] : [0, B];
  if (shard && hi === lo) throw new Error(`SFT data parallel: a batch of ${B} rows leaves rank ${shard.rank} of ${shard.world} without a row; choose a batch of at least ${shard.world} rows`);
  const rows = hi - lo;
  const acts = planActivations(rt, w.cfg, rows, T, w.lora?.lora);
  const scratch = planBackwardScratch(rt, w.cfg, rows, T, w.lora?.lora);
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
      let processedTokens = 0;
      for (let micro = 0; micro < cfg.gradAccumSteps; micro++) {
        const global = sampler.next();
        const batch = shard ? sliceRows(global, lo, rows, T) : global;
        // this rank's share of the global micro-batch's mean: its mask sum over the global one
        const share = shard?.allReduce ? Math.max(maskSum(batch.mask), 1) / Math.max(maskSum(global.mask), 1) : 1;
        const { loss } = await supervisedStep(rt, w, acts, scratch, batch, share / cfg.gradAccumSteps);
        lossSum += loss * share;
        tokens += scored(batch.mask);
        processedTokens += processed(batch.segments);
      }
      if (shard?.allReduce) lossSum = (await shard.allReduce(w, lossSum)).reduce<number>((a, x) => a + Number(x), 0);
      const lr = learningRate({ lr: cfg.lr, warmupSteps: cfg.warmupSteps, totalSteps: cfg.steps, minLrRatio: cfg.minLrRatio }, step);
      const stats = await opt.apply({ lr, beta1: cfg.beta1, beta2: cfg.beta2, eps: cfg.eps, weightDecay: cfg.weightDecay }, cfg.maxGradNorm);
      const loss = lossSum / cfg.gradAccumSteps;
      const m: SftMetrics = {
        step, loss, lr, gradNorm: stats.norm,
        tokensPerSec: tokens / ((performance.now() - t0) / 1000),
        tokens: processedTokens,
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
