// Helpers for GPU-vs-reference op tests: float64 inputs rounded to f32 for the GPU, so both sides
// see exactly the same values, and comparisons through the shared relativeError measure.
import type { GpuRuntime } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { relativeError } from '../reference/ops/finiteDiff';
import type { Rng } from '../util/rng';

/** n normal values, already rounded to f32 precision, as float64. */
export function randF32as64(rng: Rng, n: number, std = 1): Float64Array {
  const f = new Float32Array(n);
  for (let i = 0; i < n; i++) f[i] = rng.normal(0, std);
  return Float64Array.from(f);
}

export function upload64(rt: GpuRuntime, x: Float64Array, shape: number[], label = 'x'): Tensor {
  return rt.upload(Float32Array.from(x), shape, 'f32', label);
}

export function uploadI32(rt: GpuRuntime, x: Int32Array, shape: number[], label = 'ids'): Tensor {
  return rt.upload(x, shape, 'i32', label);
}

/** Reads a GPU tensor and returns its relative error against a float64 reference. */
export async function errorVs(rt: GpuRuntime, t: Tensor, expected: ArrayLike<number>): Promise<number> {
  const got = await rt.readF32(t);
  return relativeError(got, expected);
}
