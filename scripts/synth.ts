// `npm run synth -- --family all --n 5000 --seed 1 --out data.jsonl`: expert trajectories of the
// environment families, verified by replay (rejection filtering), mixed, written as HF chat JSONL;
// prints per-family stats (generated, accepted, acceptance rate, tools, turns, categories).
// Conversations are written as they are kept (to OUT.partial, renamed to OUT at the end), with a
// progress line on stderr every few seconds, so a long run holds only a small mixing window.
import { closeSync, existsSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { chatJsonlLine } from '../src/data/chatJsonl';
import { familyByName } from '../src/data/families';
import { streamMix, type MixPart, type MixProgress } from '../src/data/synth';
import { parseSynthArgs, SYNTH_USAGE, SynthArgsError, type SynthArgs } from '../src/data/synthArgs';
import { formatSynthStats } from '../src/data/synthStats';

const PROGRESS_EVERY_MS = 5000;

/** Why --out cannot be written, checked before the (minutes-long) generation; null when it can. */
function outProblem(out: string): string | null {
  if (!existsSync(dirname(out)) || !statSync(dirname(out)).isDirectory()) return `the folder of --out ${out} does not exist; create it or choose another path`;
  if (existsSync(out) && statSync(out).isDirectory()) return `--out ${out} is a folder; give a file name such as ${resolve(out, 'data.jsonl')}`;
  return null;
}

async function main(args: SynthArgs): Promise<number> {
  const out = resolve(args.out);
  const problem = outProblem(out);
  if (problem !== null) {
    console.error(`synth: ${problem}`);
    return 1;
  }
  const partial = `${out}.partial`;
  let fd: number;
  try {
    fd = openSync(partial, 'w');
  } catch (e) {
    console.error(`synth: could not create ${partial} (${e instanceof Error ? e.message : String(e)}); check the path and its permissions`);
    return 1;
  }
  const parts: MixPart[] = args.families.map((name, i) => ({ family: familyByName(name), share: args.shares[i] }));
  const started = Date.now();
  let lastReport = started;
  let written = 0;
  let bytes = 0;
  const onProgress = (p: MixProgress) => {
    if (Date.now() - lastReport < PROGRESS_EVERY_MS) return;
    lastReport = Date.now();
    const kept = p.accepted.reduce((a, b) => a + b, 0);
    const perFamily = parts.map((part, i) => `${part.family.name} ${p.accepted[i]}/${p.wanted[i]}`).join(', ');
    console.error(`synth: ${kept}/${args.n} conversations kept (${perFamily}), ${p.episodes} episodes, ${written} written, ${((lastReport - started) / 1000).toFixed(0)} s`);
  };
  let result: Awaited<ReturnType<typeof streamMix>>;
  try {
    result = await streamMix(parts, { n: args.n, seed: args.seed, maxAttempts: args.maxAttempts, onProgress }, (item) => {
      const line = `${chatJsonlLine(item.conversation, args.argumentsAs)}\n`;
      bytes += writeSync(fd, line);
      written++;
    });
    closeSync(fd);
    renameSync(partial, out);
  } catch (e) {
    try { closeSync(fd); } catch { /* already closed */ }
    rmSync(partial, { force: true });
    throw e;
  }
  console.log(formatSynthStats(result.stats));
  result.stats.forEach((s, i) => {
    if (s.accepted < result.wanted[i]) {
      console.log(`  warning: ${s.family} kept ${s.accepted} of ${result.wanted[i]} wanted after ${s.generated} episodes; e.g. ${result.rejectedExamples[i].slice(0, 2).join(' | ')}`);
    }
  });
  const seconds = (Date.now() - started) / 1000;
  console.log(`wrote ${written} conversations (${(bytes / 1e6).toFixed(1)} MB) to ${out} in ${seconds.toFixed(1)} s`);
  return 0;
}

let args: SynthArgs;
try {
  args = parseSynthArgs(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof SynthArgsError)) throw e;
  console.error(`synth: ${e.message}\n${SYNTH_USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(SYNTH_USAGE);
  process.exit(0);
}
main(args).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`synth: failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);
