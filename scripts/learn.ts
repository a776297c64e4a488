// `npm run learn -- --family function-calling [--preset nano|tiny] [--steps N] [--out metrics.jsonl]`:
// format-only SFT → GRPO on the routing task set, in Node on Dawn's OpenGL ES adapter (llvmpipe,
// compatibility level: the fastest software adapter here), printing held-out greedy success before
// SFT, after SFT and after GRPO, and writing SFT/GRPO step metrics (reward-component curves) as JSONL.
// Run through the WGSL loader: tsx --import ./scripts/lib/wgslLoader.mjs scripts/learn.ts …
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { acquireDevice, describeContext } from '../src/gpu/device';
import { nodeGpu } from '../src/gpu/nodeGpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { PRESETS } from '../src/model/config';
import { readSafetensors, writeSafetensors } from '../src/model/safetensors';
import type { RlStepRecord } from '../src/train/rl/rlMetrics';
import { toJsonlLine } from '../src/train/rl/rlMetrics';
import type { SftMetrics } from '../src/train/sft/sft';
import { loadLatestCheckpoint } from '../src/storage/checkpoint';
import { DiskBackend } from '../src/storage/diskBackend';
import { tokenizerIdentity } from '../src/storage/format';
import { type ResumePoint, type RunDescription, resumeFrom, rlAutosave, sftAutosave } from '../src/storage/resume';
import { tokenizerForModel } from '../src/tokenizer';
import { routingRecipe, runRoutingLearning } from '../src/pipeline/routingRecipe';
import { LEARN_USAGE, parseLearnArgs } from './lib/learnArgs';

const log = (line: string) => console.log(`[learn] ${line}`);

async function main(): Promise<number> {
  const args = parseLearnArgs(process.argv.slice(2));
  if (args.help) {
    console.log(LEARN_USAGE);
    return 0;
  }
  const ctx = await acquireDevice({ gpu: nodeGpu('opengles'), featureLevel: 'compatibility' });
  const rt = new GpuRuntime(ctx);
  log(`adapter: ${describeContext(ctx)}`);
  const recipe = routingRecipe(PRESETS[args.preset], {
    seed: args.seed, sftSteps: args.loadSft ? 0 : args.sftSteps, rlSteps: args.steps, tasksPerStep: args.tasksPerStep, groupSize: args.group, lr: args.lr, klCoef: args.kl, componentCredit: !args.noComponentCredit, evalN: args.evalN,
  });
  recipe.eval.before = !args.skipBefore && !args.loadSft;
  recipe.eval.every = args.evalEvery;
  if (args.minLrRatio !== undefined) recipe.rl.minLrRatio = args.minLrRatio;
  recipe.asyncStaleness = args.asyncK;
  let initial: Map<string, Float32Array> | undefined;
  // checkpoints: --save DIR (a FILE.safetensors keeps meaning "final weights") and --resume DIR
  const saveDir = args.save && !args.save.endsWith('.safetensors') ? args.save : undefined;
  const metrics: { sft: SftMetrics[]; rl: RlStepRecord[] } = { sft: [], rl: [] };
  const model = PRESETS[args.preset];
  const tokenizer = await tokenizerIdentity(await tokenizerForModel(model));
  let point: ResumePoint | undefined;
  if (args.resume) {
    const latest = await loadLatestCheckpoint(new DiskBackend(args.resume), { preset: args.preset, tokenizer, model });
    for (const u of latest.unfinished) log(`removed unfinished checkpoint ${u.id} (${u.chunks} chunks; its save was interrupted)`);
    for (const s of latest.skipped) log(`skipped checkpoint ${s.id}: ${s.reason}`);
    if (!latest.reader) throw new Error(`--resume ${args.resume}: no complete checkpoint for preset ${args.preset} there`);
    point = await resumeFrom(rt, latest.reader);
    initial = point.initial;
    const saved = point.metrics as typeof metrics | undefined;
    if (saved?.sft) metrics.sft.push(...saved.sft);
    if (saved?.rl) metrics.rl.push(...saved.rl);
    recipe.eval.before = false;
    log(`resuming from checkpoint ${latest.reader.id}: ${point.stage === 'sft' ? 'SFT' : 'GRPO'} after step ${point.step}${point.stage === 'rl' ? ' (SFT skipped; the "after SFT" figure below is the resumed model\'s)' : ''}`);
  }
  const run: RunDescription = { preset: args.preset, model, tokenizer, seed: args.seed, pipelineConfig: { recipe, args }, metrics: () => metrics };
  const autosave = (totalSteps: number) => ({
    store: new DiskBackend(saveDir!), run, every: args.saveEvery, totalSteps, keepLast: args.keep,
    onSaved: (i: { id: string; bytes: number; captureSeconds: number; writeSeconds: number }) => log(`checkpoint ${i.id}: ${(i.bytes / 1e6).toFixed(1)} MB (capture ${i.captureSeconds.toFixed(2)} s, write ${i.writeSeconds.toFixed(2)} s)`),
  });
  if (args.loadSft) {
    initial = new Map([...readSafetensors(readFileSync(args.loadSft))].map(([k, t]) => [k, t.data as Float32Array]));
    log(`loaded SFT weights from ${args.loadSft}`);
  }
  if (args.out) writeFileSync(args.out, '');
  const write = (obj: unknown) => args.out && appendFileSync(args.out, `${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n`);
  const t0 = performance.now();
  const result = await runRoutingLearning(rt, recipe, {
    log,
    initial,
    resumeInRl: point?.stage === 'rl',
    sftResume: { ...point?.sft, ...(saveDir ? sftAutosave(autosave(recipe.sft.steps)) : {}) },
    rlResume: { ...point?.rl, ...(saveDir ? rlAutosave(autosave(recipe.rl.steps)) : {}) },
    onSft: (m) => { metrics.sft.push(m); write({ stage: 'sft', ...m }); },
    onRlStep: (r) => { metrics.rl.push(r); write(toJsonlLine(r).replace(/^\{/, '{"stage":"grpo",')); },
    onCurve: (step, r) => write({ stage: 'validation', step, success: r.successRate, reward: r.meanReward, components: r.components }),
  });
  if (args.save && !saveDir) {
    const params = await result.weights.download();
    writeFileSync(args.save, writeSafetensors(new Map([...params].map(([k, v]) => [k, { dtype: 'F32' as const, shape: result.weights.table.find((p) => p.name === k)!.shape, data: v }]))));
    log(`saved weights to ${args.save}`);
  }
  const pct = (x: number | undefined) => (x === undefined ? 'n/a' : `${(100 * x).toFixed(1)} %`);
  log(`held-out success: before SFT ${pct(result.before?.successRate)}, after SFT ${pct(result.afterSft.successRate)}, after GRPO ${pct(result.afterRl.successRate)}`);
  log(`time: SFT ${result.seconds.sft.toFixed(0)} s, GRPO ${result.seconds.rl.toFixed(0)} s, eval ${result.seconds.eval.toFixed(0)} s, total ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  result.weights.destroy();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
