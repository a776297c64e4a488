// The registry of coding problem templates (37 across five areas).
import { ARRAY_TEMPLATES } from './arrays';
import { MATHS_TEMPLATES } from './maths';
import { PARSING_TEMPLATES } from './parsing';
import { STRING_TEMPLATES } from './strings';
import { STRUCTURE_TEMPLATES } from './structures';
import type { ProblemTemplate } from './types';

export type { CodingCategory, ProblemSpec, ProblemTemplate } from './types';

/** Every template, in a fixed order (task generation indexes into it). */
export const TEMPLATES: readonly ProblemTemplate[] = [...STRING_TEMPLATES, ...ARRAY_TEMPLATES, ...MATHS_TEMPLATES, ...PARSING_TEMPLATES, ...STRUCTURE_TEMPLATES];
