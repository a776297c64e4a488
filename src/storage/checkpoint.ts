// Saving and loading checkpoints (format: ./format.ts) on any CheckpointBackend.
//   save:  begin mark → every tensor and blob in chunks of ≤ chunkBytes, each hashed (SHA-256) and
//          written → manifest (the commit point). Any failure removes what was written and reports
//          it (storage full gets its own clear message); older checkpoints are never touched.
//   load:  the manifest is parsed and checked against what the caller expects (format version,
//          preset, model, tokenizer) before any tensor is read; every chunk is checked against its
//          SHA-256 as it is read, and a mismatch names the tensor.
import type { CheckpointBackend, UnfinishedSave } from './backend';
import { isStorageFullError } from './backend';
import {
  type BlobEntry, CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_VERSION, CHECKPOINT_ID, type CheckpointExpectation, type CheckpointManifest,
  CheckpointError, type ChunkEntry, checkExpectation, DEFAULT_CHUNK_BYTES, DTYPE_BYTES, parseManifest, sha256Hex, type TensorDtype,
  type TensorEntry, type TokenizerIdentity, type TrainingState, type ValidationScore,
} from './format';

export type TensorData = Float32Array | Int32Array | Uint32Array;

/** One tensor to save: its values now, or a function that reads them when the save gets to it (one at a time). */
export interface TensorSource {
  group: string;
  name: string;
  shape: readonly number[];
  data: TensorData | (() => Promise<TensorData>);
}

/** Everything a checkpoint holds (see CheckpointManifest for the meaning of each field). */
export interface CheckpointContents {
  preset: string;
  model: object;
  tokenizer: TokenizerIdentity;
  lora?: object | null;
  pipelineConfig?: unknown;
  policyVersion: number;
  training: TrainingState;
  validation?: ValidationScore | null;
  /** The metrics so far (any JSON), stored as the checksummed blob 'metrics'. */
  metrics?: unknown;
  tensors: TensorSource[];
}

export interface SaveOptions {
  /** Default `<stage>-<step, 8 digits>-<time in base 36>`. */
  id?: string;
  chunkBytes?: number;
  /** Bytes written so far and the total (progress bars). */
  onProgress?: (written: number, total: number) => void;
}

const MB = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
const dtypeOf = (d: TensorData): TensorDtype => (d instanceof Float32Array ? 'F32' : d instanceof Int32Array ? 'I32' : 'U32');
const numel = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

function defaultId(t: TrainingState): string {
  return `${t.stage.replace(/[^A-Za-z0-9_-]/g, '_')}-${String(t.step).padStart(8, '0')}-${Date.now().toString(36)}`;
}

/** Bytes a save of these contents writes (tensors only; blobs are small). */
export function contentBytes(c: Pick<CheckpointContents, 'tensors'>): number {
  return c.tensors.reduce((s, t) => s + 4 * numel(t.shape), 0);
}

/** Writes bytes as chunks of ≤ chunkBytes; returns their entries. */
async function writeChunks(store: CheckpointBackend, id: string, bytes: Uint8Array, chunkBytes: number, next: { seq: number }, progress: () => void, written: { n: number }): Promise<ChunkEntry[]> {
  const out: ChunkEntry[] = [];
  const count = Math.max(1, Math.ceil(bytes.byteLength / chunkBytes)); // an empty tensor still gets one (empty) chunk
  for (let i = 0; i < count; i++) {
    const part = bytes.subarray(i * chunkBytes, Math.min((i + 1) * chunkBytes, bytes.byteLength));
    const sha256 = await sha256Hex(part);
    const seq = next.seq++;
    await store.putChunk(id, seq, part);
    out.push({ seq, bytes: part.byteLength, sha256 });
    written.n += part.byteLength;
    progress();
  }
  return out;
}

/**
 * Saves a checkpoint; resolves with its manifest once it is complete (committed). On failure nothing
 * of it stays in the store and the error says why; storage full is a CheckpointError('storage-full').
 */
