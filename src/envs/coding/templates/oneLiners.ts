// The smallest coding level (levels.ts 'one-liners'): functions whose body is one expression — one
// operation, or two applied in order — on a number, a string or an array of numbers. A template is
// an operation or an ordered PAIR of operations of one domain ("first adds 3, then multiplies by
// 5" → `return (n + 3) * 5;`). Single operations are all train templates; the pairs are cut into
// train / validation / test by a fixed hash (splits.ts partitionPool), so a validation or test
// problem is a composition never trained on, of operations that were: the level measures whether
// the agent composes what it learnt, with whole templates held out as the family requires.
// Constants, inputs and the function's name vary with the seed.
import type { Rng } from '../../../util/rng';
import { partitionPool, type SplitLists } from '../../splits';
import { intArray, repeat, type CodingCategory, type ProblemSpec, type ProblemTemplate } from './types';

type Value = number | string | number[];

/** One operation of a domain: its words, its code applied to an expression, and its meaning. */
interface Op {
  /** Stable id within the domain (template ids are built from it). */
  id: string;
  /** The verb of generated function names ("add" → addThenScale). */
  verb: string;
  /** Draws the operation's constant (0 when it has none). */
  constant(rng: Rng): number;
  /** The specification's words, third person ("adds 3 to it"). */
  phrase(k: number): string;
  /** The code that applies it to expression `x` (`x` is a name or already parenthesised where needed). */
  code(x: string, k: number): string;
  /** Whether `code` is an infix expression (it is parenthesised before another operation applies to it). */
  infix: boolean;
  /** The independent implementation (the oracle). */
  apply(v: Value, k: number): Value;
}

interface Domain {
  category: CodingCategory;
  param: string;
  /** "a whole number n". */
  describe: string;
  ops: readonly Op[];
  /** Random inputs: public examples use the first three draws. */
  input(rng: Rng): Value;
}

const op = (o: Op): Op => o;
const num = (v: Value) => v as number;
const str = (v: Value) => v as string;
const arr = (v: Value) => v as number[];

const NUMBER_OPS: readonly Op[] = [
  op({ id: 'add', verb: 'add', constant: (r) => r.int(2, 9), phrase: (k) => `adds ${k} to it`, code: (x, k) => `${x} + ${k}`, infix: true, apply: (v, k) => num(v) + k }),
  op({ id: 'subtract', verb: 'subtract', constant: (r) => r.int(2, 9), phrase: (k) => `subtracts ${k} from it`, code: (x, k) => `${x} - ${k}`, infix: true, apply: (v, k) => num(v) - k }),
  op({ id: 'multiply', verb: 'multiply', constant: (r) => r.int(2, 9), phrase: (k) => `multiplies it by ${k}`, code: (x, k) => `${x} * ${k}`, infix: true, apply: (v, k) => num(v) * k }),
  op({ id: 'remainder', verb: 'mod', constant: (r) => r.int(3, 9), phrase: (k) => `takes the remainder of dividing it by ${k}`, code: (x, k) => `${x} % ${k}`, infix: true, apply: (v, k) => num(v) % k }),
  op({ id: 'at-least', verb: 'raise', constant: (r) => r.int(2, 40), phrase: (k) => `replaces it by ${k} when it is smaller than ${k}`, code: (x, k) => `Math.max(${x}, ${k})`, infix: false, apply: (v, k) => Math.max(num(v), k) }),
  op({ id: 'at-most', verb: 'cap', constant: (r) => r.int(2, 40), phrase: (k) => `replaces it by ${k} when it is larger than ${k}`, code: (x, k) => `Math.min(${x}, ${k})`, infix: false, apply: (v, k) => Math.min(num(v), k) }),
  op({ id: 'square', verb: 'square', constant: () => 0, phrase: () => 'squares it', code: (x) => `${x} ** 2`, infix: true, apply: (v) => num(v) ** 2 }),
];

