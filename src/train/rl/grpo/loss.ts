// The GRPO loss on the host: from per-token log-probs (N floats read back from the GPU) to the scalar
// loss and dlogp[n] = ∂loss/∂logp[n], which the model's backward takes as per-token coefficients.
//
// Per policy token n of trajectory s (legend: N tokens, S trajectories; w_n from aggregation.ts):
//   ratio  r   = exp(logp − base)             base = proxLogp ?? oldLogp
//   surr       = min(r·A, clamp(r, 1 − epsLow, 1 + epsHigh)·A)
//   k3         = exp(ref − logp) − (ref − logp) − 1      (only with refLogp)
//   ℓ_n        = −ρ·surr + β·k3 − entropyCoef·H_n         ρ = behaviour IS weight (below), 1 by default
//   loss       = Σ_n w_n · ℓ_n
//   dlogp[n]   = w_n · (−ρ·r·A · [surrogate not clipped] + β·(1 − exp(ref − logp)))
// The entropy term has no gradient through logp; entropy.ts gives its per-token weight for the GPU.
//
// Subgradients follow PyTorch (torch.minimum splits the gradient in half between equal arguments;
// torch.clamp passes the gradient at the bounds inclusively). Both branches then agree except where
// the clipped branch is strictly smaller, so the surrogate's gradient is zero exactly when
//   A > 0 and r > 1 + epsHigh   (high clip)   or   A < 0 and r < 1 − epsLow   (low clip)
// and r·A otherwise (at r = 1 ± eps exactly the gradient is still r·A). We test the ratio itself;
// a product r·A that rounds onto the bound is not special-cased.
//
// Off-policy data (staleness): rollouts record the behaviour policy's log-probs (oldLogp) at sampling
// time, so a sample k trainer versions old is corrected by the ordinary PPO ratio π/π_behaviour and
// the clip bounds how far one update moves on it. Optionally (decoupled PPO / truncated importance
// sampling): pass proxLogp, the log-probs of the same tokens under the policy the trainer recomputed
// (e.g. the current weights before this step). Then the trust region is centred on π_prox and each
// token is weighted by ρ = min(exp(proxLogp − oldLogp), tisCap), a constant with no gradient.
import { selectTokens, type BatchTotals } from './aggregation';
import type { GrpoConfig } from './config';

/** One packed batch, per token (N) or per trajectory (S). Float32 or Float64 arrays both work. */
export interface GrpoLossInput {
  /** Log-prob of each sampled token under the current policy (the GPU's fused log-softmax gather). */
  logp: ArrayLike<number>; // (N)
  /** Log-prob under the behaviour policy that sampled it, recorded at rollout. */
  oldLogp: ArrayLike<number>; // (N)
  /** Optional log-prob under a proximal policy recomputed by the trainer; turns on decoupled PPO with the tisCap weight. */
  proxLogp?: ArrayLike<number>; // (N)
  /** Log-prob under the frozen reference model; required when klCoef > 0. */
  refLogp?: ArrayLike<number>; // (N)
  /** 1 on policy-generated tokens, 0 on prompt, tool, user and padding tokens. */
  mask: ArrayLike<number>; // (N)
  /** Trajectory of each token, an index into advantages; −1 for padding. */
  seqIndex: Int32Array; // (N)
  /** Advantage of each trajectory (trajectory-level credit). */
  advantages: ArrayLike<number>; // (S)
  /** Optional per-token advantages (per-turn credit, advantages.ts); replace advantages[seqIndex[n]]. */
  tokenAdvantages?: ArrayLike<number>; // (N)
  /** Trajectories cut by a limit; excluded from the loss when cfg.maskTruncated. */
  truncated?: ArrayLike<boolean>; // (S)
  /** Per-token entropy of the current policy (the GPU's entropy kernel); for the metric and the bonus's value. */
  entropy?: ArrayLike<number>; // (N)
  /** Step-wide counts when this call is one micro-batch of a gradient-accumulation step. */
  batchTotals?: BatchTotals;
}

/** Metrics logged by name (TRL-style); fractions and means are over policy tokens. */
export type GrpoMetrics = Record<string, number>;

export type GrpoLossResult =
  | {
      skipped: false;
      /** The scalar loss (pg + kl + entropy terms). */
      loss: number;
      /** ∂loss/∂logp per token; 0 off policy tokens. */
      dlogp: Float32Array; // (N)
      metrics: GrpoMetrics;
    }
  | {
      /** The update must be skipped: keep the last good weights and do not step the optimizer. */
      skipped: true;
      /** What was wrong, naming the first offending entry. */
      reason: string;
      loss: 0;
      /** All zeros. */
      dlogp: Float32Array; // (N)
      metrics: GrpoMetrics;
    };

function checkLength(name: string, a: ArrayLike<unknown> | undefined, n: number, what: string): void {
  if (a !== undefined && a.length !== n) throw new Error(`GRPO loss: ${name} has ${a.length} entries, needs ${n} (${what})`);
}

/** The first non-finite input on a policy token, as a message; null when all are finite. */
function findNonFinite(input: GrpoLossInput, active: Uint8Array): string | null {
  const perToken: [string, ArrayLike<number> | undefined][] = [
    ['logp', input.logp],
    ['oldLogp', input.oldLogp],
    ['proxLogp', input.proxLogp],
    ['refLogp', input.refLogp],
    ['tokenAdvantages', input.tokenAdvantages],
    ['entropy', input.entropy],
  ];
  for (const [name, arr] of perToken) {
    if (!arr) continue;
    for (let n = 0; n < active.length; n++) {
      if (active[n] && !Number.isFinite(arr[n])) return `${name}[${n}] = ${arr[n]} (trajectory ${input.seqIndex[n]})`;
    }
  }
  if (!input.tokenAdvantages) {
    for (let n = 0; n < active.length; n++) {
      const s = input.seqIndex[n];
      if (active[n] && !Number.isFinite(input.advantages[s])) return `advantages[${s}] = ${input.advantages[s]}`;
    }
  }
  return null;
}

