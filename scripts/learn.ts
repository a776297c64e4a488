// `npm run learn -- --family function-calling|service|coding|all [options]`: the pipeline (SFT on a
// fixed set of verified expert trajectories → GRPO → evaluations) in Node on Dawn's OpenGL ES adapter
// (llvmpipe, the fastest software adapter here), per seed, with the SFT-only arm that spends GRPO's
// compute on more SFT instead. Prints TEST success before SFT (with --eval-before), after SFT, after
// GRPO and SFT-only, with Wilson intervals and the cheap baselines; writes curves as JSONL (--out).
// The last stdout line is one JSON object: {"family", "split": "test", "n", "seed", "before_sft",
// "after_sft", "after_grpo", "sft_only_same_compute", "grpo_minus_sft_only", "baselines"} (rates in 0…1;
// the difference paired task by task, Newcombe 95 %; several seeds: means, with per-seed values and
// ranges besides, and "grpo_minus_sft_only_pooled" over all seeds' tasks). With --model DIR the model is a loaded Hugging Face Qwen3
// folder trained with LoRA (scripts/lib/learnRun.ts, src/pipeline/loadModel.ts).
// Run through the WGSL loader: tsx --import ./scripts/lib/wgslLoader.mjs scripts/learn.ts …
import { acquireDevice, describeContext } from '../src/gpu/device';
import { nodeGpu } from '../src/gpu/nodeGpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { learningConfig } from '../src/pipeline/presets';
import { LEARN_USAGE, parseLearnArgs } from './lib/learnArgs';
import { checkOutputPaths, runLearn } from './lib/learnRun';

const log = (line: string) => console.log(`[learn] ${line}`);

async function main(): Promise<number> {
  const args = parseLearnArgs(process.argv.slice(2));
  if (args.help) {
    console.log(LEARN_USAGE);
    return 0;
  }
  if (args.printConfig) {
    console.log(JSON.stringify(learningConfig(args.options), null, 2));
    return 0;
  }
  checkOutputPaths(args.out, args.save); // before the device starts
  const ctx = await acquireDevice({ gpu: nodeGpu('opengles'), featureLevel: 'compatibility' });
  const rt = new GpuRuntime(ctx);
  log(`adapter: ${describeContext(ctx)}`);
  await runLearn(rt, args, { log, print: (line) => console.log(line) });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
