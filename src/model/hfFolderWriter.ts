// Writes a Hugging Face Qwen3 folder with our own safetensors writer, a slice at a time: config.json,
// and the weights as model.safetensors or as shards with model.safetensors.index.json (as
// transformers' save_pretrained splits them). Values come from a row-filling callback, so a model
// of any size (the 28-layer Qwen3-0.6B shape: 1.2 GB in BF16) is written without ever being whole
// in memory — the random-weight models of the CPU checks are made this way.
import { Rng } from '../util/rng';
import type { ModelConfig } from './config';
import { hfConfigJson } from './hfConfig';
import { INDEX_FILE, SINGLE_FILE } from './hfFolder';
import { parameterTable, type ParameterSpec } from './parameters';
import { DTYPE_BYTES, encodeFloats, safetensorsHeaderFor } from './safetensors';

export type FloatDtype = 'F32' | 'F16' | 'BF16';
const TORCH = { F32: 'float32', F16: 'float16', BF16: 'bfloat16' } as const;

/** Fills out (rows × C) with rows row0… of tensor `name`; called with increasing, contiguous rows per tensor. */
export type FillRows = (p: ParameterSpec, row0: number, rows: number, out: Float32Array) => void;

export interface FolderFile {
  name: string;
  size: number;
  /** The file's bytes in order, produced on demand (a few MiB at a time for the weights). */
  chunks(): Iterable<Uint8Array<ArrayBuffer>>;
}

export interface FolderOptions {
  dtype: FloatDtype;
  /** Start a new shard before one would exceed this (default: one model.safetensors). */
  maxShardBytes?: number;
  /** Rows per produced chunk are chosen to keep chunks near this size (default 4 MiB). */
  chunkBytes?: number;
}

/** config.json, the weight files and (when sharded) the index, in writing order. */
export function hfFolderFiles(cfg: ModelConfig, fill: FillRows, opts: FolderOptions): FolderFile[] {
  const table = parameterTable(cfg);
  const elementBytes = DTYPE_BYTES[opts.dtype];
  const bytesOf = (p: ParameterSpec) => p.shape.reduce((a, b) => a * b, 1) * elementBytes;
  const shards: ParameterSpec[][] = [[]];
  let used = 0;
  for (const p of table) {
    if (opts.maxShardBytes !== undefined && used > 0 && used + bytesOf(p) > opts.maxShardBytes) {
      shards.push([]);
      used = 0;
    }
    shards.at(-1)!.push(p);
    used += bytesOf(p);
  }
  const names = shards.length === 1 ? [SINGLE_FILE] : shards.map((_, i) => `model-${String(i + 1).padStart(5, '0')}-of-${String(shards.length).padStart(5, '0')}.safetensors`);
  const text = (name: string, content: string): FolderFile => {
    const bytes = new TextEncoder().encode(content);
    return { name, size: bytes.byteLength, chunks: () => [bytes] };
  };
  const files: FolderFile[] = [text('config.json', hfConfigJson(cfg, TORCH[opts.dtype]))];
  const chunkBytes = opts.chunkBytes ?? 4 * 1024 * 1024;
  shards.forEach((specs, i) => {
    const { header, ranges } = safetensorsHeaderFor(specs.map((p) => ({ name: p.name, shape: p.shape, dtype: opts.dtype })), { format: 'pt' });
    files.push({
      name: names[i],
      size: header.byteLength + (ranges.at(-1)?.[1] ?? 0),
      *chunks() {
        yield header;
        for (const p of specs) {
          const [R, C] = p.shape.length === 2 ? p.shape : [1, p.shape[0]];
          const step = Math.max(1, Math.floor(chunkBytes / (C * elementBytes)));
          for (let r0 = 0; r0 < R; r0 += step) {
            const rows = Math.min(step, R - r0);
            const out = new Float32Array(rows * C);
            fill(p, r0, rows, out);
            yield encodeFloats(out, opts.dtype);
          }
        }
      },
    });
  });
  if (shards.length > 1) {
    const weightMap = Object.fromEntries(shards.flatMap((specs, i) => specs.map((p) => [p.name, names[i]])));
    const total = table.reduce((s, p) => s + bytesOf(p), 0);
    files.push(text(INDEX_FILE, `${JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2)}\n`));
  }
  return files;
}

/**
 * Seeded random weights, reproducible row by row: each tensor has its own stream (seed, index), so
 * the same values come back however the rows are sliced. Uniform with standard deviation std for
 * matrices (o/down scaled by 1/√(2L) like initialWeights), 1 ± uniform (sd 0.1) for norms, so their
 * gradients are checked too. Uniform, not normal: 600 M values in seconds, not a minute.
 */
export function seededRows(cfg: ModelConfig, seed: number, std = 0.02): FillRows {
  const index = new Map(parameterTable(cfg).map((p, i) => [p.name, i]));
  const streams = new Map<string, { rng: Rng; next: number }>();
  const residual = std / Math.sqrt(2 * cfg.numLayers);
  return (p, row0, rows, out) => {
    let s = streams.get(p.name);
    if (!s || s.next !== row0) {
      s = { rng: new Rng(seed * 1_000_003 + index.get(p.name)! * 7919 + 1), next: 0 };
      const C = p.shape.length === 2 ? p.shape[1] : p.shape[0];
      for (let i = 0; i < row0 * C; i++) s.rng.nextU32(); // catch up (only when rows are skipped)
      streams.set(p.name, s);
    }
    const half = Math.sqrt(3) * (p.kind === 'norm' ? 0.1 : /o_proj|down_proj/.test(p.name) ? residual : std); // U(−a, a): sd a/√3
    const mean = p.kind === 'norm' ? 1 : 0;
    for (let i = 0; i < out.length; i++) out[i] = mean + half * (2 * (s.rng.nextU32() / 4294967296) - 1);
    s.next = row0 + rows;
  };
}