const STRING_OPS: readonly Op[] = [
  op({ id: 'upper', verb: 'upper', constant: () => 0, phrase: () => 'converts it to upper case', code: (x) => `${x}.toUpperCase()`, infix: false, apply: (v) => str(v).toUpperCase() }),
  op({ id: 'lower', verb: 'lower', constant: () => 0, phrase: () => 'converts it to lower case', code: (x) => `${x}.toLowerCase()`, infix: false, apply: (v) => str(v).toLowerCase() }),
  op({ id: 'trim', verb: 'trim', constant: () => 0, phrase: () => 'removes the spaces at both ends', code: (x) => `${x}.trim()`, infix: false, apply: (v) => str(v).replace(/^ +| +$/g, '') }),
  op({ id: 'reverse', verb: 'reverse', constant: () => 0, phrase: () => 'reverses the order of its characters', code: (x) => `${x}.split('').reverse().join('')`, infix: false, apply: (v) => [...str(v)].reverse().join('') }),
  op({ id: 'repeat', verb: 'repeat', constant: (r) => r.int(2, 3), phrase: (k) => `repeats it ${k} times`, code: (x, k) => `${x}.repeat(${k})`, infix: false, apply: (v, k) => Array.from({ length: k }, () => str(v)).join('') }),
  op({ id: 'take', verb: 'take', constant: (r) => r.int(2, 5), phrase: (k) => `keeps only its first ${k} characters`, code: (x, k) => `${x}.slice(0, ${k})`, infix: false, apply: (v, k) => [...str(v)].filter((_, i) => i < k).join('') }),
  op({ id: 'drop', verb: 'drop', constant: (r) => r.int(1, 3), phrase: (k) => `removes its first ${k} characters`, code: (x, k) => `${x}.slice(${k})`, infix: false, apply: (v, k) => [...str(v)].filter((_, i) => i >= k).join('') }),
  op({ id: 'exclaim', verb: 'exclaim', constant: () => 0, phrase: () => 'adds "!" at its end', code: (x) => `${x}.concat('!')`, infix: false, apply: (v) => `${str(v)}!` }),
];

const ARRAY_OPS: readonly Op[] = [
  op({ id: 'add-each', verb: 'shift', constant: (r) => r.int(1, 9), phrase: (k) => `adds ${k} to every element`, code: (x, k) => `${x}.map((x) => x + ${k})`, infix: false, apply: (v, k) => arr(v).map((e) => e + k) }),
  op({ id: 'times-each', verb: 'scale', constant: (r) => r.int(2, 5), phrase: (k) => `multiplies every element by ${k}`, code: (x, k) => `${x}.map((x) => x * ${k})`, infix: false, apply: (v, k) => arr(v).map((e) => e * k) }),
  op({ id: 'keep-above', verb: 'above', constant: (r) => r.int(3, 12), phrase: (k) => `keeps only the elements greater than ${k}`, code: (x, k) => `${x}.filter((x) => x > ${k})`, infix: false, apply: (v, k) => arr(v).filter((e) => e > k) }),
  op({ id: 'keep-even', verb: 'evens', constant: () => 0, phrase: () => 'keeps only the even elements', code: (x) => `${x}.filter((x) => x % 2 === 0)`, infix: false, apply: (v) => arr(v).filter((e) => e % 2 === 0) }),
  op({ id: 'sort', verb: 'sort', constant: () => 0, phrase: () => 'sorts it in increasing order', code: (x) => `${x}.slice().sort((a, b) => a - b)`, infix: false, apply: (v) => [...arr(v)].sort((a, b) => a - b) }),
  op({ id: 'reverse', verb: 'reverse', constant: () => 0, phrase: () => 'reverses the order of its elements', code: (x) => `${x}.slice().reverse()`, infix: false, apply: (v) => [...arr(v)].reverse() }),
  op({ id: 'take', verb: 'take', constant: (r) => r.int(2, 4), phrase: (k) => `keeps only its first ${k} elements`, code: (x, k) => `${x}.slice(0, ${k})`, infix: false, apply: (v, k) => arr(v).filter((_, i) => i < k) }),
  op({ id: 'drop', verb: 'drop', constant: (r) => r.int(1, 3), phrase: (k) => `removes its first ${k} elements`, code: (x, k) => `${x}.slice(${k})`, infix: false, apply: (v, k) => arr(v).filter((_, i) => i >= k) }),
];

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A word of mixed-case letters, with 0–2 spaces on each side (so trim and case matter). */
function messyWord(rng: Rng): string {
  let w = '';
  for (let i = rng.int(3, 8); i > 0; i--) w += LETTERS[rng.int(0, LETTERS.length - 1)];
  return `${' '.repeat(rng.int(0, 2))}${w}${' '.repeat(rng.int(0, 2))}`;
}

export const ONE_LINER_DOMAINS: readonly Domain[] = [
  { category: 'maths', param: 'n', describe: 'a whole number n', ops: NUMBER_OPS, input: (r) => r.int(0, 60) },
  { category: 'strings', param: 's', describe: 'a string s', ops: STRING_OPS, input: messyWord },
  { category: 'arrays', param: 'nums', describe: 'an array of whole numbers nums', ops: ARRAY_OPS, input: (r) => intArray(r, r.int(3, 6), 0, 20) },
];

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const same = (a: Value, b: Value) => JSON.stringify(a) === JSON.stringify(b);

