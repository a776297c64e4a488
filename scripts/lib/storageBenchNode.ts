// The Node side of the checkpoint and merge bench rows: save / load MB/s of the same tiny+AdamW
// checkpoint to a folder on disk (hashing and fsync included), and TIES merge seconds per 10 M
// parameters in Node. Returned as a report of its own (adapter kind 'node-disk').
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchResult } from '../../src/app/bench/registry';
import type { BenchReport } from '../../src/app/bench/report';
import { mergeSecondsPer10M, tinyCheckpointContents } from '../../src/app/bench/storageBench';
import { openCheckpoint, saveCheckpoint } from '../../src/storage/checkpoint';
import { DiskBackend } from '../../src/storage/diskBackend';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const row = (name: string, unit: string, samples: number[], note: string): BenchResult => ({
  name, unit, value: median(samples), peers: { 'tfjs-webgpu': null, 'ort-webgpu': null }, samples: samples.length, note,
});

export async function nodeStorageRows(opts: { quick: boolean; filter?: string }): Promise<BenchReport | null> {
  const names = ['checkpoint save disk tiny+AdamW', 'checkpoint load disk tiny+AdamW', 'merge ties 2 models per 10M params'];
  if (opts.filter && !names.some((n) => n.includes(opts.filter!))) return null;
  const repeats = opts.quick ? 1 : 3;
  const dir = await mkdtemp(join(tmpdir(), 'tabforge-bench-'));
  try {
    const store = new DiskBackend(dir);
    const contents = tinyCheckpointContents();
    const mb = contents.tensors.reduce((s, t) => s + 4 * t.shape[0], 0) / 1e6;
    const save: number[] = [];
    const load: number[] = [];
    for (let i = 0; i < repeats; i++) {
      let t0 = performance.now();
      await saveCheckpoint(store, contents, { id: `bench-${i}` });
      save.push(mb / ((performance.now() - t0) / 1000));
      t0 = performance.now();
      const r = await openCheckpoint(store, `bench-${i}`);
      for (const t of r.tensors()) await r.tensor(t.group, t.name);
      load.push(mb / ((performance.now() - t0) / 1000));
    }
    const merge: number[] = [];
    for (let i = 0; i < repeats; i++) merge.push(await mergeSecondsPer10M());
    const note = `${mb.toFixed(1)} MB in 4 MiB chunks, SHA-256 per chunk and fsync included (${tmpdir()})`;
    return {
      adapter: { kind: 'node-disk', description: `Node ${process.version}, folder on disk (no GPU)`, featureLevel: 'core', vendor: '', architecture: '' },
      results: [
        row(names[0], 'MB/s', save, note), row(names[1], 'MB/s', load, note),
        row(names[2], 's', merge, 'Node, one tensor at a time (tiny-sized models, density 0.5)'),
      ].filter((r) => !opts.filter || r.name.includes(opts.filter)),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
