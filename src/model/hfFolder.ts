// A Hugging Face Qwen3 folder → GpuWeights, streamed: config.json, then model.safetensors or the
// shards named by model.safetensors.index.json. Every shard's header is read and checked against
// the config before anything is allocated (missing, extra, duplicated or misshapen tensors, dtypes
// we do not read); then each file is read front to back and every tensor goes to the GPU in row
// slices (≤ SLICE_BYTES of the file at a time), converted from BF16 / F16 / F32 on the way — the
// whole file, or even a whole tensor, is never in memory at once.
import { readHfConfig } from './hfConfig';
import type { ModelConfig } from './config';
import type { ModelFileSource, SequentialReader } from './modelFiles';
import { checkModelTensors } from './checkpointIO';
import { decodeTensor, parseSafetensorsHeader, readHeaderLength, type SafetensorsTensorInfo, tensorsInFileOrder } from './safetensors';
import type { GpuRuntime } from '../gpu/runtime';
import { GpuWeights, type WeightStorage } from './weights';

export const INDEX_FILE = 'model.safetensors.index.json';
export const SINGLE_FILE = 'model.safetensors';
const SLICE_BYTES = 8 * 1024 * 1024;
const MAX_LISTED = 10;

export interface FolderTensor extends SafetensorsTensorInfo {
  file: string;
}

/** What a folder holds, checked against its config.json. */
export interface HfFolder {
  cfg: ModelConfig;
  /** Weight files in load order. */
  files: string[];
  /** Every parameter of the model, where it is. */
  tensors: Map<string, FolderTensor>;
  /** Bytes of the weight files (header + data), for progress. */
  totalBytes: number;
  /** Ignored things worth showing (a tied lm_head in the file, config settings). */
  warnings: string[];
}

export interface LoadProgress {
  loadedBytes: number;
  totalBytes: number;
  /** The file being read. */
  file: string;
}

function problemsError(what: string, problems: string[]): Error {
  const shown = problems.slice(0, MAX_LISTED).join('; ');
  const more = problems.length > MAX_LISTED ? `; and ${problems.length - MAX_LISTED} more` : '';
  return new Error(`${what} (${problems.length} problem${problems.length > 1 ? 's' : ''}): ${shown}${more}`);
}

