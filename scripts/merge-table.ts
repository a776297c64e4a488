// `npm run merge-table -- [options]`: the merge table over trained specialists (src/pipeline/mergeTable.ts)
// in Node on Dawn's OpenGL ES adapter: rows = the shared model, each specialist, the multi-task model,
// one merged model per method, the cheap baselines; columns = per task set on the test split: success,
// mean reward and its components, with n and 95 % intervals. Prints markdown; --out writes JSON;
// --save writes the shared model and the specialists (one base) as HF folders for npm run merge;
// --tune chooses each method's hyper-parameters on validation first; --seeds runs one table per seed
// and prints the mean and range over seeds; --summarize does that from tables saved apart (no training).
// Run through the WGSL loader: tsx --import ./scripts/lib/wgslLoader.mjs scripts/merge-table.ts …
import { existsSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { acquireDevice, describeContext } from '../src/gpu/device';
import { nodeGpu } from '../src/gpu/nodeGpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { PRESETS } from '../src/model/config';
import { type MergeTableRow, runMergeTable, weightsDigest } from '../src/pipeline/mergeTable';
import { formatMergeTableMarkdown, mergeTableJson } from '../src/pipeline/mergeTableFormat';
import { formatSeedSummary, summarizeSeeds } from '../src/pipeline/mergeTableSeeds';
import { exportFiles } from '../src/storage/export/exportModel';
import { writeFolder } from '../src/storage/hfFolder';
import { tokenizerForModel } from '../src/tokenizer';
import { MERGE_TABLE_USAGE, parseMergeTableArgs } from './lib/mergeTableArgs';
import { combineSavedTables, type SavedRun } from './lib/mergeTableFiles';
import { readPresetFolder } from './lib/presetFolder';

const log = (line: string) => console.log(`[merge-table] ${line}`);

async function main(): Promise<void> {
  const args = parseMergeTableArgs(process.argv.slice(2));
  if (args.help) {
    console.log(MERGE_TABLE_USAGE);
    return;
  }
  if (args.out && !existsSync(dirname(args.out) || '.')) throw new Error(`--out ${args.out}: the folder ${dirname(args.out)} does not exist`);
  if (args.summarize) return summarizeFiles(args.summarize, args.out);
  if (args.save && existsSync(args.save) && !statSync(args.save).isDirectory()) throw new Error(`--save ${args.save} is a file; give a folder`);
  // read before the device: a wrong folder fails at once, not after the adapter is up
  const initial = args.init === undefined ? undefined : readPresetFolder(args.init, args.config.preset, '--init', "give a folder of the config's preset shape").params;
  const ctx = await acquireDevice({ gpu: nodeGpu('opengles'), featureLevel: 'compatibility' });
  const rt = new GpuRuntime(ctx);
  const adapter = describeContext(ctx);
  log(`adapter: ${adapter}; preset ${args.config.preset}, seeds ${args.seeds.join(', ')}, n ${args.n}, methods ${args.methods.join(', ')}${args.init ? `, starting from ${args.init}` : ''}${args.tune ? `, tuned on ${args.tune.n} validation tasks per task set` : ''}`);
  const onRow = (row: MergeTableRow) => log(`row ${row.label}: ${Object.entries(row.cells).map(([set, c]) => `${set} success ${c.success.successes}/${c.n}, reward ${c.reward.mean.toFixed(3)} [${c.reward.lo.toFixed(3)}, ${c.reward.hi.toFixed(3)}] (${Object.entries(c.components).map(([k, m]) => `${k} ${m.mean.toFixed(3)}`).join(', ')})`).join('; ')}`);
  const init = args.init && initial ? { path: args.init, digest: weightsDigest(initial) } : null;
  const runs: SavedRun[] = [];
  let r: Awaited<ReturnType<typeof runMergeTable>> | null = null;
  for (const seed of args.seeds) {
    const config = { ...args.config, seed };
    if (args.seeds.length > 1) console.log(`\n### Seed ${seed}\n`);
    r = await runMergeTable(rt, { config, methods: args.methods, n: args.n, log, onRow, ...(args.tune ? { tune: args.tune } : {}), ...(args.scaleProbe ? { scaleProbe: args.scaleProbe } : {}) }, initial ? { initial } : {});
    console.log(formatMergeTableMarkdown(r));
    if (r.tuning.length) log(`tuning cost: ${r.tuning.reduce((s, t) => s + t.candidates.length, 0)} candidate evaluations, ${r.tuning.reduce((s, t) => s + t.episodes, 0)} validation episodes (splits evaluated by the tuner: ${[...new Set(r.tuning.flatMap((t) => t.splits))].join(', ')})`);
    runs.push({ config, init, ...mergeTableJson(r) });
    // after every seed but the last: the seeds so far, in the final file's shape (a stopped run keeps them)
    if (args.out && args.seeds.length > 1 && runs.length < args.seeds.length) {
      await writeFile(args.out, `${JSON.stringify({ adapter, runs, summary: runs.length > 1 ? summarizeSeeds(runs) : null }, null, 2)}\n`);
      log(`wrote ${args.out} (seeds ${runs.map((x) => x.seed).join(', ')} of ${args.seeds.join(', ')})`);
    }
  }
  const summary = args.seeds.length > 1 ? summarizeSeeds(runs) : null;
  if (summary) console.log(`\n### Over seeds\n\n${formatSeedSummary(summary)}`);
  if (args.out) {
    const body = summary ? { adapter, runs, summary } : { adapter, ...runs[0] };
    await writeFile(args.out, `${JSON.stringify(body, null, 2)}\n`);
    log(`wrote ${args.out}`);
  }
  if (args.save && r) {
    if (args.seeds.length > 1) log(`--save: the last seed's (${args.seeds.at(-1)}) models`);
    const cfg = PRESETS[args.config.preset];
    const tok = await tokenizerForModel(cfg);
    const ids = { eosId: tok.imEndId, padId: tok.padId };
    const save = (name: string, params: Map<string, Float32Array>) => writeFolder(join(args.save!, name), exportFiles({ cfg, params, ids }, 'hf'));
    await save('base', r.specialists.base);
    const dirs = r.specialists.models.map((m) => m.label.replace('/', '-'));
    for (const [j, m] of r.specialists.models.entries()) await save(dirs[j], m.weights);
    await save('multi-task', r.multiTask);
    log(`saved base, ${dirs.join(', ')} and multi-task in ${args.save}; merge them: npm run merge -- --method ties --base ${join(args.save, 'base')} --models ${dirs.map((d) => join(args.save!, d)).join(' ')} --out DIR`);
  }
}

/** --summarize: the summary over seeds of tables saved apart, after checking they are one experiment. */
async function summarizeFiles(files: readonly string[], out: string | undefined): Promise<void> {
  const bodies = files.map((file) => {
    if (!existsSync(file)) throw new Error(`--summarize ${file}: no such file`);
    try {
      return { file, body: JSON.parse(readFileSync(file, 'utf8')) as unknown };
    } catch (e) {
      throw new Error(`--summarize ${file}: not JSON (${e instanceof Error ? e.message : e})`);
    }
  });
  const { adapter, runs, notes } = combineSavedTables(bodies);
  for (const note of notes) log(`note: ${note}`);
  log(`adapter: ${adapter}; ${runs.length} runs (seeds ${runs.map((r) => r.seed).join(', ')}) from ${files.length} file(s)`);
  const summary = summarizeSeeds(runs);
  console.log(`\n### Over seeds\n\n${formatSeedSummary(summary)}`);
  if (out) {
    await writeFile(out, `${JSON.stringify({ adapter, runs, summary }, null, 2)}\n`);
    log(`wrote ${out}`);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
