// Which tokens enter the GRPO loss, and each one's weight w_n = ∂loss/∂ℓ_n in the scalar loss
//   loss = Σ_n w_n · ℓ_n   (ℓ_n the per-token loss):
//   token-mean               w_n = 1 / T                     T  = policy tokens in the batch
//   seq-mean-token-mean      w_n = 1 / (S · T_s)             S  = trajectories with ≥ 1 policy token,
//                                                             T_s = policy tokens of n's trajectory s
//   seq-mean-token-sum-norm  w_n = 1 / (S · lossNormLength)  lossNormLength a constant (max response length)
// A token is a policy token when mask[n] ≠ 0, seqIndex[n] ≥ 0, and its trajectory is not excluded
// by maskTruncated. Counting S over contributing trajectories keeps a fully masked trajectory from
// diluting the others.
import type { GrpoConfig } from './config';

/** Batch-wide counts when one call is a micro-batch of a larger optimizer step (gradient accumulation). */
export interface BatchTotals {
  /** Policy tokens over the whole step (replaces T). */
  tokens: number;
  /** Contributing trajectories over the whole step (replaces S); a trajectory must not be split across micro-batches. */
  sequences: number;
}

export interface TokenSelection {
  /** 1 where the token enters the loss. */
  active: Uint8Array; // (N)
  /** w_n: the token's weight in the aggregated loss; 0 where inactive. */
  weight: Float64Array; // (N)
  /** Policy tokens of each trajectory (after masking). */
  tokensPerSeq: Int32Array; // (S_all)
  /** T: policy tokens in this call. */
  tokens: number;
  /** S: trajectories in this call with at least one policy token. */
  sequences: number;
}

/** Selects the policy tokens and computes their aggregation weights (formulas in the header). */
export function selectTokens(
  mask: ArrayLike<number>, // (N) 1 on policy-generated tokens
  seqIndex: Int32Array, // (N) trajectory of each token, −1 for padding
  numSeqs: number, // S_all: trajectories in the batch (advantages.length)
  cfg: Pick<GrpoConfig, 'lossAggregation' | 'lossNormLength' | 'maskTruncated'>,
  truncated?: ArrayLike<boolean>, // (S_all)
  totals?: BatchTotals,
): TokenSelection {
  const N = mask.length;
  if (seqIndex.length !== N) throw new Error(`GRPO loss: seqIndex has ${seqIndex.length} entries, mask has ${N}; both are per token`);
  if (truncated && truncated.length !== numSeqs) throw new Error(`GRPO loss: truncated has ${truncated.length} entries for ${numSeqs} trajectories`);
  const active = new Uint8Array(N);
  const tokensPerSeq = new Int32Array(numSeqs);
  for (let n = 0; n < N; n++) {
    const s = seqIndex[n];
    if (s >= numSeqs || s < -1) throw new Error(`GRPO loss: seqIndex[${n}] = ${s}, but there are ${numSeqs} trajectories (use −1 for padding)`);
    if (mask[n] === 0 || s < 0) continue;
    if (cfg.maskTruncated && truncated?.[s]) continue; // over-long filtering: no gradient from cut episodes
    active[n] = 1;
    tokensPerSeq[s]++;
  }
  let tokens = 0;
  let sequences = 0;
  for (const t of tokensPerSeq) {
    tokens += t;
    if (t > 0) sequences++;
  }
  if (totals && !(totals.tokens >= tokens && totals.sequences >= sequences)) {
    throw new Error(`GRPO loss: batchTotals {tokens: ${totals.tokens}, sequences: ${totals.sequences}} are smaller than this micro-batch's own counts (${tokens}, ${sequences})`);
  }
  const T = totals?.tokens ?? tokens;
  const S = totals?.sequences ?? sequences;
  const weight = new Float64Array(N);
  for (let n = 0; n < N; n++) {
    if (!active[n]) continue;
    if (cfg.lossAggregation === 'token-mean') weight[n] = 1 / T;
    else if (cfg.lossAggregation === 'seq-mean-token-mean') weight[n] = 1 / (S * tokensPerSeq[seqIndex[n]]);
    else weight[n] = 1 / (S * cfg.lossNormLength);
  }
  return { active, weight, tokensPerSeq, tokens, sequences };
}
