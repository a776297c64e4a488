// Generates BFCL-style tasks from the API catalogue: simple, multiple (pick the right function
// among distractors), parallel (several calls of one function), parallel_multiple (several
// functions) and irrelevance (no offered function fits: answer in text).
// Splits, disjoint by construction (src/envs/splits.ts): a task of split S takes its argument
// values and sentence phrasings from S's parts of the catalogue pools (catalogue/pools.ts) and its
// opener/connector words from S's lists below. Tools (catalogue/toolSplits.ts): train, validation
// and test tasks offer only the TRAIN tools (20 of 28); the unseen-tools sets ({ tools: 'unseen' },
// unseenToolsFamily) ask for functions that no train or validation task ever offers — 4 for
// validation, 4 for test — which is what BFCL measures. They have no train split.
import type { ToolSpec } from '../types';
import { Rng } from '../../util/rng';
import { CATALOGUE, OPEN_REQUESTS, type CatalogueFunction, type Scenario } from './catalogue';
import { toolPools, type ToolsMode } from './catalogue/toolSplits';
import { canonicalJson } from '../../util/canonicalJson';
import { checkSplit, splitTaskSeed, type Split, type SplitLists } from '../splits';
import type { CatalogueCategory, FunctionCallingTask, GroundTruthCall } from './types';

/** Short system instruction; the tool schemas are rendered into the system block by the chat template. */
export const SYSTEM_PROMPT = 'You are a helpful assistant with access to functions. Call the functions the request needs; if none fits, answer in plain text without calling any.';

/** Share of each category in the default mix (sums to 1). */
export const CATEGORY_MIX: Readonly<Record<CatalogueCategory, number>> = {
  simple: 0.25,
  multiple: 0.25,
  parallel: 0.15,
  parallel_multiple: 0.15,
  irrelevance: 0.2,
};

/** Options of the generator. */
export interface GenerateOptions {
  /** Force one category instead of sampling from CATEGORY_MIX. */
  category?: CatalogueCategory;
  /** 'seen' (default): the train tools; 'unseen': the split's held-out tools (validation or test only). */
  tools?: ToolsMode;
}

/** Greetings before the request, per split ('' = none; shared: no greeting is not a phrasing). */
export const OPENERS: SplitLists<string> = {
  train: ['', '', '', 'Hi! ', 'Hey, ', 'Quick question: '],
  validation: ['', '', 'Hello. '],
  test: ['', '', 'Please help, '],
};
const MAX_PARALLEL_MULTIPLE_CALLS = 4;
/** Words that join the requests of a parallel task, per split. */
export const CONNECTORS: SplitLists<string> = { train: ['Also,', 'And', 'Then'], validation: ['After that,'], test: ['Plus,'] };

function sampleCategory(rng: Rng): CatalogueCategory {
  let u = rng.next();
  for (const [category, share] of Object.entries(CATEGORY_MIX) as [CatalogueCategory, number][]) {
    u -= share;
    if (u < 0) return category;
  }
  return 'simple';
}

function lowerFirst(sentence: string): string {
  return /^I\b/.test(sentence) ? sentence : sentence[0].toLowerCase() + sentence.slice(1);
}

/** Prefixes a greeting; after a comma the request continues in lower case. */
function withOpener(opener: string, request: string): string {
  return opener.endsWith(', ') ? opener + lowerFirst(request) : opener + request;
}

/** Joins several requests into one message with varied connectors. */
function joinRequests(rng: Rng, split: Split, requests: string[]): string {
  return requests.map((r, i) => (i === 0 ? r : `${rng.pick(CONNECTORS[split])} ${lowerFirst(r)}`)).join(' ');
}

function callOf(fn: CatalogueFunction, s: Scenario): GroundTruthCall {
  return { [fn.tool.function.name]: s.answer };
}

/** `count` scenarios of `fn` with pairwise different arguments (resampled on collision). */
function distinctScenarios(rng: Rng, split: Split, fn: CatalogueFunction, count: number): Scenario[] {
  const out: Scenario[] = [];
  const seen = new Set<string>();
  for (let tries = 0; out.length < count && tries < 50; tries++) {
    const s = fn.sample(rng, split);
    const key = canonicalJson(s.args);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(s);
  }
  return out;
}

/** Up to `count` functions of `offerable` other than `exclude`, one from `preferDomain` first when possible. */
function distractors(rng: Rng, offerable: readonly CatalogueFunction[], exclude: CatalogueFunction[], count: number, preferDomain?: string): CatalogueFunction[] {
  const pool = rng.shuffle(offerable.filter((f) => !exclude.includes(f)));
  const sameDomain = pool.filter((f) => f.domain === preferDomain);
  const ordered = [...sameDomain.slice(0, 1), ...pool.filter((f) => !sameDomain.slice(0, 1).includes(f))];
  return ordered.slice(0, count);
}

