// Versioned weight snapshots the trainer publishes to rollout actors: every parameter back to back
// in one Float32Array, so a snapshot crosses a worker boundary as one transferable buffer — or, in
// a cross-origin-isolated page, as one SharedArrayBuffer every rollout worker reads without a copy.
// A fresh buffer per version: a worker may still be copying version v while v + 1 is published.
import type { GpuRuntime } from '../../../gpu/runtime';
import type { GpuWeights } from '../../../model/weights';

export interface PackedWeights {
  /** Trainer version of these weights (number of updates applied since the start). */
  version: number;
  /** Parameter names, in the model's parameter-table order. */
  names: string[];
  /** Element offset of each parameter in `data`. */
  offsets: number[];
  /** Element count of each parameter. */
  sizes: number[];
  /** Every parameter's float32 values, back to back (SharedArrayBuffer-backed when `shared`). */
  data: Float32Array;
  /** True when `data` lives in a SharedArrayBuffer (post it to every worker; never transfer it). */
  shared: boolean;
}

/** SharedArrayBuffer is usable: it exists and (in a page or worker) the context is cross-origin isolated. */
export function canShareMemory(): boolean {
  if (typeof SharedArrayBuffer === 'undefined') return false;
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  return isolated !== false; // Node has no such flag and always allows it
}

export function packWeights(params: ReadonlyMap<string, Float32Array>, version: number, shared = false): PackedWeights {
  const names = [...params.keys()];
  const sizes = names.map((n) => params.get(n)!.length);
  const offsets: number[] = [];
  let total = 0;
  for (const s of sizes) {
    offsets.push(total);
    total += s;
  }
  const buffer = shared ? new SharedArrayBuffer(total * 4) : new ArrayBuffer(total * 4);
  const data = new Float32Array(buffer);
  names.forEach((n, i) => data.set(params.get(n)!, offsets[i]));
  return { version, names, offsets, sizes, data, shared };
}

/** Views into the packed data (no copy), by name. */
export function unpackWeights(p: PackedWeights): Map<string, Float32Array> {
  return new Map(p.names.map((n, i) => [n, p.data.subarray(p.offsets[i], p.offsets[i] + p.sizes[i])]));
}

/** Buffers to transfer with the snapshot (none when shared: every worker keeps reading the same memory). */
export function transferables(p: PackedWeights): Transferable[] {
  return p.shared ? [] : [p.data.buffer as ArrayBuffer];
}

/** Reads a model's weights into a snapshot of `version`. */
export async function snapshotWeights(w: GpuWeights, version: number, shared = false): Promise<PackedWeights> {
  return packWeights(await w.download(), version, shared);
}

/** Writes a snapshot into existing GPU weights (same parameter table); throws naming a mismatch. */
export function loadWeightsInto(rt: GpuRuntime, w: GpuWeights, p: PackedWeights): void {
  const values = unpackWeights(p);
  for (const spec of w.table) {
    const v = values.get(spec.name);
    if (!v) throw new Error(`weight snapshot v${p.version}: no tensor '${spec.name}' (was it made for another model config?)`);
    rt.write(w.get(spec.name), v);
  }
}
