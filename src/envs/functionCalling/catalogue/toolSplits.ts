// Which catalogue functions each split may use. Train, validation and test tasks of the BFCL-style
// mix offer only the TRAIN tools (seen tools, new values and phrasings); the unseen-tools sets ask
// for functions that never appear in a train or validation task — one per area where possible —
// so a model meets their schemas for the first time (what BFCL measures). Cut by hand, by name.
import type { Split } from '../../splits';
import { CATALOGUE } from './index';
import type { CatalogueFunction } from './types';

/** Held-out functions of the unseen-tools sets: validation (for choosing settings) and test (reported). */
export const UNSEEN_TOOL_NAMES: Readonly<Record<'validation' | 'test', readonly string[]>> = {
  validation: ['get_weather_forecast', 'calculate_compound_interest', 'list_calendar_events', 'get_recipe'],
  test: ['get_distance', 'convert_temperature', 'send_text_message', 'get_population'],
};

/** 'seen': the train tools (any split); 'unseen': the split's held-out tools (validation or test). */
export type ToolsMode = 'seen' | 'unseen';

function byNames(names: readonly string[]): CatalogueFunction[] {
  return names.map((name) => {
    const fn = CATALOGUE.find((f) => f.tool.function.name === name);
    if (fn === undefined) throw new Error(`toolSplits: no catalogue function named ${name}`);
    return fn;
  });
}

const HELD_OUT = new Set([...UNSEEN_TOOL_NAMES.validation, ...UNSEEN_TOOL_NAMES.test]);

/** The 20 catalogue functions train tasks use (and seen-tools validation/test tasks). */
export const TRAIN_TOOLS: readonly CatalogueFunction[] = CATALOGUE.filter((f) => !HELD_OUT.has(f.tool.function.name));

const UNSEEN = { validation: byNames(UNSEEN_TOOL_NAMES.validation), test: byNames(UNSEEN_TOOL_NAMES.test) };

/** `targets`: what a task of (split, mode) may ask for; `offerable`: what it may also offer as distractors. */
export function toolPools(split: Split, mode: ToolsMode): { targets: readonly CatalogueFunction[]; offerable: readonly CatalogueFunction[] } {
  if (mode === 'seen') return { targets: TRAIN_TOOLS, offerable: TRAIN_TOOLS };
  if (split === 'train') {
    throw new Error("the unseen-tools set has no train split (its functions are never trained on): train on the BFCL-style mix's train split and evaluate unseen tools on 'validation' or 'test'");
  }
  return { targets: UNSEEN[split], offerable: [...TRAIN_TOOLS, ...UNSEEN[split]] };
}