/** `x` ready for an operation to apply to it: an infix expression is parenthesised. */
function operand(expr: string, infix: boolean): string {
  return infix ? `(${expr})` : expr;
}

/** A template of one operation (`ops` of length 1) or of two applied in order. */
function template(domain: Domain, ops: readonly Op[]): ProblemTemplate {
  const id = `one-liner:${domain.category}:${ops.map((o) => o.id).join('+')}`;
  return {
    id,
    category: domain.category,
    make(rng): ProblemSpec {
      const p = domain.param;
      const slipDiffers = (ks: number[], v: Value) => !same(runWith(ks, v), runWith(ks, v, ops.length - 1));
      const runWith = (ks: number[], v: Value, upTo = ops.length) => ops.slice(0, upTo).reduce((acc, o, i) => o.apply(acc, ks[i]), v);
      // constants under which the last operation matters for some input (remainder by 4, then "at most
      // 20" would be a no-op): redrawn until one of 100 random inputs shows it
      let ks = ops.map((o) => o.constant(rng));
      for (let attempt = 0; attempt < 50 && !Array.from({ length: 100 }, () => domain.input(rng)).some((v) => slipDiffers(ks, v)); attempt++) ks = ops.map((o) => o.constant(rng));
      const entry = ops.length === 1 ? rng.pick([`${ops[0].verb}It`, `${ops[0].verb}Value`, `do${cap(ops[0].verb)}`]) : `${ops[0].verb}Then${cap(ops[1].verb)}`;
      let expr = p;
      let infix = false;
      for (const [i, o] of ops.entries()) {
        expr = o.code(operand(expr, infix), ks[i]);
        infix = o.infix;
      }
      const steps = ops.length === 1 ? ops[0].phrase(ks[0]) : `first ${ops[0].phrase(ks[0])}, then ${ops[1].phrase(ks[1])}`;
      const run = (v: Value, upTo = ops.length) => runWith(ks, v, upTo);
      // the plausible slip: the last operation left out (a single operation: returning the input)
      const buggyExpr = ops.length === 1 ? p : ops[0].code(p, ks[0]);
      const publicInputs: Value[] = [domain.input(rng), domain.input(rng), domain.input(rng)];
      if (publicInputs.every((v) => same(run(v), run(v, ops.length - 1)))) {
        // make sure an example shows the slip: the first input on which it differs
        for (let tries = 0; tries < 200; tries++) {
          const v = domain.input(rng);
          if (!same(run(v), run(v, ops.length - 1))) {
            publicInputs[2] = v;
            break;
          }
        }
      }
      return {
        entry,
        params: [p],
        statement: `Write ${entry}(${p}) that takes ${domain.describe}, ${steps}, and returns the result.`,
        reference: `function ${entry}(${p}) {\n  return ${expr};\n}\n`,
        buggy: `function ${entry}(${p}) {\n  return ${buggyExpr};\n}\n`,
        bugNote: ops.length === 1 ? `the input is returned unchanged; the step where it ${ops[0].phrase(ks[0])} is missing` : `the second step (it ${ops[1].phrase(ks[1])}) is missing`,
        oracle: (v: never) => run(v),
        publicInputs: publicInputs.map((v) => [v]),
        hiddenInputs: repeat(8, () => [domain.input(rng)]),
      };
    },
  };
}

/** Every ordered pair of distinct operations of a domain. */
function pairsOf(domain: Domain): [Op, Op][] {
  return domain.ops.flatMap((a) => domain.ops.filter((b) => b !== a).map((b): [Op, Op] => [a, b]));
}

/** The one-liner templates of each split: train = every single operation + its domain's train pairs. */
export const ONE_LINER_SPLITS: SplitLists<ProblemTemplate> = (() => {
  const out: { train: ProblemTemplate[]; validation: ProblemTemplate[]; test: ProblemTemplate[] } = { train: [], validation: [], test: [] };
  for (const d of ONE_LINER_DOMAINS) {
    out.train.push(...d.ops.map((o) => template(d, [o])));
    const cut = partitionPool(pairsOf(d), `one-liner pairs ${d.category}`, ([a, b]) => `${a.id}+${b.id}`);
    for (const split of ['train', 'validation', 'test'] as const) out[split].push(...cut[split].map((pair) => template(d, pair)));
  }
  return out;
})();
