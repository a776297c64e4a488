// `npm run debug-state -- --model DIR --batch FILE --out FILE.safetensors [--adapter swiftshader|opengles]`
// Loads an HF-layout Qwen3 folder (config.json + model.safetensors, or shards with their index), runs one forward/backward on
// the token batch (JSON {"input_ids": [[…]], "labels": [[…]]}, HF conventions) on WebGPU in Node,
// and writes `loss` (1), `logits` (B, T, V) and every parameter gradient under its HF name — for
// comparison with another framework (e.g. PyTorch), the way llm.c checks itself.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { acquireDevice } from '../src/gpu/device';
import { nodeGpu } from '../src/gpu/nodeGpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { planActivations, planBackwardScratch } from '../src/model/activations';
import { modelForward, writeBatch } from '../src/model/forward';
import { type HfTokenBatch, hfBatchToMasked } from '../src/model/hfBatch';
import { inspectHfFolder, loadHfWeights } from '../src/model/hfFolder';
import { folderSource } from '../src/model/hfFolderNode';
import { readLogits } from '../src/model/lmHead';
import { safetensorsParts } from '../src/model/safetensors';
import { supervisedStep } from '../src/model/trainStep';

function arg(name: string, required = true): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (required && (v === undefined || v.startsWith('--'))) {
    console.error(`missing --${name}\nusage: npm run debug-state -- --model DIR --batch FILE --out FILE.safetensors [--adapter swiftshader|opengles]`);
    process.exit(2);
  }
  return v;
}

function readOrExplain(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new Error(`cannot read ${what} at ${path}: ${(e as Error).message}`);
  }
}

async function main(): Promise<void> {
  const dir = arg('model')!;
  const batchFile = arg('batch')!;
  const out = arg('out')!;
  const adapter = (arg('adapter', false) ?? 'swiftshader') as 'swiftshader' | 'opengles';
  // config.json + model.safetensors or shards with their index, streamed; vocabulary tensors in row
  // parts sized to this adapter's bindings (the 0.6B embedding needs 5 on llvmpipe)
  const src = await folderSource(dir);
  const folder = await inspectHfFolder(src);
  const cfg = folder.cfg;
  for (const w of folder.warnings) console.warn(`warning: ${w}`);
  let raw: HfTokenBatch;
  try {
    raw = JSON.parse(readOrExplain(batchFile, 'the batch file').toString('utf8')) as HfTokenBatch;
  } catch (e) {
    throw new Error(`batch file ${batchFile} is not valid JSON: ${(e as Error).message}`);
  }
  const { B, T, batch } = hfBatchToMasked(raw, cfg.vocabSize);
  const ctx = await acquireDevice({ gpu: nodeGpu(adapter), featureLevel: adapter === 'swiftshader' ? 'core' : 'compatibility' });
  const rt = new GpuRuntime(ctx);
  const w = await loadHfWeights(rt, src, folder);
  const acts = planActivations(rt, cfg, B, T, undefined, { recompute: false });
  const scratch = planBackwardScratch(rt, cfg, B, T);
  writeBatch(rt, w, acts, batch);
  modelForward(rt, w, acts);
  const logits = await readLogits(rt, w, acts); // before the backward overwrites them with dlogits
  w.zeroGrads();
  const { loss } = await supervisedStep(rt, w, acts, scratch, batch);
  const grads = await w.downloadGrads();
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  tensors.set('loss', { shape: [1], data: Float32Array.of(loss) });
  tensors.set('logits', { shape: [B, T, cfg.vocabSize], data: logits });
  for (const p of w.table) tensors.set(p.name, { shape: p.shape, data: grads.get(p.name)! });
  // part by part: a 0.6B-width model's gradients are ~1 GB, never concatenated in memory
  const fd = openSync(out, 'w');
  try {
    for (const part of safetensorsParts(tensors, { format: 'pt', producer: 'tabforge debug-state', loss: String(loss) })) writeSync(fd, part);
  } finally {
    closeSync(fd);
  }
  console.log(`loss ${loss}`);
  console.log(`wrote ${out}: loss, logits [${B}, ${T}, ${cfg.vocabSize}] and ${w.table.length} gradients`);
  ctx.device.destroy();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(`debug-state failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