/** 1-3 APIs of `offerable` (default: the whole catalogue) of other domains than `wanted`: a request for `wanted` then fits none of them. */
export function toolsUnrelatedTo(rng: Rng, wanted: CatalogueFunction, offerable: readonly CatalogueFunction[] = CATALOGUE): CatalogueFunction[] {
  return rng.shuffle(offerable.filter((f) => f.domain !== wanted.domain)).slice(0, rng.int(1, 3));
}

interface Draft {
  request: string;
  offered: CatalogueFunction[];
  groundTruth: GroundTruthCall[];
}

/**
 * One task's draft. `targets`: the functions a task may ask for; `offerable`: those it may offer
 * as distractors (targets included). Values and phrasings come from `split`'s parts.
 */
function draftFor(rng: Rng, split: Split, category: CatalogueCategory, targets: readonly CatalogueFunction[], offerable: readonly CatalogueFunction[]): Draft {
  switch (category) {
    case 'simple': {
      const fn = rng.pick(targets);
      const s = fn.sample(rng, split);
      return { request: s.request, offered: [fn], groundTruth: [callOf(fn, s)] };
    }
    case 'multiple': {
      const fn = rng.pick(targets);
      const s = fn.sample(rng, split);
      return { request: s.request, offered: [fn, ...distractors(rng, offerable, [fn], rng.int(2, 4), fn.domain)], groundTruth: [callOf(fn, s)] };
    }
    case 'parallel': {
      const fn = rng.pick(targets);
      const scenarios = distinctScenarios(rng, split, fn, rng.int(2, 3));
      return { request: joinRequests(rng, split, scenarios.map((s) => s.request)), offered: [fn], groundTruth: scenarios.map((s) => callOf(fn, s)) };
    }
    case 'parallel_multiple': {
      const fns = rng.shuffle(targets).slice(0, rng.int(2, 3));
      const calls: { fn: CatalogueFunction; s: Scenario }[] = [];
      // One call per function, and one function may be asked twice; at most MAX_PARALLEL_MULTIPLE_CALLS calls.
      const doubled = rng.next() < 0.4 ? rng.int(0, fns.length - 1) : -1;
      fns.forEach((fn, i) => {
        for (const s of distinctScenarios(rng, split, fn, i === doubled && fns.length < MAX_PARALLEL_MULTIPLE_CALLS ? 2 : 1)) calls.push({ fn, s });
      });
      const ordered = rng.shuffle(calls);
      return {
        request: joinRequests(rng, split, ordered.map((c) => c.s.request)),
        offered: [...fns, ...distractors(rng, offerable, fns, rng.int(0, 2))],
        groundTruth: ordered.map((c) => callOf(c.fn, c.s)),
      };
    }
    case 'irrelevance': {
      // the offered tools are targets (for the unseen set: new schemas to recognise as unfit)
      if (rng.next() < 0.5) return { request: rng.pick(OPEN_REQUESTS[split]), offered: rng.shuffle(targets).slice(0, rng.int(1, 3)), groundTruth: [] };
      const wanted = rng.pick(offerable);
      const offered = toolsUnrelatedTo(rng, wanted, targets);
      if (offered.length === 0) return { request: rng.pick(OPEN_REQUESTS[split]), offered: rng.shuffle(targets).slice(0, rng.int(1, 3)), groundTruth: [] };
      return { request: wanted.sample(rng, split).request, offered, groundTruth: [] };
    }
  }
}

/** Deterministic: the same (seed, index, split, options) always gives the same task. */
export function generateFunctionCallingTask(seed: number, index: number, split: Split, options: GenerateOptions = {}): FunctionCallingTask {
  checkSplit(split, 'generateFunctionCallingTask');
  const mode = options.tools ?? 'seen';
  const { targets, offerable } = toolPools(split, mode);
  const rng = new Rng(splitTaskSeed(seed, index, split, mode === 'unseen' ? 0x7e11 : 0));
  const category = options.category ?? sampleCategory(rng);
  const draft = draftFor(rng, split, category, targets, offerable);
  const tools: ToolSpec[] = rng.shuffle(draft.offered).map((f) => structuredClone(f.tool));
  return {
    family: 'function-calling',
    id: `fc-${mode === 'unseen' ? 'unseen-' : ''}${split}-${seed >>> 0}-${index}`,
    category,
    check: category === 'parallel_multiple' ? 'parallel' : category,
    system: SYSTEM_PROMPT,
    question: [{ role: 'user', content: withOpener(rng.pick(OPENERS[split]), draft.request) }],
    tools,
    groundTruth: draft.groundTruth,
    resultSeed: rng.nextU32(),
    singleTurn: false,
  };
}
