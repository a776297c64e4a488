// GRPO per-token loss and dlogp on the GPU (shaders/grpoLoss.wgsl): the twin of grpoLoss in
// src/train/rl/grpo/loss.ts, which stays the float64 reference (and the host path of the trainer).
// Legend: N tokens (B·T of a micro-batch).
// The host packs what it already knows per token — behaviour log-prob, advantage (expanded from
// seqIndex / per-turn credit), aggregation weight w_n (selectTokens; 0 off policy tokens) — into one
// (N, 3) upload; logp, proxLogp, refLogp and entropy stay on the GPU. Outputs: dlogp for the model
// backward and per-token statistics (N, GRPO_STATS) the host sums into metrics (a few KiB).
// The kernel binds 7 storage buffers (the device guarantees 8), which is why the host inputs are packed.
import code from '../../shaders/grpoLoss.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d } from './grid';

/** Columns of the per-token statistics (see shaders/grpoLoss.wgsl). */
export const GRPO_STATS = 8;
export const GrpoStat = {
  /** w·(−ρ·surr): this token's policy-gradient loss term. */
  pg: 0,
  /** k3 = exp(d) − d − 1, d = refLogp − logp (unweighted; 0 without refLogp). */
  k3: 1,
  /** r = exp(logp − base). */
  ratio: 2,
  /** r_old − 1 − log r_old, r_old = exp(logp − oldLogp) (the approx_kl estimate). */
  approxKl: 3,
  /** ρ = min(exp(proxLogp − oldLogp), tisCap); 1 without proxLogp. */
  tisWeight: 4,
  /** H_n as read (0 without entropy). */
  entropy: 5,
  /** Bits (stored as f32): GrpoStatFlag. */
  flags: 6,
  /** w·ℓ_n: the token's whole weighted loss term (pg + KL + entropy). */
  term: 7,
} as const;
export const GrpoStatFlag = { clipHigh: 1, clipLow: 2, tisCapped: 4, badInput: 8, badOutput: 16 } as const;

export interface GrpoLossSpec {
  /** Tokens. */
  N: number;
  epsLow: number;
  epsHigh: number;
  /** β of the k3 KL term (used only with refLogp). */
  klCoef: number;
  /** Cap of the decoupled-PPO weight ρ (used only with proxLogp). */
  tisCap: number;
  /** Entropy bonus weight; ≠ 0 needs `entropy` and makes dlogp (N, 3) rows (dlogp, dH, H). */
  entropyCoef: number;
}

export interface GrpoLossInputs {
  /** Log-prob of each token under the current policy (logprobForward). */
  logp: Tensor; // (N)
  /** Host-packed per token: (oldLogp, advantage, weight w_n); see packGrpoTokens. */
  tokens: Tensor; // (N, 3)
  /** Proximal policy's log-probs (decoupled PPO; the trainer's 'tis' passes logp itself, detached). */
  proxLogp?: Tensor; // (N)
  /** Frozen reference model's log-probs; adds the k3 KL term. */
  refLogp?: Tensor; // (N)
  /** H_n (entropyForward): for the metric and the entropy bonus. */
  entropy?: Tensor; // (N)
}

/** Packs (oldLogp, advantage, weight) per token into the kernel's (N, 3) input. */
export function packGrpoTokens(oldLogp: ArrayLike<number>, advantage: ArrayLike<number>, weight: ArrayLike<number>, out?: Float32Array): Float32Array {
  const N = oldLogp.length;
  if (advantage.length !== N || weight.length !== N) throw new Error(`packGrpoTokens: oldLogp, advantage, weight need one entry per token (${N}, ${advantage.length}, ${weight.length})`);
  const t = out ?? new Float32Array(3 * N);
  if (t.length !== 3 * N) throw new Error(`packGrpoTokens: out has ${t.length} values, needs 3·N = ${3 * N}`);
  for (let n = 0; n < N; n++) {
    t[3 * n] = oldLogp[n];
    t[3 * n + 1] = advantage[n];
    t[3 * n + 2] = weight[n];
  }
  return t;
}

const FLAG = { prox: 1, ref: 2, entropy: 4, rows: 8 };

/**
 * Per-token GRPO loss terms and dlogp (N) — (N, 3) rows (dlogp, dH, H) when entropyCoef ≠ 0, the
 * form logprobBackward takes to fuse the entropy bonus — plus stats (N, GRPO_STATS).
 */
