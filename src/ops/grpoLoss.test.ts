// GPU GRPO loss vs grpoLoss (src/train/rl/grpo/loss.ts, float64) on fresh seeded batches that contain
// every case of the clip: ratio exactly 1, zero advantages, high-clipped (A > 0, r > 1 + epsHigh),
// low-clipped (A < 0, r < 1 − epsLow), unclipped; masked and padding tokens; KL, decoupled PPO and
// the entropy bonus. Tolerance 1e-5 (relative; sums relative to Σ|term|, counts exact).
import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import { relativeError } from '../reference/ops/finiteDiff';
import { entropyGradWeights, type GrpoConfig, grpoConfig, grpoLoss, type GrpoLossInput, selectTokens } from '../train/rl/grpo';
import { Rng } from '../util/rng';
import { GRPO_STATS, GrpoStat, grpoLossForward, packGrpoTokens, sumGrpoStats } from './grpoLoss';

const TOL = 1e-5;

interface Case {
  name: string;
  N: number;
  S: number;
  cfg: GrpoConfig;
  prox?: boolean;
  ref?: boolean;
  entropy?: boolean;
  tokenAdvantages?: boolean;
}

const CASES: Case[] = [
  { name: 'dapo token-mean, clip-higher, entropy metric', N: 37, S: 5, cfg: grpoConfig('default'), entropy: true },
  { name: 'grpo seq-mean-token-mean + k3 KL', N: 300, S: 7, cfg: grpoConfig('grpo'), ref: true },
  { name: 'dr-grpo token-sum-norm, decoupled PPO (tisCap), per-token advantages', N: 53, S: 4, cfg: grpoConfig('dr-grpo', { lossNormLength: 16 }), prox: true, tokenAdvantages: true },
  { name: 'entropy bonus: (dlogp, dH, H) rows', N: 29, S: 3, cfg: grpoConfig('default', { entropyCoef: 0.01, klCoef: 0.04 }), entropy: true, ref: true },
  { name: 'one token, ratio 1', N: 1, S: 1, cfg: grpoConfig('default') },
];

/** A batch whose log-prob differences cycle through ratio 1, clipped high/low and small moves. */
function makeBatch(rng: Rng, c: Case): GrpoLossInput {
  const { N, S } = c;
  const f32 = (f: (n: number) => number) => Float64Array.from(Float32Array.from({ length: N }, (_, n) => f(n)));
  const seqIndex = Int32Array.from({ length: N }, (_, n) => (N > 1 && n % 11 === 10 ? -1 : Math.min(S - 1, Math.floor((n * S) / N))));
  const mask = f32((n) => (N > 1 && n % 7 === 3 ? 0 : 1));
  const advantages = f32((s) => (s === 1 ? 0 : rng.normal(0, 1))).subarray(0, S); // trajectory 1: zero advantage
  const oldLogp = f32(() => rng.uniform(-6, -0.05));
  const moves = [0, 0.6, -0.6, 0.1, 0.02];
  const logp = f32((n) => oldLogp[n] + (n % 5 === 0 ? 0 : n % 5 < 3 ? moves[n % 5] : rng.normal(0, moves[n % 5])));
  return {
    logp, oldLogp, mask, seqIndex, advantages,
    proxLogp: c.prox ? f32((n) => oldLogp[n] + rng.normal(0, 0.6)) : undefined, // some ρ above tisCap = 2
    refLogp: c.ref ? f32((n) => logp[n] + rng.normal(0, 0.3)) : undefined,
    entropy: c.entropy ? f32(() => rng.uniform(0.5, 5)) : undefined,
    tokenAdvantages: c.tokenAdvantages ? f32(() => rng.normal(0, 1)) : undefined,
  };
}

/** Per-token advantage and weight the trainer packs for the kernel. */
function tokenInputs(input: GrpoLossInput, cfg: GrpoConfig) {
  const sel = selectTokens(input.mask, input.seqIndex, input.advantages.length, cfg, input.truncated, input.batchTotals);
  const A = Float64Array.from(input.seqIndex, (s, n) => (input.tokenAdvantages ? input.tokenAdvantages[n] : s >= 0 ? input.advantages[s] : 0));
  return { sel, A };
}