function skip(N: number, reason: string, metrics: GrpoMetrics = {}): GrpoLossResult {
  return { skipped: true, reason, loss: 0, dlogp: new Float32Array(N), metrics };
}

/** GRPO / Dr. GRPO / DAPO loss and its exact gradient w.r.t. logp (formulas in the header). */
export function grpoLoss(input: GrpoLossInput, cfg: GrpoConfig): GrpoLossResult {
  const N = input.logp.length;
  const S = input.advantages.length;
  checkLength('oldLogp', input.oldLogp, N, 'one per token');
  checkLength('proxLogp', input.proxLogp, N, 'one per token');
  checkLength('refLogp', input.refLogp, N, 'one per token');
  checkLength('mask', input.mask, N, 'one per token');
  checkLength('tokenAdvantages', input.tokenAdvantages, N, 'one per token');
  checkLength('entropy', input.entropy, N, 'one per token');
  if (cfg.klCoef > 0 && !input.refLogp) throw new Error(`GRPO loss: klCoef = ${cfg.klCoef} needs refLogp from the frozen reference model (or set klCoef = 0)`);

  const sel = selectTokens(input.mask, input.seqIndex, S, cfg, input.truncated, input.batchTotals);
  const bad = findNonFinite(input, sel.active);
  if (bad) return skip(N, `non-finite input ${bad}: skip this update and keep the last good weights`);
  if (sel.tokens === 0) return skip(N, 'no policy tokens in the batch (every token is masked): nothing to learn from', { policy_tokens: 0 });

  const { logp, oldLogp, proxLogp, refLogp, entropy } = input;
  const lo = 1 - cfg.epsLow;
  const hi = 1 + cfg.epsHigh;
  const beta = cfg.klCoef;
  const dlogp = new Float32Array(N); // (N)
  let pgLoss = 0;
  let klLoss = 0;
  let entLoss = 0;
  let clipLow = 0;
  let clipHigh = 0;
  let approxKl = 0;
  let refKl = 0;
  let entSum = 0;
  let ratioSum = 0;
  let ratioMin = Infinity;
  let ratioMax = -Infinity;
  let isSum = 0;
  let isCapped = 0;
  for (let n = 0; n < N; n++) {
    if (!sel.active[n]) continue;
    const w = sel.weight[n];
    const A = input.tokenAdvantages ? input.tokenAdvantages[n] : input.advantages[input.seqIndex[n]];
    const base = proxLogp ? proxLogp[n] : oldLogp[n];
    const r = Math.exp(logp[n] - base);
    let rho = 1;
    if (proxLogp) {
      const raw = Math.exp(proxLogp[n] - oldLogp[n]);
      rho = Math.min(raw, cfg.tisCap);
      if (raw > cfg.tisCap) isCapped++;
      isSum += rho;
    }
    // surr = min(r·A, clamp(r)·A): the clamp branch is strictly smaller only in these two cases
    const high = A > 0 && r > hi;
    const low = A < 0 && r < lo;
    const surr = Math.min(r * A, Math.min(Math.max(r, lo), hi) * A);
    pgLoss += w * (-rho * surr);
    let g = high || low ? 0 : -rho * r * A; // ∂(−ρ·surr)/∂logp
    if (refLogp) {
      const d = refLogp[n] - logp[n];
      const k3 = Math.exp(d) - d - 1;
      refKl += k3;
      klLoss += w * beta * k3;
      g += beta * (1 - Math.exp(d)); // ∂k3/∂logp = −exp(d) + 1
    }
    if (entropy) {
      entSum += entropy[n];
      entLoss -= w * cfg.entropyCoef * entropy[n];
    }
    dlogp[n] = w * g;
    if (high) clipHigh++;
    if (low) clipLow++;
    const rOld = proxLogp ? Math.exp(logp[n] - oldLogp[n]) : r;
    approxKl += rOld - 1 - Math.log(rOld); // k3 estimate of KL(π_old ‖ π) on behaviour samples
    ratioSum += r;
    ratioMin = Math.min(ratioMin, r);
    ratioMax = Math.max(ratioMax, r);
  }
  const T = sel.tokens;
  const loss = pgLoss + klLoss + entLoss;
  const metrics: GrpoMetrics = {
    loss,
    pg_loss: pgLoss,
    clip_ratio: (clipLow + clipHigh) / T,
    'clip_ratio/low': clipLow / T,
    'clip_ratio/high': clipHigh / T,
    approx_kl: approxKl / T,
    'ratio/mean': ratioSum / T,
    'ratio/min': ratioMin,
    'ratio/max': ratioMax,
    policy_tokens: T,
    response_length: T / sel.sequences,
  };
  if (refLogp) Object.assign(metrics, { kl: refKl / T, kl_loss: klLoss });
  if (entropy) Object.assign(metrics, { entropy: entSum / T, entropy_loss: entLoss });
  if (proxLogp) Object.assign(metrics, { 'tis/weight_mean': isSum / T, 'tis/capped_fraction': isCapped / T });

  if (!Number.isFinite(loss)) return skip(N, `loss is ${loss} (ratio overflow: logp − base up to ${Math.log(ratioMax)}): skip this update and keep the last good weights`, metrics);
  for (let n = 0; n < N; n++) {
    if (!Number.isFinite(dlogp[n])) return skip(N, `dlogp[${n}] = ${dlogp[n]} (ratio overflow in float32): skip this update and keep the last good weights`, metrics);
  }
  return { skipped: false, loss, dlogp, metrics };
}
