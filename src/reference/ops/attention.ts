// Causal grouped-query attention, float64 reference.
//   q: (B, T, Hq, D), k and v: (B, T, Hkv, D); query head h reads kv head floor(h / (Hq / Hkv)).
//   score[t, s] = scale · q[t]·k[s] for allowed s, P = softmax over s, out[t] = Σ_s P[t, s] · v[s]
//   lse[b, h, t] = log Σ_s exp(score[t, s]) (natural log) — saved for the backward, as in FlashAttention.
// Allowed: s ≤ t and, with segments (B, T), segmentSees(segments[b, t], segments[b, s]): the same
// segment ≥ 0 (packed sequences), or a branch's shared prefix (src/data/segments.ts); a negative
// segment marks padding. A row with no allowed key has out = 0, lse = 0, zero gradients.

import { segmentSees } from '../../data/segments';

export interface AttentionSpec {
  B: number;
  T: number;
  Hq: number;
  Hkv: number;
  D: number;
  /** Score scale; default 1 / sqrt(D). */
  scale?: number;
  /** (B, T) segment id per token; tokens attend within their segment (and a branch its prefix); negative = padding. */
  segments?: Int32Array;
}

interface Resolved {
  B: number; T: number; Hq: number; Hkv: number; D: number;
  scale: number;
  group: number; // Hq / Hkv query heads per kv head
  allowed: (b: number, t: number, s: number) => boolean;
}

function resolve(spec: AttentionSpec, q: Float64Array, k: Float64Array, v: Float64Array, name: string): Resolved {
  const { B, T, Hq, Hkv, D, segments } = spec;
  if (Hq % Hkv !== 0) throw new Error(`${name}: Hkv = ${Hkv} must divide Hq = ${Hq}`);
  if (q.length !== B * T * Hq * D) throw new Error(`${name}: q has ${q.length} values, needs B·T·Hq·D = ${B * T * Hq * D}`);
  if (k.length !== B * T * Hkv * D) throw new Error(`${name}: k has ${k.length} values, needs B·T·Hkv·D = ${B * T * Hkv * D}`);
  if (v.length !== B * T * Hkv * D) throw new Error(`${name}: v has ${v.length} values, needs B·T·Hkv·D = ${B * T * Hkv * D}`);
  if (segments && segments.length !== B * T) throw new Error(`${name}: segments has ${segments.length} values, needs B·T = ${B * T}`);
  const allowed = segments
    ? (b: number, t: number, s: number) => s <= t && segmentSees(segments[b * T + t], segments[b * T + s])
    : (_b: number, t: number, s: number) => s <= t;
  return { B, T, Hq, Hkv, D, scale: spec.scale ?? 1 / Math.sqrt(D), group: Hq / Hkv, allowed };
}

/** scale · q[b, t, h] · k[b, s, kh] */
function score(r: Resolved, q: Float64Array, k: Float64Array, b: number, t: number, s: number, h: number): number {
  const { T, Hq, Hkv, D } = r;
  const qo = ((b * T + t) * Hq + h) * D;
  const ko = ((b * T + s) * Hkv + Math.floor(h / r.group)) * D;
  let dot = 0;
  for (let d = 0; d < D; d++) dot += q[qo + d] * k[ko + d];
  return r.scale * dot;
}

