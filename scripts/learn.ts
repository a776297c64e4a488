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
import { toJsonlLine } from '../src/train/rl/rlMetrics';
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
    onSft: (m) => write({ stage: 'sft', ...m }),
    onRlStep: (r) => write(toJsonlLine(r).replace(/^\{/, '{"stage":"grpo",')),
    onCurve: (step, r) => write({ stage: 'heldout', step, success: r.successRate, reward: r.meanReward, components: r.components }),
  });
  if (args.save) {
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
