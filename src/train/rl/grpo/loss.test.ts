import { describe, expect, it } from 'vitest';
import { checkGradients } from '../../../reference/ops';
import { Rng } from '../../../util/rng';
import { grpoConfig, type GrpoConfig, type LossAggregation } from './config';
import { grpoLoss, type GrpoLossInput } from './loss';

const AGGREGATIONS: LossAggregation[] = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'];
const cfgFor = (agg: LossAggregation, o: Partial<GrpoConfig> = {}): GrpoConfig => grpoConfig('default', { lossAggregation: agg, lossNormLength: 10, ...o });

// Hand-sized batch: trajectory 0 = prompt token + 3 policy tokens; trajectory 1 = policy, tool, policy; then padding.
//   index:     0   1   2   3   4   5   6   7
const SEQ = Int32Array.from([0, 0, 0, 0, 1, 1, 1, -1]);
const MASK = Float64Array.from([0, 1, 1, 1, 1, 0, 1, 0]);
const POLICY = [1, 2, 3, 4, 6];
const ADV = [1, -0.5];

/** A batch whose ratio r_n = exp(logp − old) takes the given values on the policy tokens (1 elsewhere). */
function batch(ratios: number[] = [1, 1, 1, 1, 1], extra: Partial<GrpoLossInput> = {}): GrpoLossInput {
  const old = Float64Array.from([-1.0, -2.0, -0.5, -1.5, -3.0, -0.7, -2.5, -9.0]);
  const logp = Float64Array.from(old);
  POLICY.forEach((n, j) => (logp[n] = old[n] + Math.log(ratios[j])));
  return { logp, oldLogp: old, mask: MASK, seqIndex: SEQ, advantages: ADV, ...extra };
}

function ok(r: ReturnType<typeof grpoLoss>) {
  if (r.skipped) throw new Error(`unexpectedly skipped: ${r.reason}`);
  return r;
}

const expectDlogp = (dlogp: Float32Array, expected: Record<number, number>): void => {
  for (let n = 0; n < dlogp.length; n++) expect(dlogp[n]).toBeCloseTo(expected[n] ?? 0, 7);
};

