// Benchmark of one attention training step's kernels: forward + backward, synchronised, in ms.
// For `npm run bench` (an `attention forward+backward` row) and for comparing tilings:
//   await benchAttention(rt, { B: 4, T: 256, Hq: 16, Hkv: 8, D: 128 })
//   await benchAttention(rt, { ..., tiles: { forward: { blockQ: 8, blockK: 8, threads: 64 } } })
import type { GpuRuntime } from '../gpu/runtime';
import { Rng, randomNormal } from '../util/rng';
import { type AttentionSpec, attentionBackward, attentionForward } from './attention';

export interface AttentionBenchSpec extends Omit<AttentionSpec, 'segments'> {
  /** Timed repetitions after one warm-up (default 5). */
  iters?: number;
  /** Pack each row as 4 equal documents (exercises the segment mask; default false). */
  packed?: boolean;
}

/** Mean wall time (ms) of forward + backward over `iters` runs, with the GPU synchronised. */
export async function benchAttention(rt: GpuRuntime, spec: AttentionBenchSpec): Promise<number> {
  const { B, T, Hq, Hkv, D } = spec;
  const iters = spec.iters ?? 5;
  const rng = new Rng(7);
  const q = rt.upload(randomNormal(rng, B * T * Hq * D), [B, T, Hq, D], 'f32', 'bench:q'); // (B, T, Hq, D)
  const k = rt.upload(randomNormal(rng, B * T * Hkv * D), [B, T, Hkv, D], 'f32', 'bench:k'); // (B, T, Hkv, D)
  const v = rt.upload(randomNormal(rng, B * T * Hkv * D), [B, T, Hkv, D], 'f32', 'bench:v'); // (B, T, Hkv, D)
  const dout = rt.upload(randomNormal(rng, B * T * Hq * D), [B, T, Hq, D], 'f32', 'bench:dout'); // (B, T, Hq, D)
  const segIds = Int32Array.from({ length: B * T }, (_, i) => Math.floor(((i % T) * 4) / T));
  const segments = spec.packed ? rt.upload(segIds, [B, T], 'i32', 'bench:segments') : undefined; // (B, T)
  const full: AttentionSpec = { B, T, Hq, Hkv, D, scale: spec.scale, tiles: spec.tiles, variant: spec.variant, rowBlock: spec.rowBlock, segments };
  // preallocated outputs: the timed loop allocates nothing, like a training step
  const out = rt.empty([B, T, Hq, D], 'f32', 'bench:out');
  const lse = rt.empty([B, Hq, T], 'f32', 'bench:lse');
  const dq = rt.empty([B, T, Hq, D], 'f32', 'bench:dq');
  const dk = rt.empty([B, T, Hkv, D], 'f32', 'bench:dk');
  const dv = rt.empty([B, T, Hkv, D], 'f32', 'bench:dv');
  const stats = rt.empty([B, Hq, T, 2], 'f32', 'bench:stats');
  const step = () => {
    attentionForward(rt, q, k, v, full, { out, lse });
    attentionBackward(rt, dout, q, k, v, out, lse, full, { dq, dk, dv, stats });
  };
  try {
    step(); // warm-up: pipeline compilation
    await rt.sync();
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) step();
    await rt.sync();
    return (performance.now() - t0) / iters;
  } finally {
    rt.release(q, k, v, dout, segments, out, lse, dq, dk, dv, stats);
  }
}
