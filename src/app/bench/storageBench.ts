// Checkpoint and merge rows: save / load MB/s of a `tiny` checkpoint with its AdamW moments in
// IndexedDB (hashing included), how long a save stalls training (the GPU → host capture) as a
// fraction of one `tiny` training step, and TIES merge seconds per 10 M parameters (host JS).
// The Node disk rows of the same measurements are added by scripts/bench.ts (scripts/lib/storageBenchNode.ts).
import type { GpuRuntime } from '../../gpu/runtime';
import { planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from '../../model/activations';
import { PRESETS } from '../../model/config';
import { supervisedStep } from '../../model/trainStep';
import { GpuWeights, initialWeights } from '../../model/weights';
import { type CheckpointContents, openCheckpoint, saveCheckpoint } from '../../storage/checkpoint';
import { IdbBackend } from '../../storage/idbBackend';
import { captureTraining } from '../../storage/trainingCheckpoint';
import { memorySink, memorySource, mergeModels } from '../../train/merge/mergeStream';
import { mergeMethod, mergeOptions } from '../../train/merge/methods';
import { AdamWState } from '../../train/optimizerState';
import { Rng } from '../../util/rng';
import { type BenchCase, registerBench } from './registry';

const noPeer = async (): Promise<number> => {
  throw new Error('no checkpoint store or merge in this library');
};
const NO_PEERS = { 'tfjs-webgpu': noPeer, 'ort-webgpu': noPeer };

/** A tiny-preset checkpoint's contents (weights + AdamW moments, random values), built once. */
export function tinyCheckpointContents(): CheckpointContents {
  const cfg = PRESETS.tiny;
  const params = initialWeights(cfg, 1);
  const rng = new Rng(2);
  const noise = (v: Float32Array) => v.map(() => rng.normal(0, 1e-3));
  const tensors = [...params].flatMap(([name, data]) => ['model', 'adam.m', 'adam.v'].map((group) => ({ group, name, shape: [data.length], data: group === 'model' ? data : noise(data) })));
  return {
    preset: 'tiny', model: cfg, tokenizer: { kind: 'byte', vocabSize: cfg.vocabSize, fingerprint: '0'.repeat(64) }, policyVersion: 1,
    training: { stage: 'sft', step: 1, seed: 1, optimizerStep: 1, rng: {}, cursors: {} }, tensors,
  };
}

const MB = (c: CheckpointContents) => c.tensors.reduce((s, t) => s + 4 * t.shape[0], 0) / 1e6;

function idbRows(): BenchCase[] {
  let contents: CheckpointContents | null = null;
  let store: IdbBackend | null = null;
  let n = 0;
  const setup = async () => {
    contents ??= tinyCheckpointContents();
    store ??= await IdbBackend.open('tabforge-bench');
    return { contents, store };
  };
  return [
    {
      name: 'checkpoint save IndexedDB tiny+AdamW',
      unit: 'MB/s',
      async run() {
        const s = await setup();
        const id = `bench-${n++}`;
        const t0 = performance.now();
        await saveCheckpoint(s.store, s.contents, { id });
        const seconds = (performance.now() - t0) / 1000;
        return MB(s.contents) / seconds;
      },
      peers: NO_PEERS,
      note: () => contents ? `${MB(contents).toFixed(1)} MB in 4 MiB chunks, SHA-256 per chunk included` : undefined,
    },
    {
      name: 'checkpoint load IndexedDB tiny+AdamW',
      unit: 'MB/s',
      async run() {
        const s = await setup();
        if (n === 0) await saveCheckpoint(s.store, s.contents, { id: `bench-${n++}` });
        const t0 = performance.now();
        const r = await openCheckpoint(s.store, `bench-${n - 1}`);
        for (const t of r.tensors()) await r.tensor(t.group, t.name); // every chunk read and checked
        return MB(s.contents) / ((performance.now() - t0) / 1000);
      },
      peers: NO_PEERS,
      async dispose() {
        if (store) for (const id of (await store.list()).complete) await store.remove(id);
        store?.close();
        store = null;
        contents = null;
      },
    },
  ];
}

function stallRow(B: number, T: number): BenchCase {
  let st: { w: GpuWeights; opt: AdamWState; acts: ReturnType<typeof planActivations>; scratch: ReturnType<typeof planBackwardScratch> } | null = null;
  let last = { step: 0, capture: 0 };
  const rng = new Rng(3);
  const N = B * T;
  const batch = { inputIds: Int32Array.from({ length: N }, () => rng.int(0, 255)), targets: Int32Array.from({ length: N }, () => rng.int(0, 255)), mask: new Float32Array(N).fill(1) };
  return {
    name: `checkpoint save stall / train step tiny B=${B} T=${T}`,
    unit: 'steps',
    async run(rt: GpuRuntime) {
      const cfg = PRESETS.tiny;
      if (!st) {
        const w = new GpuWeights(rt, cfg, initialWeights(cfg, 1));
        st = { w, opt: new AdamWState(rt, w), acts: planActivations(rt, cfg, B, T), scratch: planBackwardScratch(rt, cfg, B, T) };
      }
      await rt.sync();
      const t0 = performance.now();
      st.w.zeroGrads();
      await supervisedStep(rt, st.w, st.acts, st.scratch, batch);
      await st.opt.apply({ lr: 1e-4, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0 }, 1);
      const t1 = performance.now();
      await captureTraining({ w: st.w, opt: st.opt }); // what a save holds training up for; hashing and writing overlap the next steps
      const t2 = performance.now();
      last = { step: (t1 - t0) / 1000, capture: (t2 - t1) / 1000 };
      return last.capture / last.step;
    },
    peers: NO_PEERS,
    note: () => `capture ${last.capture.toFixed(3)} s vs one training step ${last.step.toFixed(3)} s (last sample); < 1: a save stalls training for less than a step`,
    dispose(rt) {
      if (!st) return;
      releaseActivations(rt, st.acts);
      releaseBackwardScratch(rt, st.scratch);
      st.opt.destroy();
      st.w.destroy();
      st = null;
    },
  };
}

/** TIES (density 0.5) of two tiny-sized models into their base, in memory: seconds per 10 M parameters. */
export async function mergeSecondsPer10M(): Promise<number> {
  const cfg = PRESETS.tiny;
  const base = initialWeights(cfg, 1);
  const model = (seed: number) => {
    const rng = new Rng(seed);
    return new Map([...base].map(([k, v]) => [k, { shape: [v.length], data: v.map((x) => x + rng.normal(0, 1e-3)) }]));
  };
  const src = (label: string, m: Map<string, { shape: number[]; data: Float32Array }>) => memorySource(label, m);
  const method = mergeMethod('ties');
  const t0 = performance.now();
  const { parameters } = await mergeModels({
    method, options: mergeOptions(method, 2, { density: 0.5 }), base: src('base', new Map([...base].map(([k, v]) => [k, { shape: [v.length], data: v }]))),
    models: [src('a', model(2)), src('b', model(3))], sink: memorySink(),
  });
  return (performance.now() - t0) / 1000 / (parameters / 1e7);
}

registerBench(...idbRows(), stallRow(4, 128), {
  name: 'merge ties 2 models per 10M params',
  unit: 's',
  run: () => mergeSecondsPer10M(),
  peers: NO_PEERS,
  note: () => 'host JavaScript, one tensor at a time (tiny-sized models, density 0.5)',
});
