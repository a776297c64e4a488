import { describe, expect, it } from 'vitest';
import { branchSegment } from '../../data/segments';
import { Rng } from '../../util/rng';
import { attentionBackward, attentionForward, type AttentionSpec } from './attention';
import { checkGradients, relativeError } from './finiteDiff';
import { dot, randn64 } from './random';

// Float64 central differences (h = 1e-5) on softmax attention: ≤ 1e-6 relative.
const RTOL = 1e-6;

function gradCheck(spec: AttentionSpec, seed: number): void {
  const rng = new Rng(seed);
  const { B, T, Hq, Hkv, D } = spec;
  const q = randn64(rng, B * T * Hq * D);
  const k = randn64(rng, B * T * Hkv * D);
  const v = randn64(rng, B * T * Hkv * D);
  const r = randn64(rng, B * T * Hq * D); // dL/dout
  const { out, lse } = attentionForward(q, k, v, spec);
  const { dq, dk, dv } = attentionBackward(r, q, k, v, out, lse, spec);
  const loss = () => dot(attentionForward(q, k, v, spec).out, r);
  for (const [x, dx] of [[q, dq], [k, dk], [v, dv]] as const) {
    expect(checkGradients(loss, x, dx, { samples: 200, rtol: RTOL, atol: 1e-12 })).toBeLessThan(RTOL);
  }
}

