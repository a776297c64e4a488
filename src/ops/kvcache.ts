// KV-cache write for incremental decoding (shaders/kvcache.wgsl).
import code from '../../shaders/kvcache.wgsl?raw';
import type { GpuRuntime } from '../gpu/runtime';
import { packParams } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { grid1d } from './grid';

/** cache (B, Tmax, H, D)[b, pastLen[b] + t] = src (B, Tq, H, D)[b, t] for t < Tq. */
export function cacheWrite(rt: GpuRuntime, src: Tensor, pastLen: Tensor, cache: Tensor, spec: { B: number; Tq: number; Tmax: number; H: number; D: number }): void {
  const { B, Tq, Tmax, H, D } = spec;
  if (src.size !== B * Tq * H * D) throw new Error(`cacheWrite: src has ${src.size} elements, needs B·Tq·H·D = ${B * Tq * H * D}`);
  if (cache.size !== B * Tmax * H * D) throw new Error(`cacheWrite: cache has ${cache.size} elements, needs B·Tmax·H·D = ${B * Tmax * H * D}`);
  if (pastLen.dtype !== 'i32' || pastLen.size !== B) throw new Error(`cacheWrite: pastLen must be i32 (B) = ${B}`);
  rt.dispatch({
    op: 'kv_cache_write', code, entryPoint: 'forward_cache_write',
    params: packParams([['u32', B], ['u32', Tq], ['u32', Tmax], ['u32', H * D]]),
    bindings: { 1: src, 2: pastLen, 3: cache }, workgroups: grid1d(B * Tq * H * D, 256),
  });
}
