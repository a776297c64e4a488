// Trajectories → packed (B, T) micro-batches for the GRPO trainer, with the per-token host arrays
// the loss needs laid out like the logits. Packing follows SFT (data/packing.ts): a document's
// token i sits at position start + i, and position p is scored against token p + 1, so
//   logp[start + i − 1] scores token i   (i = 1 … L−1; token 0 is never scored).
// Each trajectory lands in exactly one row, so it is never split across micro-batches (the loss's
// batchTotals rely on that). With sharePrefix, a group's samples hold their common prompt once per
// row (sharedPrefixRows.ts); a sample's own tokens keep the same start + i addressing.
import { type EncodedDoc, type PackedRow, packDocumentsWithPlacement, paddingRow, type Placement, stackRows } from '../../data/packing';
import type { BatchTotals } from './grpo';
import { packSharedPrefixRows } from '../../data/sharedPrefixRows';
import type { Trajectory } from './trajectory';

/** One (B, T) micro-batch plus its per-token records (all (N) = (B·T), row-major). */
export interface RlMicroBatch {
  /** Inputs, next-token targets, positions and segments, as writeBatch takes them. */
  rows: PackedRow;
  /** Behaviour log-prob of each position's target (0 where not a policy token). */
  oldLogp: Float32Array; // (N)
  /** 1 where the target is a policy-sampled token. */
  mask: Float32Array; // (N)
  /** Index (into the step's trajectory list) of the trajectory whose token is the target; −1 elsewhere. */
  seqIndex: Int32Array; // (N)
  /** Assistant turn of the target token; −1 where it is not a policy token. */
  turnIndex: Int32Array; // (N)
  /** Index i of the target token in its trajectory's ids; −1 where it is not a policy token. */
  tokenIndex: Int32Array; // (N)
}

/** Where one trajectory's tokens went. */
export interface RlPlacement {
  /** Micro-batch index. */
  micro: number;
  /** Row inside the micro-batch. */
  row: number;
  /** Token i (i ≥ shared) sits at position start + i of the row. */
  start: number;
  /** Tokens placed. */
  length: number;
  /** Leading (prompt) tokens held once for the whole group in the row's shared prefix; 0 without sharePrefix. */
  shared: number;
}

export interface RlBatch {
  micro: RlMicroBatch[];
  /** One per trajectory: where it was placed, or null when it has no policy token (nothing to train). */
  placements: (RlPlacement | null)[];
  /** Step-wide counts for the loss's aggregation (see grpo/aggregation.ts). */
  totals: BatchTotals;
  /** Rows holding at least one trajectory (the rest of the last micro-batch is padding). */
  usedRows: number;
}

export interface RlBatchOptions {
  /** B: rows per micro-batch. */
  rows: number;
  /** T: tokens per row; every trajectory must fit (set it ≥ the rollout's maxTotalTokens). */
  seqLen: number;
  /** Padding token id. */
  padId: number;
  /** Leave truncated trajectories out of the totals (GrpoConfig.maskTruncated). */
  maskTruncated: boolean;
  /** Pack several trajectories per row (default true). */
  pack?: boolean;
  /**
   * Consecutive runs of `groupSize` trajectories (a GRPO group) hold their common prompt once per row
   * (default false). The rows can then be longer than the model's positions: positions stay per trajectory.
   */
  sharePrefix?: { groupSize: number };
}

export function buildRlBatch(trajs: readonly Trajectory[], opts: RlBatchOptions): RlBatch {
  const { rows: B, seqLen: T } = opts;
  const trainable: number[] = [];
  trajs.forEach((t, s) => {
    if (t.ids.length > T) throw new Error(`RL batch: trajectory ${s} (${t.taskId}) has ${t.ids.length} tokens, more than the row length ${T}: raise seqLen to the rollout's maxTotalTokens`);
    if (t.lossMask.slice(1).some((m) => m !== 0)) trainable.push(s);
  });
  const docs: EncodedDoc[] = trainable.map((s) => ({ ids: trajs[s].ids, mask: trajs[s].lossMask }));
  const packOpts = { seqLen: T, padId: opts.padId, pack: opts.pack ?? true };
  const G = opts.sharePrefix?.groupSize;
  const packed: { rows: PackedRow[]; placements: (Placement & { shared?: number })[] } = G
    ? packSharedPrefixRows(docs, trainable.map((s) => Math.floor(s / G)), packOpts)
    : packDocumentsWithPlacement(docs, packOpts);
  const nMicro = Math.ceil(packed.rows.length / B);
  const micro: RlMicroBatch[] = [];
  for (let m = 0; m < nMicro; m++) {
    const chunk = packed.rows.slice(m * B, (m + 1) * B);
    while (chunk.length < B) chunk.push(paddingRow(T, opts.padId));
    const N = B * T;
    micro.push({ rows: stackRows(chunk), oldLogp: new Float32Array(N), mask: new Float32Array(N), seqIndex: new Int32Array(N).fill(-1), turnIndex: new Int32Array(N).fill(-1), tokenIndex: new Int32Array(N).fill(-1) });
  }
  const placements: (RlPlacement | null)[] = trajs.map(() => null);
  let tokens = 0;
  let sequences = 0;
  trainable.forEach((s, d) => {
    const p = packed.placements[d];
    const place: RlPlacement = { micro: Math.floor(p.row / B), row: p.row % B, start: p.start, length: p.length, shared: p.shared ?? 0 };
    placements[s] = place;
    const mb = micro[place.micro];
    const t = trajs[s];
    const base = place.row * T + place.start;
    let own = 0;
    for (let i = Math.max(1, place.shared + 1); i < place.length; i++) {
      const n = base + i - 1; // the position whose target is token i (shared prompt targets score nothing)
      mb.seqIndex[n] = s;
      if (t.lossMask[i] === 0) continue;
      mb.mask[n] = 1;
      mb.oldLogp[n] = t.behaviourLogprobs[i];
      mb.turnIndex[n] = t.turnIndex[i];
      mb.tokenIndex[n] = i;
      own++;
    }
    if (opts.maskTruncated && t.truncated) return;
    tokens += own;
    if (own > 0) sequences++;
  });
  return { micro, placements, totals: { tokens, sequences }, usedRows: packed.rows.length };
}
