// Flags of `npm run synth`, parsed and checked with messages that say what to type instead.
import { parseArgs } from 'node:util';
import { flagCheckers } from '../util/flagValues';
import { MAX_MIX_SHARE, MAX_SYNTH_CONVERSATIONS } from '../util/limits';
import type { ArgumentsFormat } from './chatJsonl';

/** Family names the CLI accepts (besides 'all'). */
export const FAMILY_NAMES = ['function-calling', 'service', 'coding'] as const;
export type FamilyName = (typeof FAMILY_NAMES)[number];

export const SYNTH_USAGE = [
  'usage: npm run synth -- --family all|function-calling|service|coding --n 5000 --seed 1 --out data.jsonl',
  '  --family         which family, or all (mixed by --mix); default all',
  '  --n              conversations to write (accepted trajectories); required',
  '  --seed           run seed (integer); default 1',
  '  --out            output JSONL path; required',
  '  --mix            shares for --family all, e.g. function-calling=2,service=1,coding=1; default equal',
  '  --max-attempts   episodes per family at most; default 2 per wanted conversation',
  '  --arguments-as   object (default) or json-string: how tool-call arguments are written',
].join('\n');

/** Parsed flags. */
export interface SynthArgs {
  /** Families to synthesise, in mix order. */
  families: FamilyName[];
  /** Share per family (same order as families). */
  shares: number[];
  /** True when --family all was given. */
  all: boolean;
  /** Conversations to write. */
  n: number;
  /** Run seed. */
  seed: number;
  /** Output path. */
  out: string;
  /** Episode cap per family, when given. */
  maxAttempts?: number;
  /** How tool-call arguments are written. */
  argumentsAs: ArgumentsFormat;
  /** --help was given. */
  help: boolean;
}

/** A flag mistake; the CLI prints the message and the usage and exits with status 2. */
export class SynthArgsError extends Error {
  override name = 'SynthArgsError';
}

const check = flagCheckers(SynthArgsError);
const integer = (flag: string, text: string | undefined, min: number) => (text === undefined ? undefined : check.integer(flag, text, { min }));

function isFamilyName(name: string): name is FamilyName {
  return (FAMILY_NAMES as readonly string[]).includes(name);
}

/** Parses --mix "a=2,b=1" into shares for the given families (unlisted families get 0). */
function parseMix(text: string): Map<FamilyName, number> {
  const shares = new Map<FamilyName, number>();
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [name, value, extra] = part.split('=');
    const share = Number(value);
    if (extra !== undefined || value === undefined || value.trim() === '' || !isFamilyName(name.trim()) || !(share >= 0) || !Number.isFinite(share)) {
      throw new SynthArgsError(`--mix entry "${part}" is not family=share with family one of ${FAMILY_NAMES.join(', ')} and share a number ≥ 0`);
    }
    if (share > MAX_MIX_SHARE) throw new SynthArgsError(`--mix entry "${part}": shares are relative (2,1,1 is a 50/25/25 mix) and at most ${MAX_MIX_SHARE}; use smaller numbers`);
    shares.set(name.trim() as FamilyName, share);
  }
  if ([...shares.values()].every((s) => s === 0)) throw new SynthArgsError(`--mix "${text}" gives no family a positive share`);
  return shares;
}

/** Parses and checks argv (without node and the script path). Throws SynthArgsError on mistakes. */
export function parseSynthArgs(argv: readonly string[]): SynthArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        family: { type: 'string' },
        n: { type: 'string' },
        seed: { type: 'string' },
        out: { type: 'string' },
        mix: { type: 'string' },
        'max-attempts': { type: 'string' },
        'arguments-as': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new SynthArgsError(e instanceof Error ? e.message : String(e));
  }
  const help = values.help === true;
  const str = (k: string) => values[k] as string | undefined;
  const family = str('family') ?? 'all';
  if (family !== 'all' && !isFamilyName(family)) throw new SynthArgsError(`--family "${family}" is unknown; use all, ${FAMILY_NAMES.join(', ')}`);
  const n = integer('n', str('n'), 1);
  if (n !== undefined && n > MAX_SYNTH_CONVERSATIONS) {
    throw new SynthArgsError(`--n ${n} is more than the ${MAX_SYNTH_CONVERSATIONS} conversations one run writes; run several times with different --seed values and concatenate the files`);
  }
  if (n === undefined && !help) throw new SynthArgsError('--n is required: how many conversations to write (e.g. --n 5000)');
  const out = str('out');
  if ((out === undefined || out.trim() === '') && !help) throw new SynthArgsError('--out is required: the JSONL file to write (e.g. --out data.jsonl)');
  const argumentsAs = check.oneOf<ArgumentsFormat>('arguments-as', str('arguments-as') ?? 'object', ['object', 'json-string']);
  const mixText = str('mix');
  if (mixText !== undefined && family !== 'all') throw new SynthArgsError('--mix only applies to --family all; drop --mix or use --family all');
  let families: FamilyName[] = family === 'all' ? [...FAMILY_NAMES] : [family as FamilyName];
  let shares = families.map(() => 1);
  if (mixText !== undefined) {
    const mix = parseMix(mixText);
    families = FAMILY_NAMES.filter((f) => (mix.get(f) ?? 0) > 0);
    shares = families.map((f) => mix.get(f) ?? 0);
  }
  return {
    families,
    shares,
    all: family === 'all',
    n: n ?? 0,
    seed: integer('seed', str('seed'), 0) ?? 1,
    out: out ?? '',
    maxAttempts: integer('max-attempts', str('max-attempts'), 1),
    argumentsAs,
    help,
  };
}
