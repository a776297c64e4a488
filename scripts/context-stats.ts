// `npm run context-stats [-- --n 200] [--seed 1] [--split train|validation|test] [--json FILE]`: tokens
// and turns per verified expert episode, per task set (route4, BFCL-style mix, retail, coding) × tokenizer (byte,
// trimmed Qwen3, full Qwen3) × tool rendering (compact, full JSON); then per category with the
// small presets' pairings, per curriculum level, and how many episodes fit each preset's context. Markdown on stdout.
// With --rollout: instead, sampled rollouts of a seeded untrained model (--preset, default nano-q) per
// curriculum level of service and coding through the real rollout code on Dawn's OpenGL ES adapter
// (llvmpipe, what `npm run learn` uses): turns, policy and total tokens per episode, rollout tokens/s
// (src/pipeline/rolloutStats.ts). A Node run beside the token counts rather than a `npm run bench`
// row: bench measures kernels in Chromium; this is the learn runs' own adapter and code path.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { parseRolloutArgs } from './lib/rolloutArgs';
import { contextRows, episodeTokens, formatBudgetRow, formatContextTable, type ContextRow } from '../src/data/contextStats';
import { CONTEXT_TASK_SETS, corpusEpisodes } from '../src/data/episodeCorpus';
import { SPLITS, type Split } from '../src/envs/splits';
import { CURRICULA, taskSet } from '../src/envs/taskSets';
import type { Episode } from '../src/eval/rollout';
import { PRESETS, type PresetName } from '../src/model/config';
import { tokenizerForModel } from '../src/tokenizer/tokenizerForModel';
import { toolRenderingFor } from '../src/tokenizer/compactTools';
import type { Tokenizer } from '../src/tokenizer/types';
import { integerFlag, oneOfFlag } from '../src/util/flagValues';

const USAGE = 'usage: npm run context-stats -- [--n 200] [--seed 1] [--split train|validation|test] [--json FILE]\n       npm run context-stats -- --rollout [--seed 1] [--tasks 2] [--group 2] [--preset nano-q] [--json FILE]';

