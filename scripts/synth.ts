// `npm run synth -- --family all --n 5000 --seed 1 --out data.jsonl`: expert trajectories of the
// environment families, verified by replay (rejection filtering), mixed, written as HF chat JSONL;
// prints per-family stats (generated, accepted, acceptance rate, tools, turns, categories).
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeChatJsonl } from '../src/data/chatJsonl';
import { familyByName } from '../src/data/families';
import { synthesizeMix, type MixPart } from '../src/data/synth';
import { parseSynthArgs, SYNTH_USAGE, SynthArgsError, type SynthArgs } from '../src/data/synthArgs';
import { formatSynthStats } from '../src/data/synthStats';

async function main(args: SynthArgs): Promise<number> {
  const out = resolve(args.out);
  // Checked before the (minutes-long) generation, not after it.
  if (!existsSync(dirname(out)) || !statSync(dirname(out)).isDirectory()) {
    console.error(`synth: the folder of --out ${out} does not exist; create it or choose another path`);
    return 1;
  }
  const parts: MixPart[] = args.families.map((name, i) => ({ family: familyByName(name), share: args.shares[i] }));
  const started = Date.now();
  const result = await synthesizeMix(parts, { n: args.n, seed: args.seed, maxAttempts: args.maxAttempts });
  const text = writeChatJsonl(result.items.map((item) => item.conversation), args.argumentsAs);
  try {
    writeFileSync(out, text);
  } catch (e) {
    console.error(`synth: could not write ${out} (${e instanceof Error ? e.message : String(e)}); check the path and its permissions`);
    return 1;
  }
  console.log(formatSynthStats(result.stats));
  result.stats.forEach((s, i) => {
    if (s.accepted < result.wanted[i]) {
      console.log(`  warning: ${s.family} kept ${s.accepted} of ${result.wanted[i]} wanted after ${s.generated} episodes; e.g. ${result.rejectedExamples[i].slice(0, 2).join(' | ')}`);
    }
  });
  const seconds = (Date.now() - started) / 1000;
  console.log(`wrote ${result.items.length} conversations (${(text.length / 1e6).toFixed(1)} MB) to ${out} in ${seconds.toFixed(1)} s`);
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
