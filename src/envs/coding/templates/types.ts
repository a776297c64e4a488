// What a problem template is: a seeded generator of one coding problem — its wording, a JavaScript
// reference solution, a plausible buggy attempt, an independent TypeScript oracle that computes the
// expected outputs, and the inputs of the public and hidden tests. The reference is checked against
// the oracle's outputs in the sandbox (templates.test.ts), so the tests verify each other.
import type { Rng } from '../../../util/rng';

/** Problem areas, used as the task's category. */
export type CodingCategory = 'strings' | 'arrays' | 'maths' | 'parsing' | 'data-structures';

/** One generated problem (before its tests are computed). */
export interface ProblemSpec {
  /** Name of the function to write (varies with the seed). */
  entry: string;
  /** Parameter names, for the signature shown to the agent. */
  params: string[];
  /** The specification in words (wording and constants vary with the seed). */
  statement: string;
  /** A correct JavaScript solution (plain script defining `entry`). */
  reference: string;
  /** A plausible wrong solution; fails at least one public test. */
  buggy: string;
  /** What the buggy attempt gets wrong, in the words an expert would use after reading the failure. */
  bugNote: string;
  /** Independent TypeScript implementation that computes the expected output (must not mutate args). */
  oracle: (...args: never[]) => unknown;
  /** Arguments of the examples shown to the agent; include a case the buggy attempt fails. */
  publicInputs: unknown[][];
  /** Arguments of the hidden tests used for the reward. */
  hiddenInputs: unknown[][];
}

/** A family of problems; `make` is deterministic in the generator's state. */
export interface ProblemTemplate {
  /** Stable id, e.g. 'rotate-array'. */
  id: string;
  /** Problem area. */
  category: CodingCategory;
  /** Builds one problem from the seeded generator. */
  make(rng: Rng): ProblemSpec;
}

/** Random integers in [lo, hi], length n. */
export function intArray(rng: Rng, n: number, lo: number, hi: number): number[] {
  return Array.from({ length: n }, () => rng.int(lo, hi));
}

/** A random lowercase word of length in [minLen, maxLen] from the given letters. */
export function word(rng: Rng, minLen: number, maxLen: number, letters = 'abcdefghijklmnopqrstuvwxyz'): string {
  const n = rng.int(minLen, maxLen);
  let s = '';
  for (let i = 0; i < n; i++) s += letters[rng.int(0, letters.length - 1)];
  return s;
}

/** `count` input lists from a generator function. */
export function repeat(count: number, make: (i: number) => unknown[]): unknown[][] {
  return Array.from({ length: count }, (_, i) => make(i));
}