export async function saveCheckpoint(store: CheckpointBackend, c: CheckpointContents, opts: SaveOptions = {}): Promise<CheckpointManifest> {
  const id = opts.id ?? defaultId(c.training);
  const chunkBytes = opts.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  if (!CHECKPOINT_ID.test(id)) throw new CheckpointError(`checkpoint id '${id}' is not allowed: use letters, digits, '.', '_' and '-'`, 'io');
  if (!(Number.isInteger(chunkBytes) && chunkBytes > 0 && chunkBytes % 4 === 0)) throw new Error(`saveCheckpoint: chunkBytes must be a positive multiple of 4, got ${chunkBytes}`);
  if (await store.readManifest(id)) throw new CheckpointError(`checkpoint '${id}' already exists in ${store.description}: choose another id`, 'io');
  const seen = new Set<string>();
  for (const t of c.tensors) {
    const key = `${t.group}/${t.name}`;
    if (seen.has(key)) throw new Error(`saveCheckpoint: tensor '${t.name}' appears twice in group '${t.group}'`);
    seen.add(key);
  }

  const total = contentBytes(c);
  const written = { n: 0 };
  const progress = () => opts.onProgress?.(written.n, total);
  const next = { seq: 0 };
  try {
    await store.beginSave(id);
    const tensors: TensorEntry[] = [];
    for (const t of c.tensors) {
      const data = typeof t.data === 'function' ? await t.data() : t.data;
      if (data.length !== numel(t.shape)) {
        throw new Error(`saveCheckpoint: tensor '${t.name}' (${t.group}) has ${data.length} values, shape [${t.shape.join(', ')}] needs ${numel(t.shape)}`);
      }
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      tensors.push({ group: t.group, name: t.name, dtype: dtypeOf(data), shape: [...t.shape], chunks: await writeChunks(store, id, bytes, chunkBytes, next, progress, written) });
    }
    const blobs: BlobEntry[] = [];
    if (c.metrics !== undefined) {
      const bytes = new TextEncoder().encode(JSON.stringify(c.metrics));
      blobs.push({ name: 'metrics', chunks: await writeChunks(store, id, bytes, chunkBytes, next, progress, written) });
    }
    const manifest: CheckpointManifest = {
      format: CHECKPOINT_FORMAT, formatVersion: CHECKPOINT_FORMAT_VERSION, id, createdAt: new Date().toISOString(),
      preset: c.preset, model: { ...c.model }, tokenizer: c.tokenizer, lora: c.lora ? { ...c.lora } : null,
      pipelineConfig: c.pipelineConfig ?? null, policyVersion: c.policyVersion, training: c.training,
      validation: c.validation ?? null, chunkBytes, totalBytes: written.n, tensors, blobs,
    };
    parseManifest(id, JSON.stringify(manifest)); // never commit a manifest the loader would refuse
    await store.commit(id, JSON.stringify(manifest));
    return manifest;
  } catch (e) {
    let cleaned = true;
    await store.remove(id).catch(() => { cleaned = false; });
    const left = cleaned ? 'nothing of it was kept' : 'its partial data could not be removed now and will be cleaned up at the next load';
    if (isStorageFullError(e)) {
      const est = await store.estimate().catch(() => null);
      // browsers may report a padded quota (Chromium's estimate ignores quota overrides): quote it only when it explains the failure
      const usage = est && est.quota - est.usage < total ? ` (${MB(est.usage)} used of ${MB(est.quota)})` : '';
      throw new CheckpointError(
        `checkpoint '${id}' was not saved: ${store.description} is full${usage}; this checkpoint needs ${MB(total)}. `
        + `Older checkpoints are intact and ${left}. Delete old checkpoints (keep fewer) or free space, then save again`,
        'storage-full',
      );
    }
    if (e instanceof CheckpointError) throw e;
    throw new CheckpointError(`checkpoint '${id}' was not saved: ${(e as Error).message}. Older checkpoints are intact and ${left}`, 'io');
  }
}

/** A complete checkpoint, opened: the manifest, and tensors read one at a time with their checksums verified. */
export class CheckpointReader {
  constructor(private readonly store: CheckpointBackend, readonly manifest: CheckpointManifest) {}

  get id(): string {
    return this.manifest.id;
  }

  /** The tensors of one group (or all). */
  tensors(group?: string): TensorEntry[] {
    return this.manifest.tensors.filter((t) => group === undefined || t.group === group);
  }

  has(group: string, name: string): boolean {
    return this.manifest.tensors.some((t) => t.group === group && t.name === name);
  }

