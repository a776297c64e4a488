// Checkpoints in a folder (Node: `npm run learn -- --save DIR`). One sub-folder per checkpoint:
//   DIR/<id>/begun            written first (the save's start time)
//   DIR/<id>/c00000012.bin    chunk 12, fsynced before the manifest is written
//   DIR/<id>/manifest.json    the commit point: written to manifest.json.tmp, fsynced, renamed
// A sub-folder without manifest.json is an unfinished save. Removal deletes the manifest first, so a
// crash midway leaves an unfinished save (cleaned up later), never a complete-looking damaged one.
import { mkdir, open, readdir, readFile, rename, rm, stat, statfs, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckpointBackend, UnfinishedSave } from './backend';
import { CHECKPOINT_ID, CheckpointError } from './format';

const MANIFEST = 'manifest.json';
const BEGUN = 'begun';
const chunkFile = (seq: number) => `c${String(seq).padStart(8, '0')}.bin`;

async function writeDurably(path: string, data: Uint8Array | string): Promise<void> {
  const fh = await open(path, 'w');
  try {
    await fh.writeFile(data);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

/** fsync a folder so a rename inside it survives a power cut (a no-op where folders cannot be opened). */
async function syncFolder(path: string): Promise<void> {
  try {
    const fh = await open(path, 'r');
    try { await fh.sync(); } finally { await fh.close(); }
  } catch { /* platforms without folder fsync */ }
}

export class DiskBackend implements CheckpointBackend {
  readonly description: string;

  constructor(readonly root: string) {
    this.description = `folder ${root}`;
  }

  private dir(id: string): string {
    if (!CHECKPOINT_ID.test(id)) throw new CheckpointError(`checkpoint id '${id}' is not allowed: use letters, digits, '.', '_' and '-'`, 'io');
    return join(this.root, id);
  }

  async beginSave(id: string): Promise<void> {
    const dir = this.dir(id);
    await mkdir(dir, { recursive: true });
    await writeDurably(join(dir, BEGUN), new Date().toISOString());
  }

  async putChunk(id: string, seq: number, bytes: Uint8Array): Promise<void> {
    await writeDurably(join(this.dir(id), chunkFile(seq)), bytes);
  }

  async getChunk(id: string, seq: number): Promise<Uint8Array> {
    try {
      return new Uint8Array(await readFile(join(this.dir(id), chunkFile(seq))));
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') {
        throw new CheckpointError(`checkpoint '${id}': chunk file ${chunkFile(seq)} is missing from ${this.description}; the checkpoint is damaged: load an older one`, 'corrupt');
      }
      throw e;
    }
  }

  async commit(id: string, manifestJson: string): Promise<void> {
    const dir = this.dir(id);
    const tmp = join(dir, `${MANIFEST}.tmp`);
    await writeDurably(tmp, manifestJson);
    await rename(tmp, join(dir, MANIFEST)); // atomic: the checkpoint is complete from here on
    await syncFolder(dir);
    await rm(join(dir, BEGUN), { force: true });
  }

  async readManifest(id: string): Promise<string | null> {
    try {
      return await readFile(join(this.dir(id), MANIFEST), 'utf8');
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return null;
      throw e;
    }
  }

  async list(): Promise<{ complete: string[]; unfinished: UnfinishedSave[] }> {
    let entries: string[];
    try {
      entries = await readdir(this.root);
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return { complete: [], unfinished: [] };
      throw e;
    }
    const complete: string[] = [];
    const unfinished: UnfinishedSave[] = [];
    for (const id of entries) {
      if (!CHECKPOINT_ID.test(id)) continue;
      const dir = join(this.root, id);
      if (!(await stat(dir)).isDirectory()) continue;
      const files = await readdir(dir);
      if (files.includes(MANIFEST)) { complete.push(id); continue; }
      const startedAt = files.includes(BEGUN) ? await readFile(join(dir, BEGUN), 'utf8').catch(() => null) : null;
      unfinished.push({ id, startedAt, chunks: files.filter((f) => /^c\d+\.bin$/.test(f)).length });
    }
    return { complete, unfinished };
  }

  async remove(id: string): Promise<void> {
    const dir = this.dir(id);
    await unlink(join(dir, MANIFEST)).catch((e) => { if (e.code !== 'ENOENT') throw e; });
    await syncFolder(dir);
    await rm(dir, { recursive: true, force: true });
  }

  async estimate(): Promise<{ usage: number; quota: number } | null> {
    try {
      await mkdir(this.root, { recursive: true });
      const s = await statfs(this.root);
      const quota = s.blocks * s.bsize;
      return { usage: quota - s.bavail * s.bsize, quota };
    } catch {
      return null;
    }
  }
}
