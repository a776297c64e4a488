// The checkpoint format (version 1), independent of where it is stored (IndexedDB or a folder).
// A checkpoint is:
//   - chunks: numbered byte strings (≤ chunkBytes each) holding every tensor and JSON blob, each
//     with its SHA-256 in the manifest, so no reader or writer ever needs one giant ArrayBuffer;
//   - a manifest (JSON) written LAST: the commit point. A checkpoint without one is unfinished and
//     is never loaded (it is reported and cleaned up).
// The manifest says what the checkpoint is for (format version, preset, model config, tokenizer
// identity, LoRA config) so that a mismatch is refused before any tensor is read, and carries the
// small state of a run (pipeline config, policy version, training state); the metrics so far are a
// checksummed JSON blob.
import { z } from 'zod';
import { TOKENIZER_KINDS, type TokenizerKind } from '../model/config';

export const CHECKPOINT_FORMAT = 'tabforge-checkpoint';
export const CHECKPOINT_FORMAT_VERSION = 1;
/** Default chunk size: 4 MiB (1 M f32 values); a 0.6B model is ~600 chunks, never one huge buffer. */
export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;

/** Checkpoint ids are file and key safe: letters, digits, '.', '_', '-' (no leading dot). */
export const CHECKPOINT_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export type TensorDtype = 'F32' | 'I32' | 'U32';
export const DTYPE_BYTES: Record<TensorDtype, number> = { F32: 4, I32: 4, U32: 4 };

/** Which tokenizer a model was trained with; a checkpoint is refused under another one. */
export interface TokenizerIdentity {
  kind: TokenizerKind;
  vocabSize: number;
  /** SHA-256 (hex) of the tokenizer's special-token table (see tokenizerIdentity). */
  fingerprint: string;
}

/** A run's small state that exact resume needs besides the tensors (all JSON). */
export interface TrainingState {
  /** The stage the run was in: 'sft', 'rl', … (the pipeline runner's names). */
  stage: string;
  /** Optimizer steps completed in this stage: a resumed loop starts at step + 1. */
  step: number;
  /** The run's seed. */
  seed: number;
  /** AdamW's step counter (bias correction); its moments are the 'adam.m' / 'adam.v' tensors. Null: no optimizer. */
  optimizerStep: number | null;
  /** Named RNG positions (Rng.state, u32) of every stream the loop owns. */
  rng: Record<string, number>;
  /** Data / task stream positions (e.g. SFT epoch and row, the RL refill counter). */
  cursors: Record<string, number | number[]>;
}

/** One chunk of a tensor or blob: its number in the store, byte length and SHA-256 (hex). */
export interface ChunkEntry {
  seq: number;
  bytes: number;
  sha256: string;
}

/** One stored tensor. `group` separates model weights, LoRA adapters, optimizer moments… */
export interface TensorEntry {
  /** 'model' (HF names), 'lora' (PEFT names), 'adam.m', 'adam.v', 'reference' (a frozen copy), … */
  group: string;
  name: string;
  dtype: TensorDtype;
  shape: number[];
  chunks: ChunkEntry[];
}

/** A JSON value stored as checksummed chunks (the metrics so far). */
export interface BlobEntry {
  name: string;
  chunks: ChunkEntry[];
}

/** Higher or lower is better, for retention's "best" checkpoint. */
export interface ValidationScore {
  metric: string;
  value: number;
  higherIsBetter: boolean;
}

export interface CheckpointManifest {
  format: typeof CHECKPOINT_FORMAT;
  formatVersion: number;
  id: string;
  /** ISO time the save finished. */
  createdAt: string;
  /** Preset name ('nano', 'tiny', …, or 'custom' for a loaded HF model). */
  preset: string;
  /** The ModelConfig (src/model/config.ts) as JSON. */
  model: Record<string, unknown>;
  tokenizer: TokenizerIdentity;
  /** LoRA config (rank, alpha, targets) when adapters are stored. */
  lora: Record<string, unknown> | null;
  /** The pipeline config the run was started with (opaque JSON: the pipeline runner owns its schema). */
  pipelineConfig: unknown;
  /** Weight version (RL: incremented by every optimizer step). */
  policyVersion: number;
  training: TrainingState;
  validation: ValidationScore | null;
  chunkBytes: number;
  /** Sum of all chunk bytes. */
  totalBytes: number;
  tensors: TensorEntry[];
  blobs: BlobEntry[];
}

const chunkSchema = z.object({ seq: z.number().int().nonnegative(), bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
const manifestSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
  formatVersion: z.number().int(),
  id: z.string().regex(CHECKPOINT_ID),
  createdAt: z.string(),
  preset: z.string(),
  model: z.record(z.string(), z.unknown()),
  tokenizer: z.object({ kind: z.enum(TOKENIZER_KINDS), vocabSize: z.number().int().positive(), fingerprint: z.string() }),
  lora: z.record(z.string(), z.unknown()).nullable(),
  pipelineConfig: z.unknown(),
  policyVersion: z.number().int().nonnegative(),
  training: z.object({
    stage: z.string(),
    step: z.number().int().nonnegative(),
    seed: z.number(),
    optimizerStep: z.number().int().nonnegative().nullable(),
    rng: z.record(z.string(), z.number().int().nonnegative()),
    cursors: z.record(z.string(), z.union([z.number(), z.array(z.number())])),
  }),
  validation: z.object({ metric: z.string(), value: z.number(), higherIsBetter: z.boolean() }).nullable(),
  chunkBytes: z.number().int().positive(),
  totalBytes: z.number().int().nonnegative(),
  tensors: z.array(z.object({
    group: z.string(), name: z.string(), dtype: z.enum(['F32', 'I32', 'U32']),
    shape: z.array(z.number().int().nonnegative()), chunks: z.array(chunkSchema),
  })),
  blobs: z.array(z.object({ name: z.string(), chunks: z.array(chunkSchema) })),
});