  private entry(group: string, name: string): TensorEntry {
    const t = this.manifest.tensors.find((e) => e.group === group && e.name === name);
    if (!t) throw new CheckpointError(`checkpoint '${this.id}' has no tensor '${name}' in group '${group}' (groups: ${[...new Set(this.manifest.tensors.map((e) => e.group))].join(', ') || 'none'})`, 'not-found');
    return t;
  }

  private async readChunks(what: string, chunks: ChunkEntry[], into: Uint8Array): Promise<void> {
    let at = 0;
    for (const [i, c] of chunks.entries()) {
      const bytes = await this.store.getChunk(this.id, c.seq);
      const actual = await sha256Hex(bytes);
      if (bytes.byteLength !== c.bytes || actual !== c.sha256) {
        throw new CheckpointError(
          `checkpoint '${this.id}': ${what}, chunk ${i + 1} of ${chunks.length}, fails its checksum (SHA-256 ${actual.slice(0, 16)}… ≠ ${c.sha256.slice(0, 16)}… in the manifest`
          + `${bytes.byteLength !== c.bytes ? `; ${bytes.byteLength} bytes, expected ${c.bytes}` : ''}): the stored data is corrupted; load an older checkpoint`,
          'corrupt',
        );
      }
      if (at + bytes.byteLength > into.byteLength) throw new CheckpointError(`checkpoint '${this.id}': ${what} has more bytes than its shape; the checkpoint is damaged`, 'corrupt');
      into.set(bytes, at);
      at += bytes.byteLength;
    }
    if (at !== into.byteLength) throw new CheckpointError(`checkpoint '${this.id}': ${what} has ${at} bytes, its shape needs ${into.byteLength}; the checkpoint is damaged`, 'corrupt');
  }

  /** Reads and verifies one tensor. */
  async tensor(group: string, name: string): Promise<TensorData> {
    const t = this.entry(group, name);
    const n = numel(t.shape);
    const out = t.dtype === 'F32' ? new Float32Array(n) : t.dtype === 'I32' ? new Int32Array(n) : new Uint32Array(n);
    await this.readChunks(`tensor '${t.name}' (${t.group}, ${t.dtype} [${t.shape.join(', ')}])`, t.chunks, new Uint8Array(out.buffer, 0, n * DTYPE_BYTES[t.dtype]));
    return out;
  }

  async f32(group: string, name: string): Promise<Float32Array> {
    const d = await this.tensor(group, name);
    if (!(d instanceof Float32Array)) throw new CheckpointError(`checkpoint '${this.id}': tensor '${name}' is ${dtypeOf(d)}, expected F32`, 'corrupt');
    return d;
  }

  /** Every tensor of a group as a Map (small models; big ones should read tensor by tensor). */
  async group(group: string): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const t of this.tensors(group)) out.set(t.name, await this.f32(group, t.name));
    return out;
  }

  /** A stored JSON blob ('metrics'), verified; undefined when absent. */
  async blob(name: string): Promise<unknown> {
    const b = this.manifest.blobs.find((e) => e.name === name);
    if (!b) return undefined;
    const bytes = new Uint8Array(b.chunks.reduce((s, c) => s + c.bytes, 0));
    await this.readChunks(`blob '${name}'`, b.chunks, bytes);
    return JSON.parse(new TextDecoder().decode(bytes));
  }

  /** Reads every chunk and checks its checksum (without keeping the data). */
  async verify(): Promise<void> {
    for (const t of this.manifest.tensors) await this.tensor(t.group, t.name);
    for (const b of this.manifest.blobs) await this.blob(b.name);
  }
}

/** Opens a complete checkpoint, refusing another format version or one that does not fit `expect`. */
export async function openCheckpoint(store: CheckpointBackend, id: string, expect: CheckpointExpectation = {}): Promise<CheckpointReader> {
  const json = await store.readManifest(id);
  if (json === null) {
    const { unfinished } = await store.list();
    if (unfinished.some((u) => u.id === id)) throw new CheckpointError(`checkpoint '${id}' is unfinished (its save never completed) and cannot be loaded`, 'unfinished');
    throw new CheckpointError(`no checkpoint '${id}' in ${store.description}`, 'not-found');
  }
  const manifest = parseManifest(id, json);
  checkExpectation(manifest, expect);
  return new CheckpointReader(store, manifest);
}