describe.each(TEST_ADAPTERS)('GRPO loss kernel on %s', (adapter) => {
  it.each(CASES)(`$name: dlogp, loss and metrics match grpoLoss (rel err ≤ ${TOL})`, async (c) => {
    const rt = await testRuntime(adapter);
    const input = makeBatch(new Rng(c.N * 31 + c.S), c);
    const host = grpoLoss(input, c.cfg);
    if (host.skipped) throw new Error(`reference skipped: ${host.reason}`);
    const { sel, A } = tokenInputs(input, c.cfg);
    const up = (x: ArrayLike<number> | undefined) => (x ? rt.upload(Float32Array.from(x), [c.N]) : undefined);
    const logp = up(input.logp)!;
    const tokens = rt.upload(packGrpoTokens(input.oldLogp, A, sel.weight), [c.N, 3]);
    const [prox, ref, ent] = [up(input.proxLogp), up(input.refLogp), up(input.entropy)];
    const out = grpoLossForward(rt, { logp, tokens, proxLogp: prox, refLogp: ref, entropy: ent }, { N: c.N, ...c.cfg });
    const dlogp = await rt.readF32(out.dlogp);
    const stats = await rt.readF32(out.stats);
    rt.release(logp, tokens, prox, ref, ent, out.dlogp, out.stats);

    // the batch exercises every branch it claims to
    const m = host.metrics;
    if (c.N > 1) {
      expect(m['clip_ratio/high']).toBeGreaterThan(0);
      expect(m['clip_ratio/low']).toBeGreaterThan(0);
    }
    expect(m['ratio/min'] <= 1 && m['ratio/max'] >= 1).toBe(true);

    if (c.cfg.entropyCoef !== 0) {
      expect(out.dlogp.shape).toEqual([c.N, 3]);
      const col = (k: number) => dlogp.filter((_, i) => i % 3 === k);
      expect(relativeError(col(0), host.dlogp)).toBeLessThanOrEqual(TOL);
      expect(relativeError(col(1), entropyGradWeights(input, c.cfg))).toBeLessThanOrEqual(TOL);
      expect(relativeError(col(2), Float64Array.from(input.entropy!, (h, n) => (sel.active[n] ? h : 0)))).toBeLessThanOrEqual(TOL);
    } else {
      expect(relativeError(dlogp, host.dlogp)).toBeLessThanOrEqual(TOL);
    }

    const s = sumGrpoStats(stats, sel.weight);
    const T = sel.tokens;
    let absTerms = 0;
    for (let n = 0; n < c.N; n++) absTerms += Math.abs(stats[GRPO_STATS * n + GrpoStat.term]);
    const near = (got: number, want: number, scale = Math.abs(want)) => expect(Math.abs(got - want)).toBeLessThanOrEqual(TOL * Math.max(scale, 1e-30));
    expect(s.bad).toBeNull();
    expect(s.tokens).toBe(T);
    near(s.term, host.loss, absTerms);
    near(s.pg + c.cfg.klCoef * s.k3Weighted - c.cfg.entropyCoef * s.entropyWeighted, host.loss, absTerms);
    near(s.pg, m.pg_loss, absTerms);
    expect(s.clipHigh / T).toBe(m['clip_ratio/high']);
    expect(s.clipLow / T).toBe(m['clip_ratio/low']);
    near(s.approxKl / T, m.approx_kl);
    near(s.ratioSum / T, m['ratio/mean']);
    near(s.ratioMin, m['ratio/min']);
    near(s.ratioMax, m['ratio/max']);
    if (input.refLogp) {
      near(s.k3 / T, m.kl);
      near(c.cfg.klCoef * s.k3Weighted, m.kl_loss);
    }
    if (input.entropy) {
      near(s.entropy / T, m.entropy);
      near(-c.cfg.entropyCoef * s.entropyWeighted, m.entropy_loss);
    }
    if (input.proxLogp) {
      near(s.tisWeight / T, m['tis/weight_mean']);
      expect(s.tisCapped / T).toBe(m['tis/capped_fraction']);
      expect(s.tisCapped).toBeGreaterThan(0);
    }
  });

  it('flags non-finite inputs on policy tokens only, and ratio overflow only where it matters', async () => {
    const rt = await testRuntime(adapter);
    const cfg = grpoConfig('default');
    const N = 6;
    // tokens: 0 NaN logp (policy) · 1 NaN logp (masked) · 2 r = e^100, A < 0 · 3 r = e^100, A > 0 (clipped: fine) · 4, 5 normal
    const logp = Float32Array.from([NaN, NaN, 99, 99, -1, -2]);
    const old = Float32Array.from([-1, -1, -1, -1, -1.1, -2]);
    const A = Float32Array.from([1, 1, -1, 1, 0.5, -0.5]);
    const w = Float32Array.from([0.2, 0, 0.2, 0.2, 0.2, 0.2]);
    const tl = rt.upload(logp, [N]);
    const tt = rt.upload(packGrpoTokens(old, A, w), [N, 3]);
    const out = grpoLossForward(rt, { logp: tl, tokens: tt }, { N, ...cfg });
    const dlogp = await rt.readF32(out.dlogp);
    const stats = await rt.readF32(out.stats);
    rt.release(tl, tt, out.dlogp, out.stats);
    const flags = (n: number) => stats[GRPO_STATS * n + GrpoStat.flags];
    expect([0, 1, 2, 3, 4, 5].map(flags)).toEqual([8, 0, 16, 1, 0, 0]); // badInput, —, badOutput, clipHigh
    expect(dlogp[1]).toBe(0);
    expect(dlogp[3]).toBe(0);
    expect(sumGrpoStats(stats, w).bad).toEqual({ n: 0, what: 'input' });
    // the finite tokens still match the reference
    const host = grpoLoss({ logp: logp.slice(3), oldLogp: old.slice(3), mask: [1, 1, 1], seqIndex: Int32Array.from([0, 1, 2]), advantages: A.slice(3), batchTotals: { tokens: 5, sequences: 5 } }, cfg);
    if (host.skipped) throw new Error(host.reason);
    expect(relativeError(dlogp.slice(3), host.dlogp)).toBeLessThanOrEqual(TOL);
  });
});
