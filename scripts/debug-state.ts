// `npm run debug-state -- --model DIR --batch FILE --out FILE.safetensors [--adapter swiftshader|opengles]`
// Loads an HF-layout Qwen3 folder (config.json + model.safetensors), runs one forward/backward on
// the token batch (JSON {"input_ids": [[…]], "labels": [[…]]}, HF conventions) on WebGPU in Node,
// and writes `loss` (1), `logits` (B, T, V) and every parameter gradient under its HF name — for
// comparison with another framework (e.g. PyTorch), the way llm.c checks itself.
import { acquireDevice } from '../src/gpu/device';
import { nodeGpu } from '../src/gpu/nodeGpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { planActivations, planBackwardScratch } from '../src/model/activations';
import { modelFromSafetensors } from '../src/model/checkpointIO';
import { hfBatchToMasked } from '../src/model/hfBatch';
import { writeSafetensors } from '../src/model/safetensors';
import { supervisedLoss, supervisedStep } from '../src/model/trainStep';
import { GpuWeights } from '../src/model/weights';
import { checkFiniteLoss, checkFiniteWeights, checkOutPath, checkScoredPositions, DebugStateError, inputPaths, parseDebugStateArgs, readBatch, readInput, writeAtomically } from './lib/debugStateIO';

async function main(): Promise<void> {
  const args = parseDebugStateArgs(process.argv.slice(2));
  checkOutPath(args); // before any computation: never write over an input, the folder must exist
  const { adapter, out } = args;
  const files = inputPaths(args);
  const model = modelFromSafetensors(readInput(files.config, 'config.json').toString('utf8'), readInput(files.weights, 'model.safetensors'));
  for (const w of model.warnings) console.warn(`warning: ${w}`);
  checkFiniteWeights(model);
  const { B, T, batch } = hfBatchToMasked(readBatch(files.batch), model.cfg.vocabSize);
  checkScoredPositions(batch);
  const ctx = await acquireDevice({ gpu: nodeGpu(adapter), featureLevel: adapter === 'swiftshader' ? 'core' : 'compatibility' });
  const rt = new GpuRuntime(ctx);
  const w = new GpuWeights(rt, model.cfg, model.params);
  const acts = planActivations(rt, model.cfg, B, T);
  const scratch = planBackwardScratch(rt, model.cfg, B, T);
  await supervisedLoss(rt, w, acts, batch);
  const logits = await rt.readF32(acts.logits); // before the backward overwrites them with dlogits
  w.zeroGrads();
  const { loss } = await supervisedStep(rt, w, acts, scratch, batch);
  checkFiniteLoss(loss);
  const grads = await w.downloadGrads();
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  tensors.set('loss', { shape: [1], data: Float32Array.of(loss) });
  tensors.set('logits', { shape: [B, T, model.cfg.vocabSize], data: logits });
  for (const p of w.table) tensors.set(p.name, { shape: p.shape, data: grads.get(p.name)! });
  writeAtomically(out, writeSafetensors(tensors, { format: 'pt', producer: 'tabforge debug-state', loss: String(loss) }));
  console.log(`loss ${loss}`);
  console.log(`wrote ${out}: loss, logits [${B}, ${T}, ${model.cfg.vocabSize}] and ${w.table.length} gradients`);
  ctx.device.destroy();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(`debug-state failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(e instanceof DebugStateError ? e.exitCode : 1);
  },
);
