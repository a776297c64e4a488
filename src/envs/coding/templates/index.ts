// The registry of coding problem templates (37 across five areas) and their split: whole templates
// are held out, one per area for validation and one per area for test, so validation and test
// problems are never instances of a template trained on (27 train templates).
import type { SplitLists } from '../../splits';
import { ARRAY_TEMPLATES } from './arrays';
import { MATHS_TEMPLATES } from './maths';
import { PARSING_TEMPLATES } from './parsing';
import { STRING_TEMPLATES } from './strings';
import { STRUCTURE_TEMPLATES } from './structures';
import type { ProblemTemplate } from './types';

export type { CodingCategory, ProblemSpec, ProblemTemplate } from './types';

/** Every template, in a fixed order (task generation indexes into it). */
export const TEMPLATES: readonly ProblemTemplate[] = [...STRING_TEMPLATES, ...ARRAY_TEMPLATES, ...MATHS_TEMPLATES, ...PARSING_TEMPLATES, ...STRUCTURE_TEMPLATES];

/** Held-out template ids: one per area for validation, one per area for test; every other template is train. */
export const HELD_OUT_TEMPLATE_IDS: Readonly<Record<'validation' | 'test', readonly string[]>> = {
  validation: ['move-to-end', 'sum-multiples', 'parse-duration', 'title-case', 'ring-buffer'],
  test: ['chunk-array', 'to-base', 'compare-versions', 'caesar-shift', 'group-by'],
};

function byIds(ids: readonly string[]): ProblemTemplate[] {
  return ids.map((id) => {
    const t = TEMPLATES.find((x) => x.id === id);
    if (t === undefined) throw new Error(`coding template split names an unknown template: ${id}`);
    return t;
  });
}

const HELD_OUT = new Set([...HELD_OUT_TEMPLATE_IDS.validation, ...HELD_OUT_TEMPLATE_IDS.test]);

/** The templates of each split, in TEMPLATES order. */
export const TEMPLATE_SPLITS: SplitLists<ProblemTemplate> = {
  train: TEMPLATES.filter((t) => !HELD_OUT.has(t.id)),
  validation: byIds(HELD_OUT_TEMPLATE_IDS.validation),
  test: byIds(HELD_OUT_TEMPLATE_IDS.test),
};
