// `npm run debug-state -- --model DIR --batch FILE --out FILE.safetensors [--adapter swiftshader|opengles]`
// Loads an HF-layout Qwen3 folder (config.json + model.safetensors), runs one forward/backward on
// the token batch (JSON {"input_ids": [[…]], "labels": [[…]]}, HF conventions) on WebGPU in Node,
// and writes `loss` (1), `logits` (B, T, V) and every parameter gradient under its HF name — for
// comparison with another framework (e.g. PyTorch), the way llm.c checks itself.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { acquireDevice } from '../src/gpu/device';
import { nodeGpu } from '../src/gpu/nodeGpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { planActivations, planBackwardScratch } from '../src/model/activations';
import { modelFromSafetensors } from '../src/model/checkpointIO';
import { type HfTokenBatch, hfBatchToMasked } from '../src/model/hfBatch';
import { writeSafetensors } from '../src/model/safetensors';
import { supervisedLoss, supervisedStep } from '../src/model/trainStep';
import { GpuWeights } from '../src/model/weights';

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
  const model = modelFromSafetensors(readOrExplain(join(dir, 'config.json'), 'config.json').toString('utf8'), readOrExplain(join(dir, 'model.safetensors'), 'model.safetensors'));
  for (const w of model.warnings) console.warn(`warning: ${w}`);
  let raw: HfTokenBatch;
  try {
    raw = JSON.parse(readOrExplain(batchFile, 'the batch file').toString('utf8')) as HfTokenBatch;
  } catch (e) {
    throw new Error(`batch file ${batchFile} is not valid JSON: ${(e as Error).message}`);
  }
  const { B, T, batch } = hfBatchToMasked(raw, model.cfg.vocabSize);
  const ctx = await acquireDevice({ gpu: nodeGpu(adapter), featureLevel: adapter === 'swiftshader' ? 'core' : 'compatibility' });
  const rt = new GpuRuntime(ctx);
  const w = new GpuWeights(rt, model.cfg, model.params);
  const acts = planActivations(rt, model.cfg, B, T);
  const scratch = planBackwardScratch(rt, model.cfg, B, T);
  await supervisedLoss(rt, w, acts, batch);
  const logits = await rt.readF32(acts.logits); // before the backward overwrites them with dlogits
  w.zeroGrads();
  const { loss } = await supervisedStep(rt, w, acts, scratch, batch);
  const grads = await w.downloadGrads();
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  tensors.set('loss', { shape: [1], data: Float32Array.of(loss) });
  tensors.set('logits', { shape: [B, T, model.cfg.vocabSize], data: logits });
  for (const p of w.table) tensors.set(p.name, { shape: p.shape, data: grads.get(p.name)! });
  writeFileSync(out, writeSafetensors(tensors, { format: 'pt', producer: 'tabforge debug-state', loss: String(loss) }));
  console.log(`loss ${loss}`);
  console.log(`wrote ${out}: loss, logits [${B}, ${T}, ${model.cfg.vocabSize}] and ${w.table.length} gradients`);
  ctx.device.destroy();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(`debug-state failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
