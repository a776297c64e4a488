// `npm run build-vocab [-- --check] [--seed S] [--expert N] [--random N] [--format-breaking N]`:
// rebuilds the kept-id list of the trimmed Qwen3 vocabulary (src/tokenizer/vocab/qwen3-trimmed.json)
// from train-split text of every task set, and prints V' and how much train (another seed),
// validation and test text it covers without splitting Qwen3 tokens. Writes a new version only when
// the ids changed; --check only compares (exit 1 when the file is out of date).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { taskSetName } from '../src/data/episodeCorpus';
import { TASK_SETS } from '../src/envs/taskSets';
import { SPLITS } from '../src/envs/splits';
import { addCoverage, buildKeptIds, corpusTexts, DEFAULT_VOCAB_BUILD, emptyCoverage, type Coverage } from '../src/data/trimmedVocabBuild';
import { PRESETS } from '../src/model/config';
import { loadQwen3Files } from '../src/tokenizer/qwen3Source';
import { paddedVocabSize, requiredQwen3Ids, TrimmedQwen3Tokenizer } from '../src/tokenizer/trimmedQwen3Tokenizer';
import { parseTrimmedVocab, TRIMMED_VOCAB_FORMAT, type TrimmedVocabFile } from '../src/tokenizer/trimmedVocab';
import { integerFlag } from '../src/util/flagValues';

const USAGE = 'usage: npm run build-vocab -- [--check] [--seed 7] [--expert 1000] [--random 100] [--format-breaking 10] [--coverage-n 200] [--out FILE]';
const FILE = resolve('src/tokenizer/vocab/qwen3-trimmed.json');

function int(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  try {
    return integerFlag(name, value, { min: 0 });
  } catch (e) {
    console.error(`build-vocab: ${(e as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

const pct = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(3)} %`;

function coverageLine(label: string, c: Coverage): string {
  return `${label.padEnd(48)} ${String(c.bytes).padStart(9)} B  kept-token bytes ${pct(c.keptBytes, c.bytes).padStart(9)}  trimmed/Qwen3 tokens ${(c.trimmedTokens / Math.max(1, c.qwen3Tokens)).toFixed(4)}`;
}

/** The file as JSON with 16 ids a line (readable diffs when the list changes). */
function formatVocabFile(file: TrimmedVocabFile): string {
  const head = JSON.stringify({ format: file.format, version: file.version, source: file.source }, null, 2).slice(0, -2);
  const lines: string[] = [];
  for (let i = 0; i < file.qwen3Ids.length; i += 16) lines.push(`    ${file.qwen3Ids.slice(i, i + 16).join(', ')}`);
  return `${head},\n  "qwen3Ids": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

function parsesNow(path: string): boolean {
  try {
    parseTrimmedVocab(JSON.parse(readFileSync(path, 'utf8')));
    return true;
  } catch {
    return false;
  }
}

/** The list in the repo, if any; one in an older format still gives its ids and version (the next version is written). */
function readPrevious(path: string): Pick<TrimmedVocabFile, 'version' | 'qwen3Ids'> | undefined {
  if (!existsSync(path)) return undefined;
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<TrimmedVocabFile>;
  try {
    return parseTrimmedVocab(raw);
  } catch (e) {
    if (typeof raw.version !== 'number' || !Array.isArray(raw.qwen3Ids)) throw e;
    console.log(`note: ${path} is in an older format (${e instanceof Error ? e.message : String(e)}); comparing its ids`);
    return { version: raw.version, qwen3Ids: raw.qwen3Ids };
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean' }, seed: { type: 'string' }, expert: { type: 'string' }, random: { type: 'string' },
      'format-breaking': { type: 'string' }, 'coverage-n': { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const d = DEFAULT_VOCAB_BUILD;
  const opts = {
    seed: int('seed', values.seed, d.seed),
    episodes: { expert: int('expert', values.expert, d.episodes.expert), random: int('random', values.random, d.episodes.random), 'format-breaking': int('format-breaking', values['format-breaking'], d.episodes['format-breaking']) },
  };
  const coverageN = int('coverage-n', values['coverage-n'], 200);
  const out = values.out ? resolve(values.out) : FILE;
  const started = Date.now();

  const { json, config } = await loadQwen3Files();
  const bootstrap = new TrimmedQwen3Tokenizer(json, config, requiredQwen3Ids(json));
  const build = await buildKeptIds((t) => bootstrap.qwen3Encode(t), requiredQwen3Ids(json), opts, (l) => console.log(`  ${l}`));
  const tok = new TrimmedQwen3Tokenizer(json, config, build.qwen3Ids);
  console.log(`V' = ${tok.usedIds} kept Qwen3 ids (${tok.vocabSize} rows padded to a multiple of 8) from ${(build.source.corpusBytes / 1e6).toFixed(1)} MB of train text, seed ${opts.seed}`);

  // Coverage of expert episodes the list was not built from: train tasks of another seed, and the
  // validation and test splits (unseen values, phrasings, users, templates and tools).
  for (const split of SPLITS) {
    const all = emptyCoverage();
    for (const set of TASK_SETS.filter((t) => t.splits.includes(split))) {
      const c = emptyCoverage();
      for await (const text of corpusTexts(set, split, 1, { expert: coverageN })) addCoverage(c, tok, text);
      console.log(coverageLine(`${split} ${taskSetName(set)}`, c));
      for (const k of Object.keys(all) as (keyof Coverage)[]) all[k] += c[k];
    }
    console.log(coverageLine(`${split} all (seed 1, n = ${coverageN}/set)`, all));
  }

  const previous = readPrevious(out);
  const same = previous !== undefined && previous.qwen3Ids.length === build.qwen3Ids.length && previous.qwen3Ids.every((id, i) => id === build.qwen3Ids[i]);
  const presetSize = PRESETS['nano-q'].vocabSize;
  if (paddedVocabSize(build.qwen3Ids.length) !== presetSize) {
    console.log(`note: the nano-q / tiny-q presets have vocabSize ${presetSize}; this list needs ${paddedVocabSize(build.qwen3Ids.length)} (TRIMMED_QWEN3_VOCAB_SIZE in src/model/config.ts)`);
  }
  if (same && parsesNow(out)) {
    console.log(`${out} is up to date (version ${previous.version}) · ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return 0;
  }
  if (previous && !same) {
    const old = new Set(previous.qwen3Ids);
    const now = new Set(build.qwen3Ids);
    console.log(`the ids changed: +${build.qwen3Ids.filter((id) => !old.has(id)).length} −${previous.qwen3Ids.filter((id) => !now.has(id)).length} against version ${previous.version}`);
  }
  if (values.check) {
    console.log(`--check: ${out} is out of date; run npm run build-vocab to rewrite it${same ? ' (same ids, new file format)' : ` as version ${(previous?.version ?? 0) + 1} (models trained with the old list need the old file)`}`);
    return 1;
  }
  // Same ids in an older file format keep their version: it is the same vocabulary.
  const version = same ? previous.version : (previous?.version ?? 0) + 1;
  const file: TrimmedVocabFile = { format: TRIMMED_VOCAB_FORMAT, version, source: build.source, qwen3Ids: build.qwen3Ids };
  writeFileSync(out, formatVocabFile(file));
  console.log(`wrote ${out} (version ${file.version}) · ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return 0;
}

main().then((code) => process.exit(code), (e: unknown) => {
  console.error(`build-vocab: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
  process.exit(1);
});