describe('grpoLoss: hand-computed values', () => {
  // On-policy (r = 1): ℓ = −A; T0 = 3, T1 = 2, T = 5, S = 2.
  const onPolicy: Record<LossAggregation, { loss: number; d0: number; d1: number }> = {
    'token-mean': { loss: -(3 * 1 + 2 * -0.5) / 5, d0: -1 / 5, d1: 0.5 / 5 },
    'seq-mean-token-mean': { loss: -(1 + -0.5) / 2, d0: -1 / 6, d1: 0.5 / 4 },
    'seq-mean-token-sum-norm': { loss: -(3 - 1) / (2 * 10), d0: -1 / 20, d1: 0.5 / 20 },
  };
  // Off-policy ratios [1.5, 0.5, 1.1 | 0.5, 1.5] with A = [1 | −0.5], clip [0.8, 1.28]:
  // surr = [1.28, 0.5, 1.1 | −0.4, −0.75]; token 1 high-clipped, token 4 low-clipped (zero grad).
  const offPolicy: Record<LossAggregation, { loss: number; d: Record<number, number> }> = {
    'token-mean': { loss: (-1.28 - 0.5 - 1.1 + 0.4 + 0.75) / 5, d: { 2: -0.5 / 5, 3: -1.1 / 5, 6: 0.75 / 5 } },
    'seq-mean-token-mean': { loss: ((-1.28 - 0.5 - 1.1) / 3 + (0.4 + 0.75) / 2) / 2, d: { 2: -0.5 / 6, 3: -1.1 / 6, 6: 0.75 / 4 } },
    'seq-mean-token-sum-norm': { loss: (-1.28 - 0.5 - 1.1 + 0.4 + 0.75) / 20, d: { 2: -0.5 / 20, 3: -1.1 / 20, 6: 0.75 / 20 } },
  };

  for (const agg of AGGREGATIONS) {
    it(`${agg}: on-policy loss and dlogp`, () => {
      const r = ok(grpoLoss(batch(), cfgFor(agg)));
      const e = onPolicy[agg];
      expect(r.loss).toBeCloseTo(e.loss, 14);
      expectDlogp(r.dlogp, { 1: e.d0, 2: e.d0, 3: e.d0, 4: e.d1, 6: e.d1 });
      expect(r.metrics.clip_ratio).toBe(0);
      expect(r.metrics.policy_tokens).toBe(5);
      expect(r.metrics.response_length).toBe(2.5);
    });

    it(`${agg}: off-policy loss, dlogp and clip metrics`, () => {
      const r = ok(grpoLoss(batch([1.5, 0.5, 1.1, 0.5, 1.5]), cfgFor(agg)));
      const e = offPolicy[agg];
      expect(r.loss).toBeCloseTo(e.loss, 12);
      expectDlogp(r.dlogp, e.d);
      expect(r.metrics.clip_ratio).toBeCloseTo(2 / 5, 14);
      expect(r.metrics['clip_ratio/high']).toBeCloseTo(1 / 5, 14);
      expect(r.metrics['clip_ratio/low']).toBeCloseTo(1 / 5, 14);
      expect(r.metrics['ratio/max']).toBeCloseTo(1.5, 12);
    });
  }

  it('k3 KL to the reference: value, gradient and metric (token-mean, β = 0.1)', () => {
    const b = batch();
    const ref = Float64Array.from(b.logp, (x) => x + Math.LN2); // ref − logp = ln 2 ⇒ k3 = 1 − ln 2, ∂k3/∂logp = −1
    const r = ok(grpoLoss({ ...b, refLogp: ref }, cfgFor('token-mean', { klCoef: 0.1 })));
    expect(r.loss).toBeCloseTo(-0.4 + 0.1 * (1 - Math.LN2), 14);
    expectDlogp(r.dlogp, { 1: -0.22, 2: -0.22, 3: -0.22, 4: 0.08, 6: 0.08 });
    expect(r.metrics.kl).toBeCloseTo(1 - Math.LN2, 14);
    expect(r.metrics.kl_loss).toBeCloseTo(0.1 * (1 - Math.LN2), 14);
  });

  it('approx_kl is the mean of (r − 1) − log r against the behaviour policy', () => {
    const r = ok(grpoLoss(batch([2, 1, 1, 1, 1]), cfgFor('token-mean')));
    expect(r.metrics.approx_kl).toBeCloseTo((1 - Math.LN2) / 5, 14);
  });

  it('entropy: metric is the policy-token mean; the bonus enters the loss value only', () => {
    const entropy = Float64Array.from([9, 1, 2, 3, 4, 9, 5, 9]);
    const plain = ok(grpoLoss(batch(), cfgFor('token-mean')));
    const r = ok(grpoLoss(batch([1, 1, 1, 1, 1], { entropy }), cfgFor('token-mean', { entropyCoef: 0.01 })));
    expect(r.metrics.entropy).toBeCloseTo(3, 14);
    expect(r.loss).toBeCloseTo(plain.loss - 0.01 * 3, 14);
    expect([...r.dlogp]).toEqual([...plain.dlogp]);
  });
});