export interface CheckpointListing {
  /** Complete checkpoints, oldest first (by creation time). */
  complete: CheckpointManifest[];
  /** Saves that never reached their manifest. */
  unfinished: UnfinishedSave[];
  /** Complete checkpoints whose manifest cannot be read (damaged or another format version). */
  unreadable: { id: string; error: string }[];
}

export async function listCheckpoints(store: CheckpointBackend): Promise<CheckpointListing> {
  const { complete: ids, unfinished } = await store.list();
  const complete: CheckpointManifest[] = [];
  const unreadable: { id: string; error: string }[] = [];
  for (const id of ids) {
    try {
      complete.push(parseManifest(id, (await store.readManifest(id)) ?? ''));
    } catch (e) {
      unreadable.push({ id, error: (e as Error).message });
    }
  }
  complete.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
  return { complete, unfinished, unreadable };
}

/**
 * Deletes every unfinished save and returns what it deleted (to report). Only while no save is in
 * progress on this store (one writer per store: the page's trainer or one CLI run).
 */
export async function cleanUpUnfinished(store: CheckpointBackend): Promise<UnfinishedSave[]> {
  const { unfinished } = await store.list();
  for (const u of unfinished) await store.remove(u.id);
  return unfinished;
}

export interface LatestCheckpoint {
  /** The newest complete checkpoint that fits `expect`, or null when there is none. */
  reader: CheckpointReader | null;
  /** Unfinished saves found (and removed, unless keepUnfinished). */
  unfinished: UnfinishedSave[];
  /** Newer checkpoints passed over, with why (unreadable or not fitting this run). */
  skipped: { id: string; reason: string }[];
}

/**
 * The newest complete checkpoint that fits `expect`: what a page reload or `--resume` continues from.
 * Unfinished saves are reported and cleaned up; newer ones that do not fit are reported, not loaded.
 */
export async function loadLatestCheckpoint(store: CheckpointBackend, expect: CheckpointExpectation = {}, opts: { keepUnfinished?: boolean } = {}): Promise<LatestCheckpoint> {
  const listing = await listCheckpoints(store);
  const unfinished = opts.keepUnfinished ? listing.unfinished : await cleanUpUnfinished(store);
  const skipped = listing.unreadable.map((u) => ({ id: u.id, reason: u.error }));
  for (const m of [...listing.complete].reverse()) {
    try {
      checkExpectation(m, expect);
      return { reader: new CheckpointReader(store, m), unfinished, skipped };
    } catch (e) {
      skipped.push({ id: m.id, reason: (e as Error).message });
    }
  }
  return { reader: null, unfinished, skipped };
}

export interface RetentionPolicy {
  /** Keep this many newest checkpoints (≥ 1). */
  keepLast: number;
  /** Also keep the one with the best validation score (metric of the newest scored checkpoint). */
  keepBest: boolean;
}

/** Deletes complete checkpoints outside the policy; returns the deleted ids. Unfinished ones are left to cleanUpUnfinished. */
export async function applyRetention(store: CheckpointBackend, policy: RetentionPolicy): Promise<string[]> {
  if (!(Number.isInteger(policy.keepLast) && policy.keepLast >= 1)) throw new Error(`retention: keepLast must be an integer ≥ 1, got ${policy.keepLast}`);
  const { complete } = await listCheckpoints(store);
  const keep = new Set(complete.slice(-policy.keepLast).map((m) => m.id));
  const best = policy.keepBest ? bestCheckpoint(complete) : null;
  if (best) keep.add(best.id);
  const removed: string[] = [];
  for (const m of complete) {
    if (keep.has(m.id)) continue;
    await store.remove(m.id);
    removed.push(m.id);
  }
  return removed;
}

/** The checkpoint with the best validation score, among those scored on the newest scored one's metric. */
export function bestCheckpoint(complete: CheckpointManifest[]): CheckpointManifest | null {
  const scored = complete.filter((m) => m.validation && Number.isFinite(m.validation.value));
  const ref = scored.at(-1)?.validation;
  if (!ref) return null;
  let best: CheckpointManifest | null = null;
  for (const m of scored) {
    if (m.validation!.metric !== ref.metric) continue;
    const better = !best || (ref.higherIsBetter ? m.validation!.value > best.validation!.value : m.validation!.value < best.validation!.value);
    if (better) best = m;
  }
  return best;
}
