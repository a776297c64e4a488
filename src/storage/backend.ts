// Where checkpoints are stored: one small interface, implemented by IndexedDB (page and workers,
// ./idbBackend), a folder on disk (Node, ./diskBackend) and memory (tests, ./memoryBackend). The
// format and every rule (chunking, checksums, manifest last, refusals) live above it in ./checkpoint.

/** A save in progress or interrupted: begun, chunks maybe written, no manifest yet. */
export interface UnfinishedSave {
  id: string;
  /** ISO time the save began (when the backend knows it). */
  startedAt: string | null;
  /** Chunks already written. */
  chunks: number;
}

export interface CheckpointBackend {
  /** Where checkpoints go, for messages ("IndexedDB 'tabforge-checkpoints'", "folder ./ckpt"). */
  readonly description: string;
  /** Marks a save as begun, before any chunk: an interrupted save is then found even without chunks. */
  beginSave(id: string): Promise<void>;
  putChunk(id: string, seq: number, bytes: Uint8Array): Promise<void>;
  /** A chunk's bytes; throws a CheckpointError('corrupt') when it is missing. */
  getChunk(id: string, seq: number): Promise<Uint8Array>;
  /** The commit point: stores the manifest and clears the begun mark, atomically. */
  commit(id: string, manifestJson: string): Promise<void>;
  /** The manifest text of a complete checkpoint, or null when there is none. */
  readManifest(id: string): Promise<string | null>;
  /** Ids of complete checkpoints (any order) and saves that never reached their manifest. */
  list(): Promise<{ complete: string[]; unfinished: UnfinishedSave[] }>;
  /** Deletes a checkpoint, complete or not; a crash midway leaves it unfinished (cleaned later), never half-complete. */
  remove(id: string): Promise<void>;
  /** Bytes used and available to this store, when the platform tells. */
  estimate(): Promise<{ usage: number; quota: number } | null>;
}

/** True for the errors platforms raise when storage is full (IndexedDB QuotaExceededError, Node ENOSPC/EDQUOT). */
export function isStorageFullError(e: unknown): boolean {
  const err = e as { name?: string; code?: string | number; message?: string; inner?: unknown } | null;
  if (!err) return false;
  if (err.name === 'QuotaExceededError' || err.code === 'ENOSPC' || err.code === 'EDQUOT' || err.code === 22) return true;
  return /quota|no space left|disk is full/i.test(err.message ?? '');
}
