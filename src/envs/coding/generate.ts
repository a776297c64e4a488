// Deterministic task generation: (seed, index, split) → one CodingTask. The split's templates
// (templates/index.ts: whole templates are held out for validation and test) are visited
// round-robin (offset by the seed) so every batch covers them evenly.
import { Rng } from '../../util/rng';
import { type CodingLevel, LEVEL_TEMPLATE_SPLITS } from './levels';
import type { CodingTask, CodingTest } from './types';

import { checkSplit, type Split } from '../splits';

const SPLIT_SALT = { train: 0x1b873593, validation: 0x5bd1e995, test: 0x27d4eb2f } as const;

/** True when `a` is JSON data that `b` (its JSON round trip) reproduces exactly (NaN, undefined, Infinity fail). */
function survivesJson(a: unknown, b: unknown): boolean {
  if (typeof a === 'number') return Number.isFinite(a) && a === b;
  if (a === null || typeof a === 'string' || typeof a === 'boolean') return a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => survivesJson(x, b[i]));
  if (typeof a !== 'object' || b === null || typeof b !== 'object' || Object.getPrototypeOf(a) !== Object.prototype) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => survivesJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The JSON round trip of a template's value; throws (a template bug) when that would change it. */
function jsonData(value: unknown, what: string): unknown {
  const text = JSON.stringify(value);
  const back = text === undefined ? undefined : (JSON.parse(text) as unknown);
  if (!survivesJson(value, back)) throw new Error(`coding template produced ${what} that is not plain JSON data: ${String(text).slice(0, 100)}`);
  return back;
}

/** The same (seed, index, split, level) always gives the same task (level: levels.ts, default the full set). */
export function generateCodingTask(seed: number, index: number, split: Split = 'train', level: CodingLevel = 'functions'): CodingTask {
  checkSplit(split, 'generateCodingTask');
  const templates = LEVEL_TEMPLATE_SPLITS[level][split];
  const offset = new Rng(seed).int(0, templates.length - 1);
  const template = templates[(index + offset) % templates.length];
  const rng = new Rng((seed ^ SPLIT_SALT[split] ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  const spec = template.make(rng);
  const oracle = spec.oracle as (...args: unknown[]) => unknown;
  const toTest = (args: unknown[]): CodingTest => {
    const clean = jsonData(args, `arguments for ${template.id}`) as unknown[];
    // The oracle gets its own copy, so a mutating oracle cannot change the recorded arguments.
    const expected = jsonData(oracle(...structuredClone(clean)), `an expected value for ${template.id}`);
    return { args: clean, expected };
  };
  return {
    family: 'coding',
    id: level === 'functions' ? `coding/${split}/${seed}/${index}/${template.id}` : `coding/${level}/${split}/${seed}/${index}/${template.id}`,
    category: template.category,
    template: template.id,
    entry: spec.entry,
    signature: `function ${spec.entry}(${spec.params.join(', ')})`,
    statement: spec.statement,
    publicTests: spec.publicInputs.map(toTest),
    hiddenTests: spec.hiddenInputs.map(toTest),
    solution: spec.reference,
    buggySolution: spec.buggy,
    bugNote: spec.bugNote,
  };
}