export function attentionForward(
  q: Float64Array, // (B, T, Hq, D)
  k: Float64Array, // (B, T, Hkv, D)
  v: Float64Array, // (B, T, Hkv, D)
  spec: AttentionSpec,
): { out: Float64Array; lse: Float64Array } {
  const r = resolve(spec, q, k, v, 'attentionForward');
  const { B, T, Hq, Hkv, D } = r;
  const out = new Float64Array(B * T * Hq * D); // (B, T, Hq, D)
  const lse = new Float64Array(B * Hq * T); // (B, Hq, T)
  const scores = new Float64Array(T); // (T) one query row
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < Hq; h++) {
      const kh = Math.floor(h / r.group);
      for (let t = 0; t < T; t++) {
        let max = -Infinity;
        for (let s = 0; s < T; s++) {
          scores[s] = r.allowed(b, t, s) ? score(r, q, k, b, t, s, h) : -Infinity;
          if (scores[s] > max) max = scores[s];
        }
        if (max === -Infinity) continue; // no allowed key: out = 0, lse = 0
        let sum = 0;
        for (let s = 0; s < T; s++) sum += scores[s] === -Infinity ? 0 : Math.exp(scores[s] - max);
        const l = max + Math.log(sum);
        lse[(b * Hq + h) * T + t] = l;
        const oo = ((b * T + t) * Hq + h) * D;
        for (let s = 0; s < T; s++) {
          if (scores[s] === -Infinity) continue;
          const p = Math.exp(scores[s] - l);
          const vo = ((b * T + s) * Hkv + kh) * D;
          for (let d = 0; d < D; d++) out[oo + d] += p * v[vo + d];
        }
      }
    }
  }
  return { out, lse };
}

export function attentionBackward(
  dout: Float64Array, // (B, T, Hq, D)
  q: Float64Array, // (B, T, Hq, D)
  k: Float64Array, // (B, T, Hkv, D)
  v: Float64Array, // (B, T, Hkv, D)
  out: Float64Array, // (B, T, Hq, D) forward output (shape-checked; the reference recomputes Σ P·dP itself)
  lse: Float64Array, // (B, Hq, T)
  spec: AttentionSpec,
): { dq: Float64Array; dk: Float64Array; dv: Float64Array } {
  const r = resolve(spec, q, k, v, 'attentionBackward');
  const { B, T, Hq, Hkv, D } = r;
  if (dout.length !== q.length || out.length !== q.length) throw new Error(`attentionBackward: dout/out must have B·T·Hq·D = ${q.length} values`);
  if (lse.length !== B * Hq * T) throw new Error(`attentionBackward: lse has ${lse.length} values, needs B·Hq·T = ${B * Hq * T}`);
  const dq = new Float64Array(q.length); // (B, T, Hq, D)
  const dk = new Float64Array(k.length); // (B, T, Hkv, D)
  const dv = new Float64Array(v.length); // (B, T, Hkv, D)
  const p = new Float64Array(T); // (T) probabilities of one query row
  const dp = new Float64Array(T); // (T) dL/dP of one query row
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < Hq; h++) {
      const kh = Math.floor(h / r.group);
      for (let t = 0; t < T; t++) {
        const oo = ((b * T + t) * Hq + h) * D;
        const l = lse[(b * Hq + h) * T + t];
        let rowDot = 0; // Σ_s P[s] · dP[s]  (equals dout[t] · out[t])
        for (let s = 0; s < T; s++) {
          p[s] = 0;
          dp[s] = 0;
          if (!r.allowed(b, t, s)) continue;
          // forward: P[s] = exp(score[s] − lse)
          p[s] = Math.exp(score(r, q, k, b, t, s, h) - l);
          // forward: out[t] = Σ_s P[s] · v[s]
          const vo = ((b * T + s) * Hkv + kh) * D;
          for (let d = 0; d < D; d++) {
            dp[s] += dout[oo + d] * v[vo + d];
            dv[vo + d] += p[s] * dout[oo + d];
          }
          rowDot += p[s] * dp[s];
        }
        for (let s = 0; s < T; s++) {
          if (p[s] === 0) continue;
          // forward: P = softmax(score)  ⇒  dscore[s] = P[s] · (dP[s] − Σ P·dP)
          const dscore = p[s] * (dp[s] - rowDot);
          // forward: score[s] = scale · q[t]·k[s]
          const ko = ((b * T + s) * Hkv + kh) * D;
          for (let d = 0; d < D; d++) {
            dq[oo + d] += r.scale * dscore * k[ko + d];
            dk[ko + d] += r.scale * dscore * q[oo + d];
          }
        }
      }
    }
  }
  return { dq, dk, dv };
}