function fail(message: string): never {
  console.error(`context-stats: ${message}\n${USAGE}`);
  process.exit(2);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      n: { type: 'string' }, seed: { type: 'string' }, split: { type: 'string' }, json: { type: 'string' }, help: { type: 'boolean' },
      rollout: { type: 'boolean' }, tasks: { type: 'string' }, group: { type: 'string' }, preset: { type: 'string' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.rollout) return rolloutTable(values);
  for (const flag of ['tasks', 'group', 'preset'] as const) if (values[flag] !== undefined) fail(`--${flag} needs --rollout`);
  let n = 200, seed = 1, split: Split = 'train';
  try {
    if (values.n !== undefined) n = integerFlag('n', values.n, { min: 1 });
    if (values.seed !== undefined) seed = integerFlag('seed', values.seed);
    if (values.split !== undefined) split = oneOfFlag('split', values.split, SPLITS);
  } catch (e) {
    fail((e as Error).message);
  }
  const started = Date.now();

  const tokenizers: Tokenizer[] = [
    await tokenizerForModel(PRESETS.nano),
    await tokenizerForModel(PRESETS['nano-q']),
    await tokenizerForModel(PRESETS['qwen3-0.6b']),
  ];
  const episodes = new Map<string, Episode[]>();
  for (const { label, set } of CONTEXT_TASK_SETS) episodes.set(label, await corpusEpisodes(set, { split, seed, n, policy: 'expert' }));

  const rows: ContextRow[] = [];
  for (const [name, eps] of episodes) rows.push(...contextRows(name, eps, tokenizers, ['compact', 'json']));
  console.log(`Expert episodes (verified, as SFT data), ${split} split, seed ${seed}, n = ${n} per task set; tokens as encodeConversation counts them.\n`);
  console.log(formatContextTable(rows));

  // Per category, with the rendering each tokenizer's presets use.
  const byCategory: ContextRow[] = [];
  for (const name of ['service', 'coding']) {
    const eps = episodes.get(name) ?? [];
    for (const category of [...new Set(eps.map((e) => e.category))].sort()) {
      for (const tok of tokenizers.slice(0, 2)) byCategory.push(...contextRows(name, eps.filter((e) => e.category === category), [tok], [toolRenderingFor(tok.kind)], category));
    }
  }
  console.log(`\nPer category (each tokenizer with its presets' tool rendering):\n\n${formatContextTable(byCategory)}`);

  // Where the tokens go, with the trimmed presets' pairing.
  const trimmed = tokenizers[1];
  console.log(`\nMean tokens per episode by part (${trimmed.kind}, ${toolRenderingFor(trimmed.kind)} tools): opening = system prompt + tools + first user turn; assistant = generated (loss) tokens; environment = tool results, user turns and turn markup.\n`);
  console.log('| family | opening | assistant | environment |\n|---|---:|---:|---:|');
  for (const [name, eps] of episodes) console.log(formatBudgetRow(name, trimmed, eps, toolRenderingFor(trimmed.kind)));

  // Which presets hold a whole episode.
  console.log('\nWhole episodes within the preset context (maxPositionEmbeddings), with the preset tool rendering:\n');
  const labels = CONTEXT_TASK_SETS.map((c) => c.label);
  console.log('| preset | context | ' + labels.join(' | ') + ' |');
  console.log('|---|---:|' + labels.map(() => '---:').join('|') + '|');
  for (const preset of ['nano', 'tiny', 'nano-q', 'tiny-q', 'small'] as PresetName[]) {
    const cfg = PRESETS[preset];
    const tok = tokenizers.find((t) => t.kind === cfg.tokenizer);
    if (!tok) continue;
    const cells = labels.map((name) => {
      const eps = episodes.get(name) ?? [];
      const fit = eps.filter((e) => episodeTokens(tok, e, toolRenderingFor(tok.kind)) <= cfg.maxPositionEmbeddings).length;
      return `${fit}/${eps.length}`;
    });
    console.log(`| ${preset} | ${cfg.maxPositionEmbeddings} | ${cells.join(' | ')} |`);
  }
  // Per curriculum level (envs/taskSets.ts CURRICULA): what each level costs with the presets that train it.
  const byLevel: ContextRow[] = [];
  for (const [family, levels] of Object.entries(CURRICULA)) {
    for (const level of levels) {
      const eps = await corpusEpisodes(taskSet(family, level), { split, seed, n, policy: 'expert' });
      for (const tok of tokenizers.slice(0, 2)) byLevel.push(...contextRows(`${family}/${level}`, eps, [tok], [toolRenderingFor(tok.kind)]));
    }
  }
  console.log(`\nPer curriculum level, smallest first (each tokenizer with its presets' tool rendering):\n\n${formatContextTable(byLevel)}`);
  if (values.json) writeFileSync(values.json, JSON.stringify({ split, seed, n, rows, byCategory, byLevel }, null, 1));
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

/** --rollout: one row per service and coding level (smallest first), sampled by an untrained seeded model. */
async function rolloutTable(values: { seed?: string; tasks?: string; group?: string; preset?: string; json?: string; n?: string; split?: string }): Promise<void> {
  if (values.n !== undefined || values.split !== undefined) fail('--n and --split are for the expert tables; --rollout samples --tasks × --group train episodes per level');
  let options;
  try {
    options = parseRolloutArgs(values);
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  const started = Date.now();
  const { acquireDevice, describeContext } = await import('../src/gpu/device');
  const { nodeGpu } = await import('../src/gpu/nodeGpu');
  const { GpuRuntime } = await import('../src/gpu/runtime');
  const { formatRolloutTable, measureRollouts } = await import('../src/pipeline/rolloutStats');
  const ctx = await acquireDevice({ gpu: nodeGpu('opengles'), featureLevel: 'compatibility' });
  const adapter = `Node Dawn OpenGL ES (${describeContext(ctx)})`;
  console.log(`adapter: ${adapter}`);
  const rows = await measureRollouts(new GpuRuntime(ctx), options, (line) => console.log(`  ${line}`));
  console.log(`\nSampled rollouts of an untrained ${options.preset} model (seed ${options.seed}, temperature 1, train tasks, ${options.tasks} tasks × ${options.group} samples per level, one batch each; limits = TASK_SET_CONTEXT):\n`);
  // the GL ES adapter names only its driver (on a machine without a GPU, Mesa's is llvmpipe)
  console.log(formatRolloutTable(rows, `Node Dawn ${ctx.featureLevel}, ${ctx.adapterInfo.description.replace(/^OpenGL version /, '') || describeContext(ctx)}`));
  console.log(`\n1-minute load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs at the end (rates are wall-clock: a loaded machine lowers them)`);
  if (values.json) writeFileSync(values.json, JSON.stringify({ ...options, adapter, rows }, null, 1));
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

main().catch((e: unknown) => {
  console.error(`context-stats: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
  process.exit(1);
});
