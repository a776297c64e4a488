// The entropy bonus: loss −= entropyCoef · Σ_n w_n · H_n, H_n = −Σ_j p_j log p_j of row n's softmax.
// H depends on the whole logit row, not only on logp of the sampled token, so its gradient cannot go
// through dlogp. The GPU entropy backward (fused into logprobBackward, src/ops/crossEntropy.ts,
// which takes (N, 3) rows (dlogp, dH, H); the GRPO loss kernel src/ops/grpoLoss.ts writes them):
//   dH[n]            = entropyGradWeights(...)[n] = ∂loss/∂H_n = −entropyCoef · w_n
//   dlogits[n, j]   += dH[n] · ∂H_n/∂z_j,   ∂H_n/∂z_j = −p_j · (log p_j + H_n)
// added to the logprob backward's dlogits[n, j] = dlogp[n] · (onehot(t_n)[j] − p_j).
// entropyLogitGradient is the float64 reference of ∂H/∂z for that kernel's tests.
import { selectTokens, type BatchTotals } from './aggregation';
import type { GrpoConfig } from './config';

/** The fields of a GRPO batch that decide which tokens count and how much. */
export interface TokenLayout {
  /** 1 on policy-generated tokens. */
  mask: ArrayLike<number>; // (N)
  /** Trajectory of each token, −1 for padding. */
  seqIndex: Int32Array; // (N)
  /** Per-trajectory advantages (only their count S is used here). */
  advantages: ArrayLike<number>; // (S)
  /** Trajectories cut by a limit (excluded when cfg.maskTruncated). */
  truncated?: ArrayLike<boolean>; // (S)
  /** Step-wide counts for gradient accumulation. */
  batchTotals?: BatchTotals;
}

/** dH[n] = ∂loss/∂H_n = −entropyCoef · w_n (0 off policy tokens, all 0 when entropyCoef = 0). */
export function entropyGradWeights(layout: TokenLayout, cfg: GrpoConfig): Float32Array {
  const sel = selectTokens(layout.mask, layout.seqIndex, layout.advantages.length, cfg, layout.truncated, layout.batchTotals);
  const out = new Float32Array(sel.weight.length); // (N)
  if (cfg.entropyCoef === 0) return out;
  for (let n = 0; n < out.length; n++) if (sel.active[n]) out[n] = -cfg.entropyCoef * sel.weight[n];
  return out;
}

/** ∂H/∂z_j = −p_j · (log p_j + H) for one logit row (float64 reference for the GPU kernel). */
export function entropyLogitGradient(logits: ArrayLike<number>): Float64Array {
  const V = logits.length;
  let max = -Infinity;
  for (let j = 0; j < V; j++) max = Math.max(max, logits[j]);
  let sum = 0;
  for (let j = 0; j < V; j++) sum += Math.exp(logits[j] - max);
  const lse = max + Math.log(sum);
  let H = 0;
  const logp = new Float64Array(V);
  for (let j = 0; j < V; j++) {
    logp[j] = logits[j] - lse;
    H -= Math.exp(logp[j]) * logp[j];
  }
  const grad = new Float64Array(V); // (V)
  for (let j = 0; j < V; j++) grad[j] = -Math.exp(logp[j]) * (logp[j] + H);
  return grad;
}