describe('attention reference', () => {
  it('T = 1: the only key is itself, so out = v (per group) and lse = score', () => {
    const rng = new Rng(1);
    const spec: AttentionSpec = { B: 1, T: 1, Hq: 4, Hkv: 1, D: 3 };
    const q = randn64(rng, 12), k = randn64(rng, 3), v = randn64(rng, 3);
    const { out, lse } = attentionForward(q, k, v, spec);
    for (let h = 0; h < 4; h++) {
      expect(relativeError(out.subarray(h * 3, h * 3 + 3), v)).toBeLessThan(1e-15);
      const s = (q[h * 3] * k[0] + q[h * 3 + 1] * k[1] + q[h * 3 + 2] * k[2]) / Math.sqrt(3);
      expect(lse[h]).toBeCloseTo(s, 14);
    }
  });

  it('matches a hand-computed causal softmax (T = 2, explicit scale)', () => {
    // D = 1, scale = 1: row 1 scores [q1·k0, q1·k1] = [2, 4] → P = softmax([2, 4]).
    const q = Float64Array.from([1, 2]), k = Float64Array.from([1, 2]), v = Float64Array.from([10, 20]);
    const { out, lse } = attentionForward(q, k, v, { B: 1, T: 2, Hq: 1, Hkv: 1, D: 1, scale: 1 });
    expect(out[0]).toBeCloseTo(10, 14); // row 0 sees only key 0
    const p1 = Math.exp(4) / (Math.exp(2) + Math.exp(4));
    expect(out[1]).toBeCloseTo(10 * (1 - p1) + 20 * p1, 12);
    expect(lse[1]).toBeCloseTo(Math.log(Math.exp(2) + Math.exp(4)), 12);
  });

  it('GQA maps query head h to kv head floor(h / (Hq/Hkv))', () => {
    const rng = new Rng(2);
    const spec: AttentionSpec = { B: 1, T: 3, Hq: 4, Hkv: 2, D: 2 };
    const q = randn64(rng, 24), k = randn64(rng, 12), v = randn64(rng, 12);
    const full = attentionForward(q, k, v, spec).out;
    // Head 3 with kv head 1 equals single-head attention on the extracted slices.
    const pick = (x: Float64Array, H: number, h: number) => Float64Array.from({ length: 6 }, (_, i) => x[(Math.floor(i / 2) * H + h) * 2 + (i % 2)]);
    const single = attentionForward(pick(q, 4, 3), pick(k, 2, 1), pick(v, 2, 1), { B: 1, T: 3, Hq: 1, Hkv: 1, D: 2 }).out;
    expect(relativeError(pick(full, 4, 3), single)).toBeLessThan(1e-15);
  });

  it('segments: tokens never see another segment; padding rows are zero with zero gradients', () => {
    const rng = new Rng(3);
    const B = 1, T = 5, Hq = 2, Hkv = 1, D = 3;
    const segments = Int32Array.from([0, 0, 1, 1, -1]); // two packed sequences, one pad token
    const spec: AttentionSpec = { B, T, Hq, Hkv, D, segments };
    const q = randn64(rng, T * Hq * D), k = randn64(rng, T * Hkv * D), v = randn64(rng, T * Hkv * D);
    const { out, lse } = attentionForward(q, k, v, spec);
    // Token 2 starts segment 1: it attends only to itself → out = v[2] for both heads.
    for (let h = 0; h < Hq; h++) {
      expect(relativeError(out.subarray((2 * Hq + h) * D, (2 * Hq + h + 1) * D), v.subarray(2 * D, 3 * D))).toBeLessThan(1e-15);
    }
    for (let h = 0; h < Hq; h++) {
      expect(Array.from(out.subarray((4 * Hq + h) * D, (4 * Hq + h + 1) * D))).toEqual([0, 0, 0]);
      expect(lse[h * T + 4]).toBe(0);
    }
    const dout = randn64(rng, out.length);
    const { dq, dk, dv } = attentionBackward(dout, q, k, v, out, lse, spec);
    expect(Array.from(dq.subarray(4 * Hq * D))).toEqual(new Array(Hq * D).fill(0));
    expect(Array.from(dk.subarray(4 * D))).toEqual([0, 0, 0]);
    expect(Array.from(dv.subarray(4 * D))).toEqual([0, 0, 0]);
  });

  it('shared prefix: a branch sees its prefix and itself, as if run alone; prefix keys sum the branches\' gradients', () => {
    // one row [prefix ×3 | branch 0 ×2 | branch 1 ×2] against two rows [prefix | branch j]
    const rng = new Rng(4);
    const Hq = 2, Hkv = 1, D = 3, P = 3, L = 2;
    const p = 7;
    const shared = Int32Array.from([p, p, p, branchSegment(p, 0), branchSegment(p, 0), branchSegment(p, 1), branchSegment(p, 1)]);
    const T = P + 2 * L;
    const sSpec: AttentionSpec = { B: 1, T, Hq, Hkv, D, segments: shared };
    const uSpec: AttentionSpec = { B: 2, T: P + L, Hq, Hkv, D };
    const q = randn64(rng, T * Hq * D), k = randn64(rng, T * Hkv * D), v = randn64(rng, T * Hkv * D), dout = randn64(rng, T * Hq * D);
    // token t of the shared row → (row, token) of the unshared rows: prefix → row 0 (and row 1 for keys)
    const unshare = (x: Float64Array, width: number, prefixInRow1: 'copy' | 'zero') => {
      const u = new Float64Array(2 * (P + L) * width);
      u.set(x.subarray(0, (P + L) * width), 0);
      if (prefixInRow1 === 'copy') u.set(x.subarray(0, P * width), (P + L) * width);
      u.set(x.subarray((P + L) * width, T * width), (2 * P + L) * width);
      return u;
    };
    const s = attentionForward(q, k, v, sSpec);
    const u = attentionForward(unshare(q, Hq * D, 'copy'), unshare(k, Hkv * D, 'copy'), unshare(v, Hkv * D, 'copy'), uSpec);
    const rows = (x: Float64Array, width: number) => [x.subarray(0, (P + L) * width), x.subarray((2 * P + L) * width)]; // row 0 all, row 1 branch
    const [u0, u1] = rows(u.out, Hq * D);
    expect(relativeError(s.out.subarray(0, (P + L) * Hq * D), u0)).toBeLessThan(1e-15);
    expect(relativeError(s.out.subarray((P + L) * Hq * D), u1)).toBeLessThan(1e-15);
    const gs = attentionBackward(dout, q, k, v, s.out, s.lse, sSpec);
    const uq = unshare(q, Hq * D, 'copy'), uk = unshare(k, Hkv * D, 'copy'), uv = unshare(v, Hkv * D, 'copy');
    const gu = attentionBackward(unshare(dout, Hq * D, 'zero'), uq, uk, uv, u.out, u.lse, uSpec);
    const [dq0, dq1] = rows(gu.dq, Hq * D);
    expect(relativeError(gs.dq, Float64Array.from([...dq0, ...dq1]))).toBeLessThan(1e-14);
    for (const [gS, gU] of [[gs.dk, gu.dk], [gs.dv, gu.dv]]) {
      const w = Hkv * D;
      const want = new Float64Array(T * w);
      for (let i = 0; i < P * w; i++) want[i] = gU[i] + gU[(P + L) * w + i]; // both branches read the prefix
      want.set(gU.subarray(P * w, (P + L) * w), P * w);
      want.set(gU.subarray((2 * P + L) * w), (P + L) * w);
      expect(relativeError(gS, want)).toBeLessThan(1e-14);
    }
  });

  it('backward matches finite differences: shared prefix with two branches, padding', () =>
    gradCheck({ B: 1, T: 8, Hq: 2, Hkv: 1, D: 3, segments: Int32Array.from([2, 2, 2, branchSegment(2, 0), branchSegment(2, 0), branchSegment(2, 1), branchSegment(2, 1), -1]) }, 14));
  it('backward matches finite differences: MHA, B = 2', () => gradCheck({ B: 2, T: 4, Hq: 2, Hkv: 2, D: 3 }, 10));
  it('backward matches finite differences: GQA ratio 4', () => gradCheck({ B: 1, T: 4, Hq: 4, Hkv: 1, D: 4 }, 11));
  it('backward matches finite differences: T = 1', () => gradCheck({ B: 2, T: 1, Hq: 2, Hkv: 1, D: 4 }, 12));
  it('backward matches finite differences: segments + padding, custom scale', () =>
    gradCheck({ B: 2, T: 5, Hq: 4, Hkv: 2, D: 2, scale: 0.7, segments: Int32Array.from([0, 0, 1, 1, -1, 3, 3, 3, -1, -1]) }, 13));
});
