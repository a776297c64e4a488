// The real Qwen3-0.6B shape (hidden 1 024, MLP 3 072, 16 query / 8 KV heads of 128, the 151 936-row
// tied vocabulary) with 2 layers of seeded random weights, written as a sharded BF16 HF folder by our
// own writer, streamed into an f16 base (on llvmpipe the 297 MiB embedding becomes 3 row parts of
// ≤ 128 MiB), LoRA on every projection: loss, logits and every adapter gradient against the float64
// reference model on the same (f16-rounded) weights, rel err ≤ 1e-3, on both adapters. llvmpipe also
// runs it with the logits in chunks of 2 rows and activation recompute.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import { type ReferenceLora, referenceLoraLoss } from '../reference/lora';
import { relativeError } from '../reference/ops/finiteDiff';
import { Rng } from '../util/rng';
import { planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from './activations';
import { PRESETS } from './config';
import { modelForward, writeBatch } from './forward';
import { roundArrayToBF16, roundArrayToF16 } from './halfFloat';
import { inspectHfFolder, loadHfWeights } from './hfFolder';
import { folderSource, writeFolder } from './hfFolderNode';
import { hfFolderFiles, seededRows } from './hfFolderWriter';
import { readLogits } from './lmHead';
import { attachLora, type LoraConfig, LoraAdapters, loraParameterTable } from './lora';
import { LORA_TARGETS, parameterTable } from './parameters';
import { supervisedStep } from './trainStep';

const TOL = 1e-3;
const CFG = { ...PRESETS['qwen3-0.6b'], numLayers: 2 };
const SEED = 2026;
const LORA: LoraConfig = { rank: 4, alpha: 8, targets: LORA_TARGETS };
const [B, T] = [1, 6];

let dir: string;
let reference: ReturnType<typeof referenceLoraLoss>;
const rng = new Rng(77);
const inputIds = Int32Array.from({ length: B * T }, () => rng.int(0, CFG.vocabSize - 1));
const targets = Int32Array.from({ length: B * T }, () => rng.int(0, CFG.vocabSize - 1));
const mask = Float32Array.from({ length: B * T }, (_, i) => (i === 0 ? 0 : 1));
// adapters with B ≠ 0, so every dA is far from zero
const adapterValues = new Map(loraParameterTable(CFG, LORA).map((p) => [p.name, Float32Array.from({ length: p.shape[0] * p.shape[1] }, () => rng.normal(0, p.which === 'A' ? 0.03 : 0.02))]));

beforeAll(() => {
  const t0 = performance.now();
  dir = mkdtempSync(join(tmpdir(), 'tabforge-qwen-shape-'));
  const files = hfFolderFiles(CFG, seededRows(CFG, SEED), { dtype: 'BF16', maxShardBytes: 256 * 2 ** 20 });
  writeFolder(dir, files);
  console.log(`BF16 folder written: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // the float64 reference on the weights as the GPU holds them: BF16 in the file, then f16 for the 2-D ones
  const fill = seededRows(CFG, SEED);
  const params = new Map<string, Float64Array>();
  for (const p of parameterTable(CFG)) {
    const v = new Float32Array(p.shape.reduce((a, b) => a * b, 1));
    fill(p, 0, p.shape.length === 2 ? p.shape[0] : 1, v);
    const stored = p.shape.length === 2 ? roundArrayToF16(roundArrayToBF16(v)) : roundArrayToBF16(v);
    params.set(p.name, new Float64Array(stored)); // (not Float64Array.from(v, f): that builds a 155 M-element JS array)
  }
  const lora: ReferenceLora = { rank: LORA.rank, scale: LORA.alpha / LORA.rank, adapters: new Map() };
  for (const p of loraParameterTable(CFG, LORA)) {
    const a = lora.adapters.get(p.base) ?? { A: new Float64Array(), B: new Float64Array() };
    a[p.which] = Float64Array.from(adapterValues.get(p.name)!);
    lora.adapters.set(p.base, a);
  }
  const t1 = performance.now();
  reference = referenceLoraLoss(CFG, params, lora, inputIds, targets, Float64Array.from(mask), B, T);
  console.log(`float64 reference: ${((performance.now() - t1) / 1000).toFixed(1)} s`);
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(TEST_ADAPTERS)('Qwen3-0.6B shape, 2 layers, BF16 folder → f16 base + LoRA on %s', (adapter) => {
  it(`loss, logits and every LoRA gradient = float64 reference, rel err ≤ ${TOL}`, async () => {
    const rt = await testRuntime(adapter);
    const t0 = performance.now();
    const src = await folderSource(dir);
    const folder = await inspectHfFolder(src);
    expect(folder.files).toEqual(['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
    const w = await loadHfWeights(rt, src, folder, { f16Base: true });
    await rt.sync();
    console.log(`${adapter}: streamed 374 MB of BF16 into the f16 base in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const parts = w.parts('model.embed_tokens.weight').length;
    expect(parts).toBe(adapter === 'opengles' ? 3 : 1); // 128 MiB vs 1 GiB storage bindings
    const adapters = new LoraAdapters(rt, CFG, LORA, adapterValues);
    attachLora(rt, w, adapters);
    const layouts = adapter === 'opengles' ? [{ recompute: false }, { recompute: true, logitsBudgetBytes: 2 * CFG.vocabSize * 4 }] : [{ recompute: false }];
    for (const opts of layouts) {
      const t1 = performance.now();
      const acts = planActivations(rt, CFG, B, T, LORA, opts);
      const scratch = planBackwardScratch(rt, CFG, B, T, LORA);
      const batch = { inputIds, targets, mask };
      writeBatch(rt, w, acts, batch);
      modelForward(rt, w, acts);
      const logits = await readLogits(rt, w, acts);
      w.zeroGrads();
      const { loss } = await supervisedStep(rt, w, acts, scratch, batch);
      const grads = await w.downloadGrads();
      const what = `${adapter} ${JSON.stringify(opts)}`;
      console.log(`${what}: forward + backward ${((performance.now() - t1) / 1000).toFixed(1)} s; loss ${loss} (reference ${reference.loss}), logits rel err ${relativeError(logits, reference.logits).toExponential(2)}`);
      expect(Math.abs(loss - reference.loss) / reference.loss, `${what} loss`).toBeLessThanOrEqual(TOL);
      expect(relativeError(logits, reference.logits), `${what} logits`).toBeLessThanOrEqual(TOL);
      for (const p of adapters.table) {
        const r = reference.grads.get(p.base)!;
        expect(relativeError(grads.get(p.name)!, p.which === 'A' ? r.dA : r.dB), `${what} ${p.name}`).toBeLessThanOrEqual(TOL);
      }
      releaseActivations(rt, acts);
      releaseBackwardScratch(rt, scratch);
    }
    adapters.destroy();
    w.destroy();
    rt.pool.trim();
  });
});
