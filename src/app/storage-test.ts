// Test page for checkpoints in real IndexedDB and for the ONNX export on onnxruntime-web's WebGPU EP
// (e2e/storage.spec.ts). Everything is on window.storageTest for Playwright; results are logged below.
import { acquireDevice } from '../gpu/device';
import { GpuRuntime } from '../gpu/runtime';
import { planActivations, releaseActivations } from '../model/activations';
import { PRESETS } from '../model/config';
import { modelForward, writeBatch } from '../model/forward';
import { GpuWeights, initialWeights } from '../model/weights';
import type { CheckpointBackend } from '../storage/backend';
import { requestPersistentStorage, storageStatus } from '../storage/browserStorage';
import { type CheckpointContents, listCheckpoints, loadLatestCheckpoint, openCheckpoint, saveCheckpoint } from '../storage/checkpoint';
import { decoderOnnx } from '../storage/export/onnx/decoderOnnx';
import { exportFiles, exportZip } from '../storage/export/exportModel';
import { filesFromZip, importHfModel } from '../storage/export/importModel';
import { CheckpointError, tokenizerIdentity } from '../storage/format';
import { IdbBackend } from '../storage/idbBackend';
import { ByteTokenizer } from '../tokenizer';
import { Rng } from '../util/rng';

const log = (line: string) => {
  const li = document.createElement('li');
  li.textContent = line;
  document.getElementById('log')!.append(li);
};
const errorOf = (e: unknown) => ({ kind: e instanceof CheckpointError ? e.kind : 'error', message: (e as Error).message });

/** A checkpoint of about `megabytes` MB: model weights and Adam moments of random values. */
async function contents(step: number, megabytes: number): Promise<CheckpointContents> {
  const rng = new Rng(step);
  const n = Math.round((megabytes * 1e6) / 4 / 3);
  const w = Float32Array.from({ length: n }, () => rng.normal());
  return {
    preset: 'nano', model: PRESETS.nano, tokenizer: await tokenizerIdentity(new ByteTokenizer()), lora: null, pipelineConfig: { test: true },
    policyVersion: step, training: { stage: 'sft', step, seed: 1, optimizerStep: step, rng: { rows: rng.saveState() }, cursors: {} },
    metrics: [{ step, loss: 1 / step }],
    tensors: ['model', 'adam.m', 'adam.v'].map((group) => ({ group, name: 'model.embed_tokens.weight', shape: [n], data: w })),
  };
}

/** The store, optionally slowed down per chunk (so a test can close the page in the middle of a save). */
function slowed(store: CheckpointBackend, delayMs: number, onChunk: () => void): CheckpointBackend {
  return Object.assign(Object.create(Object.getPrototypeOf(store)), store, {
    putChunk: async (id: string, seq: number, b: Uint8Array) => {
      await new Promise((r) => setTimeout(r, delayMs));
      await store.putChunk(id, seq, b);
      onChunk();
    },
  });
}

let store: IdbBackend;

