// Difficulty levels of the coding family (the curriculum), each with whole templates held out:
//   one-liners  one expression: an operation, or two in order, on a number, string or array
//               (templates/oneLiners.ts); validation and test are compositions never trained on.
//               ≈ 420 trimmed-Qwen3 tokens and 2 turns per expert episode.
//   loops       the array and maths templates (one loop each, mostly): 12 train, 2 validation, 2 test.
//   parsing     the parsing templates (key=value pairs, CSV lines, expressions, brackets; durations and
//               versions held out): 4 train, 1 validation (parse-duration), 1 test (compare-versions).
//   functions   every template of the five areas (strings, arrays, maths, parsing, data structures):
//               27 train, 5 validation, 5 test — the full task set.
// loops, parsing and functions share the one template split of templates/index.ts, so no level's
// validation or test template is another level's train template.
import type { SplitLists } from '../splits';
import { TEMPLATE_SPLITS } from './templates/index';
import { ONE_LINER_SPLITS } from './templates/oneLiners';
import type { ProblemTemplate } from './templates/types';

export const CODING_LEVELS = ['one-liners', 'loops', 'parsing', 'functions'] as const;
export type CodingLevel = (typeof CODING_LEVELS)[number];

const LOOP_CATEGORIES = new Set(['arrays', 'maths']);
const only = (lists: SplitLists<ProblemTemplate>, keep: (t: ProblemTemplate) => boolean): SplitLists<ProblemTemplate> => ({
  train: lists.train.filter(keep), validation: lists.validation.filter(keep), test: lists.test.filter(keep),
});

/** The templates of each split at each level. */
export const LEVEL_TEMPLATE_SPLITS: Readonly<Record<CodingLevel, SplitLists<ProblemTemplate>>> = {
  'one-liners': ONE_LINER_SPLITS,
  loops: only(TEMPLATE_SPLITS, (t) => LOOP_CATEGORIES.has(t.category)),
  parsing: only(TEMPLATE_SPLITS, (t) => t.category === 'parsing'),
  functions: TEMPLATE_SPLITS,
};
