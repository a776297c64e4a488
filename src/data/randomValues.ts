// Function-calling tasks with fresh argument values: every string argument that the request spells
// out is replaced, in the request and in the expected calls, by random letters of the same shape
// (a capitalised word for "Lima", an upper-case code for "IBM", lower-case letters for "serene",
// word by word). Why: a train split draws its values from a closed pool (≈ 100 cities), so SFT on it
// can be fitted by memorising how each value is spelled; with values it has never seen, the only way
// to the right argument is to copy it from the request — what the test split's unseen values ask
// for. (Measured once from the copy model, README "Routing from a model that copies": it did not
// raise validation success; the option stays for other models and task sets.) The
// routing itself (which tool for which phrasing) is untouched: the train phrasings stay. A random
// value is never a value of any routing pool of any split (so no validation or test value enters
// the training data), asserted in randomValues.test.ts.
import type { FunctionCallingTask, GroundTruthCall } from '../envs/functionCalling/types';
import { ROUTING_VALUE_POOLS } from '../envs/functionCalling/routingPools';
import type { Rng } from '../util/rng';

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
/** Every value of every routing pool, all splits, lower-cased: a random value is never one of them. */
const POOL_VALUES = new Set(Object.values(ROUTING_VALUE_POOLS).flat().map((v) => v.toLowerCase()));
/** A value this module replaces: letters, words separated by single spaces (numbers, dates, paths stay). */
const WORDS_ONLY = /^[A-Za-z]+( [A-Za-z]+)*$/;

function letters(rng: Rng, n: number, upper: boolean): string {
  const s = Array.from({ length: n }, () => LOWER[rng.int(0, 25)]).join('');
  return upper ? s.toUpperCase() : s;
}

/** One random word shaped like `word`: all capitals (2–5), capitalised (3–10) or lower case (3–10). */
function wordLike(word: string, rng: Rng): string {
  if (word.length > 1 && word === word.toUpperCase()) return letters(rng, rng.int(2, 5), true);
  const s = letters(rng, rng.int(3, 10), false);
  return word[0] === word[0].toUpperCase() ? s[0].toUpperCase() + s.slice(1) : s;
}

/** A random value shaped like `value`, word by word, never a routing pool value (nor `value`). */
export function valueLike(value: string, rng: Rng): string {
  for (;;) {
    const words = value.split(' ').map((w) => wordLike(w, rng));
    const v = words.join(' ');
    if (v !== value && !POOL_VALUES.has(v.toLowerCase()) && !words.some((w) => POOL_VALUES.has(w.toLowerCase()))) return v;
  }
}

const requestText = (task: FunctionCallingTask): string => task.question.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');

/** Replaces whole-word occurrences of each key of `swap` in `text`. */
function swapIn(text: string, swap: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [from, to] of swap) out = out.replace(new RegExp(`(?<![A-Za-z])${from}(?![A-Za-z])`, 'g'), to);
  return out;
}

/**
 * `task` with every word-only string argument value that its request contains (as a whole word)
 * replaced by a random one of the same shape, in the request and in every expected call. A task
 * with no such value comes back unchanged (same object).
 */
export function withRandomValues(task: FunctionCallingTask, rng: Rng): FunctionCallingTask {
  const text = requestText(task);
  const swap = new Map<string, string>();
  for (const call of task.groundTruth) {
    for (const args of Object.values(call)) {
      for (const accepted of Object.values(args)) {
        for (const v of accepted) {
          if (typeof v !== 'string' || !WORDS_ONLY.test(v) || swap.has(v)) continue;
          if (!new RegExp(`(?<![A-Za-z])${v}(?![A-Za-z])`).test(text)) continue;
          swap.set(v, valueLike(v, rng));
        }
      }
    }
  }
  if (swap.size === 0) return task;
  const groundTruth: GroundTruthCall[] = task.groundTruth.map((call) => Object.fromEntries(Object.entries(call).map(([name, args]) => [
    name, Object.fromEntries(Object.entries(args).map(([arg, accepted]) => [arg, accepted.map((v) => (typeof v === 'string' && swap.has(v) ? swap.get(v)! : v))])),
  ])));
  return {
    ...task,
    id: `${task.id}-random-values`,
    question: task.question.map((m) => (typeof m.content === 'string' ? { ...m, content: swapIn(m.content, swap) } : m)),
    groundTruth,
  };
}
