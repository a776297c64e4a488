// Checkpoints in IndexedDB (through `idb`), for the page and its workers. Object stores:
//   chunks     key [id, seq] → Uint8Array (each put is its own short transaction: hashing and GPU
//              reads happen between puts, and one giant transaction would hold a whole model in memory)
//   begun      key id → ISO start time (written before the first chunk)
//   manifests  key id → manifest JSON
// commit writes the manifest and deletes the begun mark in ONE transaction (the commit point), and
// remove deletes all three in one transaction, so a checkpoint is complete or unfinished, never between.
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { CheckpointBackend, UnfinishedSave } from './backend';
import { CheckpointError } from './format';

interface CheckpointDb extends DBSchema {
  chunks: { key: [string, number]; value: Uint8Array };
  begun: { key: string; value: string };
  manifests: { key: string; value: string };
}

export const DEFAULT_IDB_NAME = 'tabforge-checkpoints';

const range = (id: string) => IDBKeyRange.bound([id, 0], [id, Infinity]);

export class IdbBackend implements CheckpointBackend {
  readonly description: string;

  private constructor(private readonly db: IDBPDatabase<CheckpointDb>, readonly name: string) {
    this.description = `IndexedDB '${name}'`;
  }

  static async open(name = DEFAULT_IDB_NAME): Promise<IdbBackend> {
    if (typeof indexedDB === 'undefined') throw new CheckpointError('IndexedDB is not available here (private mode or an old browser): checkpoints cannot be saved', 'io');
    const db = await openDB<CheckpointDb>(name, 1, {
      upgrade(d) {
        d.createObjectStore('chunks');
        d.createObjectStore('begun');
        d.createObjectStore('manifests');
      },
    });
    return new IdbBackend(db, name);
  }

  close(): void {
    this.db.close();
  }

  async beginSave(id: string): Promise<void> {
    await this.db.put('begun', new Date().toISOString(), id);
  }

  async putChunk(id: string, seq: number, bytes: Uint8Array): Promise<void> {
    // A view into a larger buffer would store the whole buffer: store exactly these bytes.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
    const tx = this.db.transaction('chunks', 'readwrite');
    await Promise.all([tx.store.put(own, [id, seq]), tx.done]);
  }

  async getChunk(id: string, seq: number): Promise<Uint8Array> {
    const c = await this.db.get('chunks', [id, seq]);
    if (!c) throw new CheckpointError(`checkpoint '${id}': chunk ${seq} is missing from ${this.description}; the checkpoint is damaged: load an older one`, 'corrupt');
    return c;
  }

  async commit(id: string, manifestJson: string): Promise<void> {
    const tx = this.db.transaction(['manifests', 'begun'], 'readwrite');
    await Promise.all([tx.objectStore('manifests').put(manifestJson, id), tx.objectStore('begun').delete(id), tx.done]);
  }

  async readManifest(id: string): Promise<string | null> {
    return (await this.db.get('manifests', id)) ?? null;
  }

  async list(): Promise<{ complete: string[]; unfinished: UnfinishedSave[] }> {
    const complete = await this.db.getAllKeys('manifests');
    const done = new Set(complete);
    const ids = new Set(await this.db.getAllKeys('begun'));
    // chunks without a begun mark or manifest (should not happen: remove is one transaction) are unfinished too
    let cursor = await this.db.transaction('chunks').store.openKeyCursor();
    while (cursor) {
      const [id] = cursor.key;
      ids.add(id);
      cursor = await cursor.continue([id, Infinity]); // jump to the next checkpoint's chunks
    }
    const unfinished: UnfinishedSave[] = [];
    for (const id of ids) {
      if (done.has(id)) continue;
      unfinished.push({ id, startedAt: (await this.db.get('begun', id)) ?? null, chunks: await this.db.count('chunks', range(id)) });
    }
    return { complete, unfinished };
  }

  async remove(id: string): Promise<void> {
    const tx = this.db.transaction(['chunks', 'begun', 'manifests'], 'readwrite');
    await Promise.all([
      tx.objectStore('chunks').delete(range(id)), tx.objectStore('begun').delete(id), tx.objectStore('manifests').delete(id), tx.done,
    ]);
  }

  async estimate(): Promise<{ usage: number; quota: number } | null> {
    const s = globalThis.navigator?.storage;
    if (!s?.estimate) return null;
    const e = await s.estimate();
    return { usage: e.usage ?? 0, quota: e.quota ?? 0 };
  }
}
