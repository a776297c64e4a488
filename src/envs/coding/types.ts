// The coding task: write a JavaScript function from a specification. The agent sees the statement,
// the signature and the public examples; the hidden tests (the reward) and the reference and buggy
// solutions (for the expert policy) travel with the task but are never shown.
import type { TaskBase } from '../types';
import type { CodingCategory } from './templates/types';

export type { CodingCategory } from './templates/types';

/** One unit test: `entry(...args)` must deep-equal `expected` (JSON data). */
export interface CodingTest {
  /** Arguments, JSON data. */
  args: unknown[];
  /** Expected return value, JSON data (numbers compare with a 1e-9 relative tolerance). */
  expected: unknown;
}

export interface CodingTask extends TaskBase {
  family: 'coding';
  /** Problem area: 'strings' | 'arrays' | 'maths' | 'parsing' | 'data-structures'. */
  category: CodingCategory;
  /** Id of the template the task came from (e.g. 'rotate-array'). */
  template: string;
  /** Name of the top-level function the agent must define. */
  entry: string;
  /** `function entry(param, …)`, shown to the agent. */
  signature: string;
  /** The specification in words, shown to the agent. */
  statement: string;
  /** Examples shown to the agent and run by run_tests. */
  publicTests: CodingTest[];
  /** Tests run at submit; the reward. Never shown. */
  hiddenTests: CodingTest[];
  /** Reference solution (plain JavaScript); passes every test. Never shown. */
  solution: string;
  /** A plausible wrong attempt that fails at least one public test (the expert's first try, sometimes). */
  buggySolution: string;
  /** What the buggy attempt gets wrong, as the expert explains it after reading the failure. */
  bugNote: string;
}
