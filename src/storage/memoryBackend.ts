// Checkpoints in memory: tests, and a fallback where neither IndexedDB nor a disk exists. An
// optional byte quota makes it fail like a full disk (QuotaExceededError), for fault tests.
import type { CheckpointBackend, UnfinishedSave } from './backend';
import { CheckpointError } from './format';

export class MemoryBackend implements CheckpointBackend {
  readonly description = 'memory';
  readonly chunks = new Map<string, Uint8Array>(); // `${id}/${seq}` → bytes (a copy)
  readonly manifests = new Map<string, string>();
  readonly begun = new Map<string, string>(); // id → ISO start time

  /** quotaBytes: total chunk bytes allowed (undefined: unlimited). */
  constructor(public quotaBytes?: number) {}

  get usedBytes(): number {
    let n = 0;
    for (const c of this.chunks.values()) n += c.byteLength;
    return n;
  }

  async beginSave(id: string): Promise<void> {
    this.begun.set(id, new Date().toISOString());
  }

  async putChunk(id: string, seq: number, bytes: Uint8Array): Promise<void> {
    if (this.quotaBytes !== undefined && this.usedBytes + bytes.byteLength > this.quotaBytes) {
      throw new DOMException(`memory store quota of ${this.quotaBytes} bytes exceeded`, 'QuotaExceededError');
    }
    this.chunks.set(`${id}/${seq}`, bytes.slice());
  }

  async getChunk(id: string, seq: number): Promise<Uint8Array> {
    const c = this.chunks.get(`${id}/${seq}`);
    if (!c) throw new CheckpointError(`checkpoint '${id}': chunk ${seq} is missing from the store; the checkpoint is damaged: load an older one`, 'corrupt');
    return c.slice();
  }

  async commit(id: string, manifestJson: string): Promise<void> {
    this.manifests.set(id, manifestJson);
    this.begun.delete(id);
  }

  async readManifest(id: string): Promise<string | null> {
    return this.manifests.get(id) ?? null;
  }

  async list(): Promise<{ complete: string[]; unfinished: UnfinishedSave[] }> {
    const ids = new Set<string>(this.begun.keys());
    for (const key of this.chunks.keys()) ids.add(key.slice(0, key.lastIndexOf('/')));
    const unfinished = [...ids].filter((id) => !this.manifests.has(id)).map((id) => ({
      id, startedAt: this.begun.get(id) ?? null, chunks: [...this.chunks.keys()].filter((k) => k.startsWith(`${id}/`)).length,
    }));
    return { complete: [...this.manifests.keys()], unfinished };
  }

  async remove(id: string): Promise<void> {
    this.manifests.delete(id);
    for (const key of [...this.chunks.keys()]) if (key.startsWith(`${id}/`)) this.chunks.delete(key);
    this.begun.delete(id);
  }

  async estimate(): Promise<{ usage: number; quota: number } | null> {
    return this.quotaBytes === undefined ? null : { usage: this.usedBytes, quota: this.quotaBytes };
  }
}