const storageTest = {
  ready: false,
  chunksWritten: 0,
  async save(id: string, step: number, megabytes: number, opts: { chunkKiB?: number; delayMs?: number } = {}) {
    const target = opts.delayMs ? slowed(store, opts.delayMs, () => storageTest.chunksWritten++) : store;
    const t0 = performance.now();
    try {
      const m = await saveCheckpoint(target, await contents(step, megabytes), { id, chunkBytes: (opts.chunkKiB ?? 1024) * 1024 });
      const seconds = (performance.now() - t0) / 1000;
      log(`saved ${id}: ${(m.totalBytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(2)} s`);
      return { ok: true as const, bytes: m.totalBytes, seconds };
    } catch (e) {
      log(`save ${id} failed: ${(e as Error).message}`);
      return { ok: false as const, ...errorOf(e) };
    }
  },
  /** Starts a save without waiting (the test closes the page while it runs). */
  startSave(id: string, step: number, megabytes: number, chunkKiB: number, delayMs: number): void {
    storageTest.chunksWritten = 0;
    void storageTest.save(id, step, megabytes, { chunkKiB, delayMs });
  },
  async listing() {
    const l = await listCheckpoints(store);
    return { complete: l.complete.map((m) => m.id), unfinished: l.unfinished.map((u) => ({ id: u.id, chunks: u.chunks })) };
  },
  /** What a page reload does: the newest complete checkpoint, unfinished saves reported and cleaned. */
  async loadLatest() {
    const t0 = performance.now();
    const latest = await loadLatestCheckpoint(store, { preset: 'nano', tokenizer: await tokenizerIdentity(new ByteTokenizer()) });
    let verified: true | { kind: string; message: string } = true;
    try {
      await latest.reader?.verify();
    } catch (e) {
      verified = errorOf(e);
    }
    const seconds = (performance.now() - t0) / 1000;
    return { id: latest.reader?.id ?? null, step: latest.reader?.manifest.training.step ?? null, bytes: latest.reader?.manifest.totalBytes ?? 0, seconds, unfinished: latest.unfinished.map((u) => u.id), verified };
  },
  async load(id: string, group: string, name: string) {
    try {
      const r = await openCheckpoint(store, id);
      const t = await r.f32(group, name);
      return { ok: true as const, length: t.length };
    } catch (e) {
      return { ok: false as const, ...errorOf(e) };
    }
  },
  /** Flips one bit of a stored chunk, behind the checkpoint code's back (raw IndexedDB). */
  async flipByte(id: string, group: string, name: string, chunk: number, byte: number) {
    const r = await openCheckpoint(store, id);
    const seq = r.tensors(group).find((t) => t.name === name)!.chunks[chunk].seq;
    const bytes = await store.getChunk(id, seq);
    bytes[byte] ^= 0x04;
    const db = await new Promise<IDBDatabase>((res, rej) => { const q = indexedDB.open(store.name); q.onsuccess = () => res(q.result); q.onerror = () => rej(q.error); });
    await new Promise<void>((res, rej) => {
      const tx = db.transaction('chunks', 'readwrite');
      tx.objectStore('chunks').put(bytes, [id, seq]);
      tx.oncomplete = () => res();
      tx.onerror = () => rej(tx.error);
    });
    db.close();
  },
  async remove(id: string) {
    await store.remove(id);
  },
  status: () => storageStatus(),
  persist: () => requestPersistentStorage(),
  /** The export zip the page downloads, imported back: same weights. */
  async zipRoundTrip() {
    const cfg = PRESETS.nano;
    const params = initialWeights(cfg, 5);
    const zip = await exportZip(exportFiles({ cfg, params, ids: new ByteTokenizer() }, 'hf'), 'nano');
    const back = await importHfModel(await filesFromZip(new Uint8Array(await zip.arrayBuffer())));
    let same = true;
    for (const [k, v] of params) same &&= back.params.get(k)!.every((x, i) => x === v[i]);
    return { zipBytes: zip.size, same };
  },
  /** Exported ONNX decoder on onnxruntime-web's WebGPU EP vs our forward on our own device: max relative error. */
  async onnxWebgpu(preset: 'nano' | 'tiny', featureLevel: 'core' | 'compatibility') {
    const ort = await import('onnxruntime-web/webgpu');
    const wasm = (await import('onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url')).default;
    ort.env.wasm.wasmPaths = { wasm };
    ort.env.wasm.numThreads = 1;
    ort.env.logLevel = 'error';
    const cfg = PRESETS[preset];
    const params = initialWeights(cfg, 7);
    const rng = new Rng(8);
    for (const [name, v] of params) if (name.endsWith('norm.weight')) v.forEach((_, i) => (v[i] = 1 + rng.uniform(-0.5, 0.5)));
    const B = 1;
    const T = 9;
    const ids = Int32Array.from({ length: B * T }, () => rng.int(0, cfg.vocabSize - 1));

    const rt = new GpuRuntime(await acquireDevice({ featureLevel }));
    const w = new GpuWeights(rt, cfg, params);
    const acts = planActivations(rt, cfg, B, T);
    writeBatch(rt, w, acts, { inputIds: ids });
    modelForward(rt, w, acts);
    const ours = await rt.readF32(acts.logits);
    releaseActivations(rt, acts);
    w.destroy();

    const adapter = await navigator.gpu.requestAdapter({ featureLevel } as GPURequestAdapterOptions);
    if (!adapter) throw new Error(`no adapter at feature level ${featureLevel}`);
    ort.env.webgpu.adapter = adapter;
    // ORT's kernels assume the adapter's maximum limits (workgroup sizes, bindings), as the bench's peers do
    const names = ['maxComputeWorkgroupStorageSize', 'maxComputeWorkgroupsPerDimension', 'maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupSizeX',
      'maxComputeWorkgroupSizeY', 'maxComputeWorkgroupSizeZ', 'maxComputeInvocationsPerWorkgroup', 'maxStorageBuffersPerShaderStage'] as const;
    const requiredLimits: Record<string, number> = {};
    for (const n of names) requiredLimits[n] = adapter.limits[n];
    const device = await adapter.requestDevice({ requiredLimits });
    const session = await ort.InferenceSession.create(decoderOnnx(cfg, params), { executionProviders: [{ name: 'webgpu', device } as never] });
    const out = await session.run({ input_ids: new ort.Tensor('int64', BigInt64Array.from(Array.from(ids, BigInt)), [B, T]) });
    const theirs = out.logits.data as Float32Array;
    await session.release();
    let num = 0;
    let den = 0;
    for (let i = 0; i < ours.length; i++) {
      num = Math.max(num, Math.abs(ours[i] - theirs[i]));
      den = Math.max(den, Math.abs(ours[i]));
    }
    log(`onnx ${preset} on ORT WebGPU: max relative error ${(num / den).toExponential(2)}`);
    return { relErr: num / den, n: ours.length, dims: out.logits.dims };
  },
};

declare global {
  interface Window {
    storageTest: typeof storageTest;
  }
}
window.storageTest = storageTest;

IdbBackend.open('tabforge-e2e-checkpoints').then((s) => {
  store = s;
  storageTest.ready = true;
  document.getElementById('status')!.textContent = 'ready';
}, (e) => {
  document.getElementById('status')!.textContent = `IndexedDB unavailable: ${(e as Error).message}`;
});
