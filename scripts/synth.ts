// `npm run synth -- --family all --n 5000 --seed 1 --out data.jsonl`: expert trajectories of the
// environment families, verified by replay (rejection filtering), mixed, written as HF chat JSONL;
// prints per-family stats (generated, accepted, acceptance rate, tools, turns, categories).
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeChatJsonl } from '../src/data/chatJsonl';
import { loadFamily } from '../src/data/families';
import { synthesizeMix, type MixPart } from '../src/data/synth';
import { parseSynthArgs, SYNTH_USAGE, SynthArgsError, type SynthArgs } from '../src/data/synthArgs';
import { formatSynthStats } from '../src/data/synthStats';

async function main(args: SynthArgs): Promise<number> {
  const parts: MixPart[] = [];
  for (let i = 0; i < args.families.length; i++) {
    const name = args.families[i];
    const family = await loadFamily(name);
    if (family === null && !args.all) {
      console.error(`synth: the ${name} family is not available in this checkout (src/envs/${name === 'coding' ? 'coding' : name}/index.ts missing or without its export); choose another --family`);
      return 1;
    }
    if (family === null) console.error(`synth: warning: the ${name} family is not available yet; mixing the other families only`);
    else parts.push({ family, share: args.shares[i] });
  }
  if (parts.length === 0) {
    console.error('synth: none of the requested families is available; nothing to write');
    return 1;
  }
  const started = Date.now();
  const result = await synthesizeMix(parts, { n: args.n, seed: args.seed, maxAttempts: args.maxAttempts });
  const text = writeChatJsonl(result.items.map((item) => item.conversation), args.argumentsAs);
  const out = resolve(args.out);
  writeFileSync(out, text);
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
