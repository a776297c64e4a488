// `npm run random-qwen -- --out DIR [--layers N] [--seed S] [--dtype BF16|F16|F32] [--shard-mb M]`
// Writes a random-weight model with the exact Qwen3-0.6B widths, vocabulary and head layout (and
// N layers, default 2; 28 is the real depth) as a Hugging Face folder — config.json and sharded
// safetensors with model.safetensors.index.json — using TabForge's own safetensors writer, a few MiB
// at a time. For `npm run debug-state` and `npm run big-model-check` without downloading anything.
import { PRESETS } from '../src/model/config';
import { writeFolder } from '../src/model/hfFolderNode';
import { type FloatDtype, hfFolderFiles, seededRows } from '../src/model/hfFolderWriter';
import { countParameters } from '../src/model/parameters';
import { integerFlag, oneOfFlag, withUsage } from '../src/util/flagValues';

const USAGE = 'usage: npm run random-qwen -- --out DIR [--layers N] [--seed S] [--dtype BF16|F16|F32] [--shard-mb M]';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`--${name} needs a value\n${USAGE}`);
  return v;
}

function positiveInt(name: string, fallback: number): number {
  const v = flag(name);
  if (v === undefined) return fallback;
  return withUsage(USAGE, () => integerFlag(name, v, { min: 1 }));
}

function main(): void {
  const out = flag('out');
  if (!out) throw new Error(`--out is required\n${USAGE}`);
  const layers = positiveInt('layers', 2);
  const seed = positiveInt('seed', 1);
  const shardMb = positiveInt('shard-mb', 512);
  const dtype = withUsage(USAGE, () => oneOfFlag<FloatDtype>('dtype', flag('dtype') ?? 'BF16', ['BF16', 'F16', 'F32']));
  const cfg = { ...PRESETS['qwen3-0.6b'], numLayers: layers };
  const t0 = performance.now();
  const bytes = writeFolder(out, hfFolderFiles(cfg, seededRows(cfg, seed), { dtype, maxShardBytes: shardMb * 2 ** 20 }));
  console.log(`wrote ${out}: Qwen3-0.6B shape with ${layers} layers (${(countParameters(cfg) / 1e6).toFixed(1)} M parameters), ${dtype}, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

try {
  main();
} catch (e) {
  console.error(`random-qwen failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