describe('grpoLoss: gradient', () => {
  /** Random batch with ratios kept ≥ 1e-3 away from the clip bounds. */
  function randomBatch(seed: number, lo: number, hi: number): GrpoLossInput & { logp: Float64Array } {
    const rng = new Rng(seed);
    const S = 4;
    const N = 40;
    const seqIndex = new Int32Array(N);
    const mask = new Float64Array(N);
    for (let n = 0; n < N; n++) {
      seqIndex[n] = n < 36 ? Math.floor(n / 9) : -1;
      mask[n] = seqIndex[n] >= 0 && rng.next() < 0.75 ? 1 : 0;
    }
    const oldLogp = Float64Array.from({ length: N }, () => rng.uniform(-4, -0.1));
    const logp = Float64Array.from(oldLogp, (o) => {
      for (;;) {
        const d = rng.uniform(-1.2, 1.2);
        const r = Math.exp(d);
        if (Math.abs(r - lo) > 1e-3 && Math.abs(r - hi) > 1e-3) return o + d;
      }
    });
    return {
      logp,
      oldLogp,
      refLogp: Float64Array.from(logp, (x) => x + rng.uniform(-0.5, 0.5)),
      mask,
      seqIndex,
      advantages: Array.from({ length: S }, () => rng.normal()),
      entropy: Float64Array.from({ length: N }, () => rng.uniform(0, 3)),
    };
  }

  const cases = AGGREGATIONS.flatMap((agg) => [
    { agg, klCoef: 0, prox: false },
    { agg, klCoef: 0.2, prox: false },
    { agg, klCoef: 0.2, prox: true },
  ]);
  it.each(cases)('dlogp = central difference of the loss ($agg, β = $klCoef, prox = $prox)', ({ agg, klCoef, prox }) => {
    const cfg = cfgFor(agg, { klCoef, entropyCoef: 0.01, tisCap: 1.5 });
    const b = randomBatch(7, 1 - cfg.epsLow, 1 + cfg.epsHigh);
    if (prox) {
      // the ratio's base moves to proxLogp (still away from the bounds); ρ = exp(0.3·sin n) falls both below and above the cap
      b.proxLogp = b.oldLogp;
      b.oldLogp = Float64Array.from(b.proxLogp, (p, n) => p - 0.3 * Math.sin(n));
    }
    if (!klCoef) delete b.refLogp;
    const r = ok(grpoLoss(b, cfg));
    expect(r.metrics.clip_ratio).toBeGreaterThan(0); // the batch exercises the clipped branch too
    const f = () => grpoLoss(b, cfg).loss;
    checkGradients(f, b.logp, Float64Array.from(r.dlogp), { samples: 40, rtol: 1e-5 });
  });

  it.each(AGGREGATIONS)('ratio = 1 gives dlogp = −A · w exactly (%s)', (agg) => {
    const b = randomBatch(11, 0, 0);
    b.logp = Float64Array.from(b.oldLogp);
    delete b.refLogp;
    const r = ok(grpoLoss(b, cfgFor(agg)));
    const T = [0, 1, 2, 3].map((s) => [...b.seqIndex].filter((x, n) => x === s && b.mask[n] === 1).length);
    const total = T.reduce((a, c) => a + c, 0);
    const S = T.filter((t) => t > 0).length;
    for (let n = 0; n < b.logp.length; n++) {
      const s = b.seqIndex[n];
      if (s < 0 || b.mask[n] === 0) {
        expect(r.dlogp[n]).toBe(0);
        continue;
      }
      const w = agg === 'token-mean' ? 1 / total : agg === 'seq-mean-token-mean' ? 1 / (S * T[s]) : 1 / (S * 10);
      expect(r.dlogp[n]).toBe(Math.fround(-b.advantages[s] * w));
    }
  });

  it('zero advantage gives zero gradient, on- or off-policy', () => {
    const b = randomBatch(3, 0, 0);
    delete b.refLogp;
    const r = ok(grpoLoss({ ...b, advantages: [0, 0, 0, 0] }, cfgFor('token-mean')));
    expect(r.dlogp.every((x) => x === 0)).toBe(true);
    expect(r.loss).toBe(0);
  });

  it('clip activation: A > 0 above 1 + epsHigh and A < 0 below 1 − epsLow have zero gradient; the mirror cases do not', () => {
    const cfg = cfgFor('token-mean');
    const one = (ratio: number, A: number) => {
      const seqIndex = Int32Array.from([0]);
      return ok(grpoLoss({ logp: [Math.log(ratio)], oldLogp: [0], mask: [1], seqIndex, advantages: [A] }, cfg)).dlogp[0];
    };
    expect(one(1.3, 1)).toBe(0);
    expect(one(0.79, -1)).toBe(0);
    expect(one(1.27, 1)).toBeCloseTo(-1.27, 6);
    expect(one(0.81, -1)).toBeCloseTo(0.81, 6);
    expect(one(1.3, -1)).toBeCloseTo(1.3, 6); // pessimistic bound keeps the unclipped branch
    expect(one(0.5, 1)).toBeCloseTo(-0.5, 6);
  });

  it('at a clip bound the gradient passes (PyTorch min/clamp convention): eps = 0, r = 1', () => {
    const cfg = cfgFor('token-mean', { epsLow: 0, epsHigh: 0 });
    for (const A of [2, -2]) {
      const r = ok(grpoLoss({ logp: [-1], oldLogp: [-1], mask: [1], seqIndex: Int32Array.from([0]), advantages: [A] }, cfg));
      expect(r.dlogp[0]).toBe(-A);
      expect(r.metrics.clip_ratio).toBe(0);
    }
  });
});