async function readHeader(reader: SequentialReader, file: string): Promise<{ dataStart: number; tensors: SafetensorsTensorInfo[] }> {
  const first8 = await reader.read(8);
  const n = readHeaderLength(first8, null);
  const head = new Uint8Array(8 + n);
  head.set(first8);
  head.set(await reader.read(n), 8);
  try {
    const h = parseSafetensorsHeader(head, null);
    return { dataStart: h.dataStart, tensors: tensorsInFileOrder(h) };
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
}

/** The weight files: the index's shards, or the single model.safetensors. */
async function weightFiles(src: ModelFileSource): Promise<{ files: string[]; map: Map<string, string> | null }> {
  if (await src.has(INDEX_FILE)) {
    let index: { weight_map?: Record<string, unknown> };
    try {
      index = JSON.parse(await src.text(INDEX_FILE));
    } catch (e) {
      throw new Error(`${INDEX_FILE} in ${src.where} is not valid JSON (${(e as Error).message})`);
    }
    const wm = index.weight_map;
    if (!wm || typeof wm !== 'object') throw new Error(`${INDEX_FILE} in ${src.where} has no "weight_map" object: it should map every tensor name to its shard file`);
    const map = new Map<string, string>();
    for (const [tensor, file] of Object.entries(wm)) {
      if (typeof file !== 'string' || !/^[\w.-]+\.safetensors$/.test(file)) throw new Error(`${INDEX_FILE}: tensor '${tensor}' maps to ${JSON.stringify(file)}, not a .safetensors file name in the folder`);
      map.set(tensor, file);
    }
    const files = [...new Set(map.values())].sort();
    for (const f of files) if (!(await src.has(f))) throw new Error(`${INDEX_FILE} names the shard ${f}, which is not in ${src.where}: pick or upload every model-…-of-….safetensors file`);
    return { files, map };
  }
  if (await src.has(SINGLE_FILE)) return { files: [SINGLE_FILE], map: null };
  throw new Error(`no ${SINGLE_FILE} or ${INDEX_FILE} in ${src.where}: a Hugging Face model folder holds config.json and its weights in safetensors`);
}

/** Reads config.json and every shard's header; throws listing every mismatch with the config. */
export async function inspectHfFolder(src: ModelFileSource): Promise<HfFolder> {
  if (!(await src.has('config.json'))) throw new Error(`no config.json in ${src.where}: the model's config.json must come with its weights`);
  const { cfg, warnings } = readHfConfig(await src.text('config.json'));
  const { files, map } = await weightFiles(src);
  const found = new Map<string, FolderTensor>();
  const problems: string[] = [];
  let totalBytes = 0;
  for (const file of files) {
    const reader = await src.open(file);
    try {
      const { dataStart, tensors } = await readHeader(reader, file);
      const size = await src.size(file);
      totalBytes += size ?? dataStart + tensors.reduce((m, t) => Math.max(m, t.end), 0);
      for (const t of tensors) {
        const prev = found.get(t.name);
        if (prev) problems.push(`tensor '${t.name}' is in both ${prev.file} and ${file}`);
        else if (map && map.get(t.name) !== file) problems.push(`tensor '${t.name}' is in ${file} but ${INDEX_FILE} ${map.has(t.name) ? `says ${map.get(t.name)}` : 'does not list it'}`);
        found.set(t.name, { ...t, file, begin: dataStart + t.begin, end: dataStart + t.end }); // absolute offsets in the file
      }
    } finally {
      await reader.close();
    }
  }
  if (map) for (const [t, f] of map) if (!found.has(t)) problems.push(`${INDEX_FILE} puts '${t}' in ${f}, whose header does not have it`);

  if (problems.length) throw problemsError(`the weight files in ${src.where} disagree with each other`, problems);
  // the same checks and messages as a single file (./checkpointIO): missing, misshapen, unreadable,
  // layers the config does not have, tensors that are no model parameter
  const names = [...found.keys()];
  const { table, warnings: tensorWarnings } = checkModelTensors(cfg, { names, has: (n) => found.has(n), info: (n) => found.get(n)! });
  warnings.push(...tensorWarnings);
  const tensors = new Map(table.map((p) => [p.name, found.get(p.name)!]));
  return { cfg, files, tensors, totalBytes, warnings };
}

/**
 * Allocates GpuWeights for the folder's config (storage: f16 base, part limits) and streams every
 * tensor into them; `onProgress` hears the bytes read across all files. Throws (and frees what it
 * allocated) on a read error.
 */
export async function loadHfWeights(
  rt: GpuRuntime, src: ModelFileSource, folder: HfFolder, storage: WeightStorage = {}, onProgress?: (p: LoadProgress) => void,
  /** Sees every slice of f32 values on its way to the GPU (e.g. to count non-finite weights). */
  inspect?: (name: string, values: Float32Array) => void,
): Promise<GpuWeights> {
  const w = new GpuWeights(rt, folder.cfg, null, storage);
  let loaded = 0;
  try {
    for (const file of folder.files) {
      const report = (n: number) => {
        loaded += n;
        onProgress?.({ loadedBytes: loaded, totalBytes: folder.totalBytes, file });
      };
      const reader = await src.open(file, report);
      try {
        const { tensors } = await readHeader(reader, file);
        const wanted = new Map([...folder.tensors.values()].filter((t) => t.file === file).map((t) => [t.name, t]));
        for (const info of tensors) {
          const t = wanted.get(info.name);
          if (!t) continue; // an ignored tensor (a tied lm_head): skipped over below
          await reader.skip(t.begin - reader.position);
          await streamTensor(w, reader, t, inspect);
        }
      } finally {
        await reader.close();
      }
      await rt.sync(); // surface GPU errors per file, and bound the queued uploads
    }
  } catch (e) {
    w.destroy();
    throw e;
  }
  return w;
}

/** One tensor from the reader (positioned at its first byte) into w, SLICE_BYTES of the file at a time. */
async function streamTensor(w: GpuWeights, reader: SequentialReader, t: FolderTensor, inspect?: (name: string, values: Float32Array) => void): Promise<void> {
  const [R, C] = t.shape.length === 2 ? t.shape : [1, t.shape[0]];
  const elementBytes = (t.end - t.begin) / (R * C);
  const rowBytes = C * elementBytes;
  const step = Math.max(1, Math.floor(SLICE_BYTES / rowBytes));
  for (let r0 = 0; r0 < R; r0 += step) {
    const rows = Math.min(step, R - r0);
    const raw = await reader.read(rows * rowBytes);
    const slice = decodeTensor({ name: t.name, dtype: t.dtype, shape: [rows, C], begin: 0, end: raw.byteLength }, raw).data as Float32Array;
    inspect?.(t.name, slice);
    w.writeRows(t.name, r0, slice);
  }
}
