// Resuming a data-parallel run across machines: each machine has its own IndexedDB, and only rank 0's
// holds the run's checkpoints. Before training, rank 0 sends the checkpoint it resumes from to every
// other rank over a collective (one round for the manifest, then one per chunk, ≤ 4 MiB each, so no
// message needs the whole model at once); every other rank checks each chunk's SHA-256 against the
// manifest as it arrives, writes it into its own store and commits the manifest last — the same
// commit rule as a save, so an interrupted copy is an unfinished save there, never a checkpoint.
// Then every rank loads the same checkpoint from its own store (resumePipeline) and the ranks start
// from the same weights, optimizer moments, KL reference and step, as tabs of one browser do.
import type { CheckpointBackend } from '../storage/backend';
import { parseManifest, sha256Hex } from '../storage/format';
import type { Collective } from './collective';

export interface CheckpointShareStats {
  chunks: number;
  /** Chunk bytes sent (rank 0, once per other rank) or received (the others). */
  bytes: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
const NOTHING = new Uint8Array(0);

/** Rank 0: sends checkpoint `id` of `store`; the others: receive it into their own `store`. Every rank calls it. */
export async function shareCheckpoint(c: Collective, store: CheckpointBackend, id: string): Promise<CheckpointShareStats> {
  const sender = c.rank === 0;
  const text = sender ? await store.readManifest(id) : null;
  if (sender && text === null) throw new Error(`rank 0 has no complete checkpoint '${id}' in ${store.description} to send`);
  const first = await c.allGather(sender ? encoder.encode(text!) : NOTHING, { id });
  const sentId = (first[0].info as { id?: unknown } | null)?.id;
  if (sentId !== id) throw new Error(`rank 0 sent checkpoint ${JSON.stringify(sentId)} where this rank resumes from '${id}'`);
  const manifestText = decoder.decode(first[0].bytes);
  const manifest = parseManifest(id, manifestText);
  const chunks = [...manifest.tensors, ...manifest.blobs].flatMap((e) => e.chunks).sort((a, b) => a.seq - b.seq);
  if (!sender) {
    await store.remove(id); // a copy from an earlier try, complete or not
    await store.beginSave(id);
  }
  let bytes = 0;
  for (const [i, chunk] of chunks.entries()) {
    const all = await c.allGather(sender ? await store.getChunk(id, chunk.seq) : NOTHING, { seq: chunk.seq });
    const part = all[0].bytes;
    bytes += part.byteLength * (sender ? c.world - 1 : 1);
    if (sender) continue;
    if (part.byteLength !== chunk.bytes || (await sha256Hex(part)) !== chunk.sha256) {
      await store.remove(id);
      throw new Error(`checkpoint '${id}' from rank 0: chunk ${i + 1} of ${chunks.length} (seq ${chunk.seq}) arrived with ${part.byteLength} bytes that do not match the manifest's checksum; nothing of it was kept: start the run again`);
    }
    await store.putChunk(id, chunk.seq, part);
  }
  if (!sender) await store.commit(id, manifestText);
  return { chunks: chunks.length, bytes };
}
