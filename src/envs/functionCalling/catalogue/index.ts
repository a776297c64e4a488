// The API catalogue the task generators draw from, plus requests that no API can serve.
import { partitionPool, type SplitLists } from '../../splits';
import { FINANCE_FUNCTIONS } from './finance';
import { LIFESTYLE_FUNCTIONS } from './lifestyle';
import { MATHS_UNITS_FUNCTIONS } from './mathsUnits';
import { PRODUCTIVITY_FUNCTIONS } from './productivity';
import type { CatalogueFunction } from './types';
import { WEATHER_TRAVEL_FUNCTIONS } from './weatherTravel';

export type { CatalogueFunction, Domain, Scenario } from './types';

/** Every catalogue API (28 functions over 11 domains). */
export const CATALOGUE: readonly CatalogueFunction[] = [
  ...WEATHER_TRAVEL_FUNCTIONS,
  ...MATHS_UNITS_FUNCTIONS,
  ...FINANCE_FUNCTIONS,
  ...PRODUCTIVITY_FUNCTIONS,
  ...LIFESTYLE_FUNCTIONS,
];

const BY_NAME = new Map(CATALOGUE.map((f) => [f.tool.function.name, f]));

/** The catalogue API of that name, if any (loaded BFCL functions are not in the catalogue). */
export function catalogueFunction(name: string): CatalogueFunction | undefined {
  return BY_NAME.get(name);
}

/** Requests outside every domain (the right move is to answer in text without calling anything), cut per split. */
export const OPEN_REQUESTS: SplitLists<string> = partitionPool([
  'Write a haiku about autumn leaves.',
  'Who wrote Pride and Prejudice?',
  'Explain what a black hole is in two sentences.',
  'Tell me a joke about programmers.',
  'Suggest a name for a golden retriever puppy.',
  'What is the difference between a list and a tuple in Python?',
  'Summarise the plot of Romeo and Juliet in one line.',
  'Give me three tips for sleeping better.',
  'What does the word "serendipity" mean?',
  'Why is the sky blue?',
  'Help me write a polite message declining a party invitation.',
  'Which planet is closest to the sun?',
  'Recommend a classic science-fiction novel.',
  'How many legs does a spider have?',
  'Rewrite this more formally: "gonna be late, sorry".',
  'What rhymes with orange?',
  'Give me a fun fact about octopuses.',
  'Draft a two-line birthday card for my aunt.',
  'Is a tomato a fruit or a vegetable?',
  'Describe the taste of a mango to someone who never had one.',
], 'catalogue/open-request');