describe('grpoLoss: masking, off-policy weights and batch totals', () => {
  it('maskTruncated excludes a truncated trajectory from the loss and from S', () => {
    const truncated = [false, true];
    const off = ok(grpoLoss(batch([1, 1, 1, 1, 1], { truncated }), cfgFor('seq-mean-token-mean')));
    const on = ok(grpoLoss(batch([1, 1, 1, 1, 1], { truncated }), cfgFor('seq-mean-token-mean', { maskTruncated: true })));
    expect(off.loss).toBeCloseTo(-0.25, 14);
    expect(on.loss).toBeCloseTo(-1, 14);
    expectDlogp(on.dlogp, { 1: -1 / 3, 2: -1 / 3, 3: -1 / 3 });
    expect(on.metrics.policy_tokens).toBe(3);
  });

  it('batchTotals replace the micro-batch counts (gradient accumulation)', () => {
    const r = ok(grpoLoss(batch([1, 1, 1, 1, 1], { batchTotals: { tokens: 10, sequences: 4 } }), cfgFor('token-mean')));
    expectDlogp(r.dlogp, { 1: -0.1, 2: -0.1, 3: -0.1, 4: 0.05, 6: 0.05 });
    expect(() => grpoLoss(batch([1, 1, 1, 1, 1], { batchTotals: { tokens: 3, sequences: 2 } }), cfgFor('token-mean'))).toThrow(/smaller than/);
  });

  it('proxLogp: ratio against the proximal policy, token weight min(π_prox/π_old, tisCap)', () => {
    const b = batch();
    const cfg = cfgFor('token-mean', { tisCap: 2 });
    const capped = ok(grpoLoss({ ...b, proxLogp: b.logp, oldLogp: Float64Array.from(b.logp, (x) => x - Math.log(3)) }, cfg));
    expectDlogp(capped.dlogp, { 1: -0.4, 2: -0.4, 3: -0.4, 4: 0.2, 6: 0.2 });
    expect(capped.metrics['tis/capped_fraction']).toBe(1);
    const under = ok(grpoLoss({ ...b, proxLogp: b.logp, oldLogp: Float64Array.from(b.logp, (x) => x - Math.log(1.5)) }, cfg));
    expectDlogp(under.dlogp, { 1: -0.3, 2: -0.3, 3: -0.3, 4: 0.15, 6: 0.15 });
    expect(under.metrics['tis/weight_mean']).toBeCloseTo(1.5, 12);
    expect(under.metrics.clip_ratio).toBe(0); // r = π/π_prox = 1 although π/π_old = 1.5
  });

  it('klCoef > 0 without refLogp is a usage error', () => {
    expect(() => grpoLoss(batch(), cfgFor('token-mean', { klCoef: 0.1 }))).toThrow(/refLogp/);
  });

  it('rejects mismatched shapes and out-of-range trajectory ids', () => {
    expect(() => grpoLoss({ ...batch(), mask: [1, 1] }, cfgFor('token-mean'))).toThrow(/mask has 2 entries/);
    expect(() => grpoLoss({ ...batch(), advantages: [1] }, cfgFor('token-mean'))).toThrow(/seqIndex\[4\] = 1/);
  });
});

describe('grpoLoss: NaN / Inf', () => {
  const cfg = cfgFor('token-mean');
  const skipped = (r: ReturnType<typeof grpoLoss>, pattern: RegExp) => {
    expect(r.skipped).toBe(true);
    if (r.skipped) expect(r.reason).toMatch(pattern);
    expect(r.loss).toBe(0);
    expect(r.dlogp.every((x) => x === 0)).toBe(true);
  };

  it('skips on a NaN logp of a policy token and names it', () => {
    const b = batch();
    (b.logp as Float64Array)[2] = NaN;
    skipped(grpoLoss(b, cfg), /logp\[2\] = NaN/);
  });
  it('ignores NaN / −Inf on masked and padding tokens', () => {
    const b = batch();
    (b.logp as Float64Array)[5] = NaN;
    (b.logp as Float64Array)[7] = -Infinity;
    expect(grpoLoss(b, cfg).skipped).toBe(false);
  });
  it('skips on a non-finite advantage, old or reference log-prob', () => {
    skipped(grpoLoss({ ...batch(), advantages: [1, NaN] }, cfg), /advantages\[1\] = NaN/);
    const b = batch();
    (b.oldLogp as Float64Array)[1] = Infinity;
    skipped(grpoLoss(b, cfg), /oldLogp\[1\]/);
    const ref = Float64Array.from(batch().logp);
    ref[6] = NaN;
    skipped(grpoLoss({ ...batch(), refLogp: ref }, cfgFor('token-mean', { klCoef: 0.1 })), /refLogp\[6\]/);
    const tokAdv = new Float64Array(8).fill(1);
    tokAdv[3] = Infinity;
    skipped(grpoLoss({ ...batch(), tokenAdvantages: tokAdv }, cfg), /tokenAdvantages\[3\]/);
  });
  it('skips when the ratio overflows', () => {
    const b = batch();
    (b.logp as Float64Array)[4] = 900; // A < 0, r = Inf: unclipped branch, loss +Inf
    skipped(grpoLoss(b, cfg), /ratio overflow/);
  });
  it('skips a batch without policy tokens', () => {
    skipped(grpoLoss({ ...batch(), mask: new Float64Array(8) }, cfg), /no policy tokens/);
  });
});