export function grpoLossForward(
  rt: GpuRuntime, inp: GrpoLossInputs, spec: GrpoLossSpec, outs?: { dlogp?: Tensor; stats?: Tensor },
): { dlogp: Tensor; stats: Tensor } {
  const { N } = spec;
  const need = (t: Tensor | undefined, name: string, size: number) => {
    if (t && t.size !== size) throw new Error(`grpoLossForward: ${name} '${t.label}' has ${t.size} elements, needs ${size}`);
  };
  need(inp.logp, 'logp', N);
  need(inp.tokens, 'tokens (oldLogp, advantage, weight)', 3 * N);
  need(inp.proxLogp, 'proxLogp', N);
  need(inp.refLogp, 'refLogp', N);
  need(inp.entropy, 'entropy', N);
  const bonus = spec.entropyCoef !== 0;
  if (bonus && !inp.entropy) throw new Error(`grpoLossForward: entropyCoef = ${spec.entropyCoef} needs the per-token entropy (entropyForward)`);
  const dlogp = outs?.dlogp ?? rt.empty(bonus ? [N, 3] : [N], 'f32', bonus ? 'grpo.dlogpRows' : 'grpo.dlogp');
  need(dlogp, 'dlogp output', bonus ? 3 * N : N);
  const stats = outs?.stats ?? rt.empty([N, GRPO_STATS], 'f32', 'grpo.stats');
  need(stats, 'stats output', GRPO_STATS * N);
  const flags = (inp.proxLogp ? FLAG.prox : 0) | (inp.refLogp ? FLAG.ref : 0) | (inp.entropy ? FLAG.entropy : 0) | (bonus ? FLAG.rows : 0);
  rt.dispatch({
    op: 'grpo_loss_forward', code, entryPoint: 'forward_grpo_loss',
    params: packParams([['u32', N], ['u32', flags], ['f32', spec.epsLow], ['f32', spec.epsHigh], ['f32', spec.klCoef], ['f32', spec.tisCap], ['f32', spec.entropyCoef]]),
    // absent optional inputs alias logp (read-only aliasing is allowed); the flags keep them unread
    bindings: { 1: inp.logp, 2: inp.tokens, 3: inp.proxLogp ?? inp.logp, 4: inp.refLogp ?? inp.logp, 5: inp.entropy ?? inp.logp, 6: dlogp, 7: stats },
    workgroups: grid1d(N, 256),
  });
  return { dlogp, stats };
}

/** Sums of the per-token statistics over the tokens with weight ≠ 0 (float64 on the host). */
export interface GrpoStatSums {
  /** Tokens summed (weight ≠ 0). */
  tokens: number;
  /** Σ w·(−ρ·surr). */
  pg: number;
  /** Σ k3 and Σ w·k3. */
  k3: number;
  k3Weighted: number;
  /** Σ (r_old − 1 − log r_old). */
  approxKl: number;
  /** Σ H and Σ w·H. */
  entropy: number;
  entropyWeighted: number;
  ratioSum: number;
  ratioMin: number;
  ratioMax: number;
  /** Σ ρ and the count with exp(proxLogp − oldLogp) > tisCap. */
  tisWeight: number;
  tisCapped: number;
  clipHigh: number;
  clipLow: number;
  /** Σ w·ℓ_n as the kernel computed it. */
  term: number;
  /** The first token whose inputs (or loss / dlogp) were not finite; null when all were. */
  bad: { n: number; what: 'input' | 'output' } | null;
}

export function sumGrpoStats(
  stats: Float32Array, // (N, GRPO_STATS) from grpoLossForward
  weight: ArrayLike<number>, // (N) the w_n the kernel was given (host float64 is fine)
): GrpoStatSums {
  const N = weight.length;
  if (stats.length !== GRPO_STATS * N) throw new Error(`sumGrpoStats: stats has ${stats.length} values, needs ${GRPO_STATS}·N = ${GRPO_STATS * N}`);
  const s: GrpoStatSums = {
    tokens: 0, pg: 0, k3: 0, k3Weighted: 0, approxKl: 0, entropy: 0, entropyWeighted: 0, ratioSum: 0, ratioMin: Infinity, ratioMax: -Infinity,
    tisWeight: 0, tisCapped: 0, clipHigh: 0, clipLow: 0, term: 0, bad: null,
  };
  for (let n = 0; n < N; n++) {
    const w = weight[n];
    if (w === 0) continue;
    const row = stats.subarray(GRPO_STATS * n, GRPO_STATS * (n + 1));
    const flags = row[GrpoStat.flags];
    if (!s.bad && flags & (GrpoStatFlag.badInput | GrpoStatFlag.badOutput)) s.bad = { n, what: flags & GrpoStatFlag.badInput ? 'input' : 'output' };
    const r = row[GrpoStat.ratio];
    s.tokens++;
    s.pg += row[GrpoStat.pg];
    s.k3 += row[GrpoStat.k3];
    s.k3Weighted += w * row[GrpoStat.k3];
    s.approxKl += row[GrpoStat.approxKl];
    s.entropy += row[GrpoStat.entropy];
    s.entropyWeighted += w * row[GrpoStat.entropy];
    s.ratioSum += r;
    s.ratioMin = Math.min(s.ratioMin, r);
    s.ratioMax = Math.max(s.ratioMax, r);
    s.tisWeight += row[GrpoStat.tisWeight];
    if (flags & GrpoStatFlag.tisCapped) s.tisCapped++;
    if (flags & GrpoStatFlag.clipHigh) s.clipHigh++;
    if (flags & GrpoStatFlag.clipLow) s.clipLow++;
    s.term += row[GrpoStat.term];
  }
  return s;
}
