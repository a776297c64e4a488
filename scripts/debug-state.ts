// `npm run debug-state -- --model DIR --batch FILE --out FILE.safetensors [--adapter swiftshader|opengles]`
// Loads an HF-layout Qwen3 folder (config.json + model.safetensors, or shards with their index;
// streamed, the vocabulary in row parts sized to the adapter's bindings), runs one forward/backward
// on the token batch (JSON {"input_ids": [[…]], "labels": [[…]]}, HF conventions) on WebGPU in
// Node, and writes `loss` (1), `logits` (B, T, V) and every parameter gradient under its HF name —
// for comparison with another framework (e.g. PyTorch), the way llm.c checks itself.
import { join } from 'node:path';
import { acquireDevice } from '../src/gpu/device';
import { nodeGpu } from '../src/gpu/nodeGpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { planActivations, planBackwardScratch } from '../src/model/activations';
import { modelForward, writeBatch } from '../src/model/forward';
import { hfBatchToMasked } from '../src/model/hfBatch';
import { inspectHfFolder, loadHfWeights } from '../src/model/hfFolder';
import { folderSource } from '../src/model/hfFolderNode';
import { readLogits } from '../src/model/lmHead';
import { safetensorsParts } from '../src/model/safetensors';
import { supervisedStep } from '../src/model/trainStep';
import { checkFiniteCounts, checkFiniteLoss, checkOutPath, checkScoredPositions, DebugStateError, inputPaths, parseDebugStateArgs, readBatch, writeAtomically } from './lib/debugStateIO';

async function main(): Promise<void> {
  const args = parseDebugStateArgs(process.argv.slice(2));
  checkOutPath(args); // before any computation: never write over an input, the folder must exist
  const { adapter, out } = args;
  const files = inputPaths(args);
  let src: Awaited<ReturnType<typeof folderSource>>;
  try {
    src = await folderSource(args.model);
  } catch (e) {
    throw new DebugStateError(`cannot read the model folder at ${args.model}: ${(e as Error).message}`);
  }
  const folder = await inspectHfFolder(src); // config.json and every shard's header, checked against each other
  // a sharded model's files are inputs too
  checkOutPath({ ...args, model: args.model }, folder.files.map((f) => join(args.model, f)));
  for (const w of folder.warnings) console.warn(`warning: ${w}`);
  const cfg = folder.cfg;
  const { B, T, batch } = hfBatchToMasked(readBatch(files.batch), cfg.vocabSize);
  checkScoredPositions(batch);
  const ctx = await acquireDevice({ gpu: nodeGpu(adapter), featureLevel: adapter === 'swiftshader' ? 'core' : 'compatibility' });
  const rt = new GpuRuntime(ctx);
  const nonFinite = new Map<string, { bad: number; total: number }>();
  const w = await loadHfWeights(rt, src, folder, {}, undefined, (name, values) => {
    let bad = 0;
    for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) bad++;
    const c = nonFinite.get(name) ?? { bad: 0, total: 0 };
    nonFinite.set(name, { bad: c.bad + bad, total: c.total + values.length });
  });
  checkFiniteCounts(nonFinite);
  const acts = planActivations(rt, cfg, B, T, undefined, { recompute: false });
  const scratch = planBackwardScratch(rt, cfg, B, T);
  writeBatch(rt, w, acts, batch);
  modelForward(rt, w, acts);
  const logits = await readLogits(rt, w, acts); // before the backward overwrites them with dlogits
  w.zeroGrads();
  const { loss } = await supervisedStep(rt, w, acts, scratch, batch);
  checkFiniteLoss(loss);
  const grads = await w.downloadGrads();
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  tensors.set('loss', { shape: [1], data: Float32Array.of(loss) });
  tensors.set('logits', { shape: [B, T, cfg.vocabSize], data: logits });
  for (const p of w.table) tensors.set(p.name, { shape: p.shape, data: grads.get(p.name)! });
  // part by part: a 0.6B-width model's gradients are ~1 GB, never concatenated in memory
  writeAtomically(out, safetensorsParts(tensors, { format: 'pt', producer: 'tabforge debug-state', loss: String(loss) }));
  console.log(`loss ${loss}`);
  console.log(`wrote ${out}: loss, logits [${B}, ${T}, ${cfg.vocabSize}] and ${w.table.length} gradients`);
  ctx.device.destroy();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(`debug-state failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(e instanceof DebugStateError ? e.exitCode : 1);
  },
);
