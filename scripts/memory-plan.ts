// `npm run memory-plan -- [--preset qwen3-0.6b] [--model DIR] [--seq T] [--batch B] [--lora-rank R | --full]
//   [--base f16|f32] [--grpo] [--rollout-rows N] [--limits compat|core|none] [--budget-gib G]`
// Prints the GPU memory plan of a training run (src/model/memoryPlan.ts: weights, adapters,
// gradients, optimizer, activations, GRPO reference, KV cache) and what does not fit the adapter's
// limits or a budget — before anything is allocated. --model reads a folder's config.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRESETS, type PresetName } from '../src/model/config';
import { readHfConfig } from '../src/model/hfConfig';
import { checkMemoryPlan, formatMemoryPlan, planMemory } from '../src/model/memoryPlan';
import { LORA_TARGETS } from '../src/model/parameters';
import { integerFlag, oneOfFlag, withUsage } from '../src/util/flagValues';

const USAGE = 'usage: npm run memory-plan -- [--preset NAME | --model DIR] [--seq T] [--batch B] [--lora-rank R | --full] [--base f16|f32] [--grpo] [--rollout-rows N] [--limits compat|core|none] [--budget-gib G]';
const LIMITS = {
  compat: { maxStorageBufferBindingSize: 128 * 2 ** 20, maxBufferSize: 2 ** 31 }, // llvmpipe, compatibility adapters
  core: { maxStorageBufferBindingSize: 2 ** 30, maxBufferSize: 2 ** 30 }, // SwiftShader
} as const;

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`--${name} needs a value\n${USAGE}`);
  return v;
}

function int(name: string, fallback: number): number {
  const v = flag(name);
  if (v === undefined) return fallback;
  return withUsage(USAGE, () => integerFlag(name, v, { min: 1 }));
}

function main(): void {
  const dir = flag('model');
  const presetText = flag('preset') ?? 'qwen3-0.6b';
  const preset = dir ? presetText : withUsage(USAGE, () => oneOfFlag('preset', presetText, Object.keys(PRESETS) as PresetName[]));
  const cfg = dir ? readHfConfig(readFileSync(join(dir, 'config.json'), 'utf8')).cfg : PRESETS[preset as PresetName];
  const full = process.argv.includes('--full');
  const grpo = process.argv.includes('--grpo');
  const seqLen = int('seq', 2048);
  const rows = int('rollout-rows', grpo ? 4 : 1);
  const base = (flag('base') ?? 'f16') as 'f16' | 'f32';
  const limitsName = withUsage(USAGE, () => oneOfFlag('limits', flag('limits') ?? 'compat', ['compat', 'core', 'none'] as const));
  const limits = limitsName === 'none' ? undefined : LIMITS[limitsName];
  const plan = planMemory(cfg, {
    batch: int('batch', 1), seqLen, lora: full ? undefined : { rank: int('lora-rank', 8), targets: LORA_TARGETS }, baseDtype: base,
    klReference: grpo, grpo, decode: grpo ? { rows, length: seqLen } : undefined, limits,
  });
  const label = `${dir ?? preset}: ${full ? 'full-parameter' : `LoRA r ${int('lora-rank', 8)} on an ${base} base`}${grpo ? `, GRPO with the KL reference and a rollout KV cache of ${rows} × ${seqLen}` : ''}, ${limitsName} limits`;
  for (const line of formatMemoryPlan(plan, label)) console.log(line);
  const budget = flag('budget-gib');
  const problem = limits ? checkMemoryPlan(plan, { ...limits, budgetBytes: budget ? Number(budget) * 2 ** 30 : undefined }) : null;
  console.log(problem ? `does not fit: ${problem}` : 'fits');
}

try {
  main();
} catch (e) {
  console.error(`memory-plan failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
