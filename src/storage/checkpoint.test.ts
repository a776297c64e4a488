// Checkpoint format on the disk and memory back-ends: round trip, manifest-last commit, unfinished
// saves found and cleaned, flipped bytes refused naming the tensor, storage full, refusals, retention.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Rng } from '../util/rng';
import type { CheckpointBackend } from './backend';
import { applyRetention, type CheckpointContents, cleanUpUnfinished, listCheckpoints, loadLatestCheckpoint, openCheckpoint, saveCheckpoint } from './checkpoint';
import { DiskBackend } from './diskBackend';
import { CHECKPOINT_FORMAT_VERSION, tokenizerIdentity } from './format';
import { MemoryBackend } from './memoryBackend';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function disk(): Promise<DiskBackend> {
  const d = await mkdtemp(join(tmpdir(), 'tabforge-ckpt-'));
  dirs.push(d);
  return new DiskBackend(d);
}

const byteTok = () => tokenizerIdentity({ kind: 'byte', vocabSize: 272, specialTokens: { '<|im_end|>': 258 } });

async function contents(step: number, opts: { n?: number; validation?: number } = {}): Promise<CheckpointContents> {
  const rng = new Rng(step);
  const n = opts.n ?? 1000;
  const w = Float32Array.from({ length: n }, () => rng.normal());
  return {
    preset: 'nano', model: { hiddenSize: 96, numLayers: 4 }, tokenizer: await byteTok(), lora: null,
    pipelineConfig: { stages: ['sft'], seed: 7 }, policyVersion: step,
    training: { stage: 'sft', step, seed: 7, optimizerStep: step, rng: { rows: rng.saveState() }, cursors: { epoch: 1, row: 3 } },
    validation: opts.validation === undefined ? null : { metric: 'heldout/success', value: opts.validation, higherIsBetter: true },
    metrics: Array.from({ length: step }, (_, i) => ({ step: i + 1, loss: 1 / (i + 1) })),
    tensors: [
      { group: 'model', name: 'model.embed_tokens.weight', shape: [n / 10, 10], data: w },
      { group: 'adam.m', name: 'model.embed_tokens.weight', shape: [n / 10, 10], data: async () => w.map((x) => x / 2) },
      { group: 'cursor', name: 'order', shape: [3], data: Int32Array.of(2, 0, 1) },
      { group: 'model', name: 'empty', shape: [0], data: new Float32Array(0) },
    ],
  };
}