/**
 * Parses a stored manifest. Another format version is refused first (its fields may differ), with
 * what to do; a damaged manifest is refused naming the first bad field.
 */
export function parseManifest(id: string, json: string): CheckpointManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    throw new CheckpointError(`checkpoint '${id}': its manifest is not valid JSON (${(e as Error).message}); the checkpoint is damaged: load an older one`, 'corrupt');
  }
  const r = raw as { format?: unknown; formatVersion?: unknown };
  if (r?.format !== CHECKPOINT_FORMAT) {
    throw new CheckpointError(`checkpoint '${id}': not a TabForge checkpoint (format ${JSON.stringify(r?.format)}, expected "${CHECKPOINT_FORMAT}")`, 'incompatible');
  }
  if (r.formatVersion !== CHECKPOINT_FORMAT_VERSION) {
    const newer = typeof r.formatVersion === 'number' && r.formatVersion > CHECKPOINT_FORMAT_VERSION;
    throw new CheckpointError(
      `checkpoint '${id}' has format version ${String(r.formatVersion)}; this TabForge reads version ${CHECKPOINT_FORMAT_VERSION}: `
      + (newer ? 'update TabForge to load it' : 'it was written by an older TabForge; export it as an HF folder there and import that here'),
      'incompatible',
    );
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CheckpointError(`checkpoint '${id}': manifest field '${issue.path.join('.')}' ${issue.message}; the checkpoint is damaged: load an older one`, 'corrupt');
  }
  if (parsed.data.id !== id) throw new CheckpointError(`checkpoint '${id}': its manifest names '${parsed.data.id}'; the store is damaged`, 'corrupt');
  return parsed.data as CheckpointManifest;
}

/** What went wrong, for callers that react differently (e.g. storage full → offer to delete old ones). */
export type CheckpointErrorKind = 'corrupt' | 'incompatible' | 'storage-full' | 'not-found' | 'unfinished' | 'io';

export class CheckpointError extends Error {
  constructor(message: string, readonly kind: CheckpointErrorKind) {
    super(message);
    this.name = 'CheckpointError';
  }
}

/** What a loader expects; every given field must match the manifest or the load is refused. */
export interface CheckpointExpectation {
  preset?: string;
  tokenizer?: TokenizerIdentity;
  /** The ModelConfig of the model to restore into (compared field by field). */
  model?: object;
}

/** Refuses a checkpoint made for another preset, model shape or tokenizer, saying what differs. */
export function checkExpectation(m: CheckpointManifest, expect: CheckpointExpectation): void {
  const problems: string[] = [];
  if (expect.preset !== undefined && expect.preset !== m.preset) problems.push(`it was saved for preset '${m.preset}', this run uses '${expect.preset}'`);
  if (expect.tokenizer) {
    const t = expect.tokenizer;
    if (t.kind !== m.tokenizer.kind || t.vocabSize !== m.tokenizer.vocabSize) {
      problems.push(`it was trained with the ${m.tokenizer.kind} tokenizer (vocab ${m.tokenizer.vocabSize}), this run uses the ${t.kind} tokenizer (vocab ${t.vocabSize})`);
    } else if (t.fingerprint !== m.tokenizer.fingerprint) {
      problems.push(`its ${m.tokenizer.kind} tokenizer has other special tokens (fingerprint ${m.tokenizer.fingerprint.slice(0, 12)}…, this run ${t.fingerprint.slice(0, 12)}…)`);
    }
  }
  if (expect.model) {
    const want = expect.model as Record<string, unknown>;
    const diff = Object.keys(want).filter((k) => JSON.stringify(want[k]) !== JSON.stringify(m.model[k]));
    if (diff.length) problems.push(`its model differs in ${diff.map((k) => `${k} (${JSON.stringify(m.model[k])} vs ${JSON.stringify(want[k])})`).join(', ')}`);
  }
  if (problems.length) {
    throw new CheckpointError(`checkpoint '${m.id}' does not fit this run: ${problems.join('; ')}. Choose a checkpoint of this preset and tokenizer, or start a new run with its settings`, 'incompatible');
  }
}

/**
 * The tokenizer identity of a tokenizer: kind, vocabulary size and a SHA-256 of its special tokens,
 * and of its id map to Qwen3 when it has one (a trimmed vocabulary: two kept-id lists of one size differ).
 */
export async function tokenizerIdentity(t: { kind: TokenizerKind; vocabSize: number; specialTokens: Readonly<Record<string, number>>; qwen3Ids?: ArrayLike<number> }): Promise<TokenizerIdentity> {
  const specials = Object.entries(t.specialTokens).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const qwen3Ids = t.qwen3Ids === undefined ? undefined : Array.from(t.qwen3Ids);
  const text = JSON.stringify({ kind: t.kind, vocabSize: t.vocabSize, specials, qwen3Ids });
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return { kind: t.kind, vocabSize: t.vocabSize, fingerprint: hex(new Uint8Array(digest)) };
}

export function hex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** SHA-256 of bytes as lower-case hex (crypto.subtle: page, workers and Node ≥ 20). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  // subtle.digest takes an ArrayBufferView; a SharedArrayBuffer view is copied first (it refuses those).
  const view = bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', view)));
}