describe.each([['disk', disk], ['memory', async () => new MemoryBackend()]] as [string, () => Promise<CheckpointBackend>][])('checkpoints on %s', (_, make) => {
  it('round-trips tensors, training state, metrics and config in bounded chunks', async () => {
    const store = await make();
    const c = await contents(5);
    const m = await saveCheckpoint(store, c, { id: 'a', chunkBytes: 1024 });
    expect(m.tensors[0].chunks.length).toBe(4); // 4000 bytes in ≤ 1024-byte chunks
    expect(m.tensors[0].chunks.every((ch) => ch.bytes <= 1024)).toBe(true);
    const r = await openCheckpoint(store, 'a', { preset: 'nano', tokenizer: await byteTok() });
    expect(await r.f32('model', 'model.embed_tokens.weight')).toEqual(c.tensors[0].data);
    expect(await r.f32('adam.m', 'model.embed_tokens.weight')).toEqual((c.tensors[0].data as Float32Array).map((x) => x / 2));
    expect(await r.tensor('cursor', 'order')).toEqual(Int32Array.of(2, 0, 1));
    expect((await r.f32('model', 'empty')).length).toBe(0);
    expect(r.manifest.training).toEqual(c.training);
    expect(r.manifest.pipelineConfig).toEqual({ stages: ['sft'], seed: 7 });
    expect(r.manifest.formatVersion).toBe(CHECKPOINT_FORMAT_VERSION);
    expect(await r.blob('metrics')).toEqual(c.metrics);
    await r.verify();
  });

  it('an interrupted save (no manifest) is never loaded: the previous one is, and the partial one is reported and removed', async () => {
    const store = await make();
    await saveCheckpoint(store, await contents(1), { id: 'old' });
    // a save that dies after its second chunk
    let puts = 0;
    const dying: CheckpointBackend = Object.assign(Object.create(Object.getPrototypeOf(store)), store, {
      putChunk: async (id: string, seq: number, b: Uint8Array) => {
        if (++puts > 2) throw new Error('tab closed');
        return store.putChunk(id, seq, b);
      },
      remove: async () => { throw new Error('tab closed'); }, // the page is gone: no clean-up either
    });
    await expect(saveCheckpoint(dying, await contents(2), { id: 'new', chunkBytes: 1024 })).rejects.toThrow(/'new' was not saved: tab closed.*will be cleaned up at the next load/);
    const listing = await listCheckpoints(store);
    expect(listing.complete.map((m) => m.id)).toEqual(['old']);
    expect(listing.unfinished.map((u) => [u.id, u.chunks])).toEqual([['new', 2]]);
    await expect(openCheckpoint(store, 'new')).rejects.toThrow(/'new' is unfinished/);
    const latest = await loadLatestCheckpoint(store, { preset: 'nano' });
    expect(latest.reader?.id).toBe('old');
    expect(latest.unfinished.map((u) => u.id)).toEqual(['new']);
    await latest.reader!.verify();
    expect((await store.list()).unfinished).toEqual([]);
  });

  it('a flipped byte is refused naming the tensor and the checksum mismatch', async () => {
    const store = await make();
    const m = await saveCheckpoint(store, await contents(3), { id: 'x', chunkBytes: 1024 });
    const seq = m.tensors.find((t) => t.group === 'adam.m')!.chunks[2].seq;
    if (store instanceof DiskBackend) {
      const f = join(store.root, 'x', `c${String(seq).padStart(8, '0')}.bin`);
      const b = await readFile(f);
      b[17] ^= 0x01;
      await writeFile(f, b);
    } else {
      (store as MemoryBackend).chunks.get(`x/${seq}`)![17] ^= 0x01;
    }
    const r = await openCheckpoint(store, 'x');
    await expect(r.f32('model', 'model.embed_tokens.weight')).resolves.toBeInstanceOf(Float32Array); // other tensors still read
    await expect(r.f32('adam.m', 'model.embed_tokens.weight')).rejects.toThrow(/tensor 'model\.embed_tokens\.weight' \(adam\.m, F32 \[100, 10\]\), chunk 3 of 4, fails its checksum \(SHA-256 [0-9a-f]{16}… ≠ [0-9a-f]{16}…/);
    await expect(r.verify()).rejects.toThrow(/corrupted; load an older checkpoint/);
  });

  it('refuses another preset, tokenizer or format version clearly', async () => {
    const store = await make();
    await saveCheckpoint(store, await contents(1), { id: 'n' });
    await expect(openCheckpoint(store, 'n', { preset: 'tiny' })).rejects.toThrow(/saved for preset 'nano', this run uses 'tiny'/);
    const qwen = { kind: 'qwen3' as const, vocabSize: 151936, fingerprint: 'f'.repeat(64) };
    await expect(openCheckpoint(store, 'n', { tokenizer: qwen })).rejects.toThrow(/trained with the byte tokenizer \(vocab 272\), this run uses the qwen3 tokenizer/);
    const other = await tokenizerIdentity({ kind: 'byte', vocabSize: 272, specialTokens: { '<|im_end|>': 259 } });
    await expect(openCheckpoint(store, 'n', { tokenizer: other })).rejects.toThrow(/other special tokens/);
    await expect(openCheckpoint(store, 'n', { model: { hiddenSize: 256 } })).rejects.toThrow(/hiddenSize \(96 vs 256\)/);
    // a manifest from a future format
    const json = JSON.parse((await store.readManifest('n'))!);
    json.formatVersion = 2;
    await store.remove('n');
    await store.beginSave('n');
    await store.commit('n', JSON.stringify(json));
    await expect(openCheckpoint(store, 'n')).rejects.toThrow(/format version 2; this TabForge reads version 1: update TabForge/);
    const latest = await loadLatestCheckpoint(store);
    expect(latest.reader).toBeNull();
    expect(latest.skipped[0].reason).toMatch(/format version 2/);
  });

  it('storage full: a clear error, nothing half-written, older checkpoints intact', async () => {
    const store = await make();
    await saveCheckpoint(store, await contents(1), { id: 'old' });
    let written = 0;
    const full: CheckpointBackend = Object.assign(Object.create(Object.getPrototypeOf(store)), store, {
      putChunk: async (id: string, seq: number, b: Uint8Array) => {
        written += b.byteLength;
        if (written > 3000) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return store.putChunk(id, seq, b);
      },
      remove: (id: string) => store.remove(id),
      list: () => store.list(),
    });
    await expect(saveCheckpoint(full, await contents(2), { id: 'new', chunkBytes: 1024 })).rejects.toThrow(/'new' was not saved: .* is full.*needs 0\.0 MB.*Older checkpoints are intact and nothing of it was kept/);
    const listing = await listCheckpoints(store);
    expect(listing.complete.map((m) => m.id)).toEqual(['old']);
    expect(listing.unfinished).toEqual([]);
    await (await openCheckpoint(store, 'old')).verify();
  });

  it('retention keeps the last N and the best by validation', async () => {
    const store = await make();
    const scores = [0.2, 0.9, 0.4, 0.5, 0.3];
    for (const [i, s] of scores.entries()) {
      await saveCheckpoint(store, await contents(i + 1, { n: 10, validation: s }), { id: `s${i + 1}` });
      await new Promise((r) => setTimeout(r, 2)); // distinct creation times
    }
    expect(await applyRetention(store, { keepLast: 2, keepBest: true })).toEqual(['s1', 's3']);
    expect((await listCheckpoints(store)).complete.map((m) => m.id)).toEqual(['s2', 's4', 's5']);
    expect(await applyRetention(store, { keepLast: 1, keepBest: false })).toEqual(['s2', 's4']);
  });

  it('refuses to overwrite a complete checkpoint', async () => {
    const store = await make();
    await saveCheckpoint(store, await contents(1, { n: 10 }), { id: 'a' });
    await expect(saveCheckpoint(store, await contents(2, { n: 10 }), { id: 'a' })).rejects.toThrow(/'a' already exists/);
    await (await openCheckpoint(store, 'a')).verify();
  });
});

describe('disk layout', () => {
  it('writes chunks, then manifest.json last; a folder without it is unfinished and is cleaned', async () => {
    const store = await disk();
    await saveCheckpoint(store, await contents(1, { n: 10 }), { id: 'a' });
    expect((await readdir(join(store.root, 'a'))).sort()).toEqual(['c00000000.bin', 'c00000001.bin', 'c00000002.bin', 'c00000003.bin', 'c00000004.bin', 'manifest.json']);
    await store.beginSave('b');
    await store.putChunk('b', 0, new Uint8Array(8));
    expect((await store.list()).unfinished.map((u) => [u.id, u.chunks])).toEqual([['b', 1]]);
    expect((await cleanUpUnfinished(store)).map((u) => u.id)).toEqual(['b']);
    expect(await readdir(store.root)).toEqual(['a']);
  });
});
