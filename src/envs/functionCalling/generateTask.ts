// Generates BFCL-style tasks from the API catalogue: simple, multiple (pick the right function
// among distractors), parallel (several calls of one function), parallel_multiple (several
// functions) and irrelevance (no offered function fits: answer in text).
import type { ToolSpec } from '../types';
import { Rng } from '../../util/rng';
import { CATALOGUE, OPEN_REQUESTS, type CatalogueFunction, type Scenario } from './catalogue';
import { canonicalJson } from '../../util/canonicalJson';
import { splitTaskSeed, type Split } from '../splits';
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
}

const OPENERS = ['', '', '', 'Hi! ', 'Hey, ', 'Quick question: ', 'Hello. ', 'Please help, '];
const MAX_PARALLEL_MULTIPLE_CALLS = 4;
const CONNECTORS = ['Also,', 'And', 'Then', 'After that,', 'Plus,'];

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
function joinRequests(rng: Rng, requests: string[]): string {
  return requests.map((r, i) => (i === 0 ? r : `${rng.pick(CONNECTORS)} ${lowerFirst(r)}`)).join(' ');
}

function callOf(fn: CatalogueFunction, s: Scenario): GroundTruthCall {
  return { [fn.tool.function.name]: s.answer };
}

/** `count` scenarios of `fn` with pairwise different arguments (resampled on collision). */
function distinctScenarios(rng: Rng, fn: CatalogueFunction, count: number): Scenario[] {
  const out: Scenario[] = [];
  const seen = new Set<string>();
  for (let tries = 0; out.length < count && tries < 50; tries++) {
    const s = fn.sample(rng);
    const key = canonicalJson(s.args);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(s);
  }
  return out;
}

/** Up to `count` catalogue functions other than `exclude`, one from `preferDomain` first when possible. */
function distractors(rng: Rng, exclude: CatalogueFunction[], count: number, preferDomain?: string): CatalogueFunction[] {
  const pool = rng.shuffle(CATALOGUE.filter((f) => !exclude.includes(f)));
  const sameDomain = pool.filter((f) => f.domain === preferDomain);
  const ordered = [...sameDomain.slice(0, 1), ...pool.filter((f) => !sameDomain.slice(0, 1).includes(f))];
  return ordered.slice(0, count);
}

/** 1-3 APIs of other domains than `wanted`: a request for `wanted` then fits none of them. */
export function toolsUnrelatedTo(rng: Rng, wanted: CatalogueFunction): CatalogueFunction[] {
  return rng.shuffle(CATALOGUE.filter((f) => f.domain !== wanted.domain)).slice(0, rng.int(1, 3));
}

interface Draft {
  request: string;
  offered: CatalogueFunction[];
  groundTruth: GroundTruthCall[];
}

function draftFor(rng: Rng, category: CatalogueCategory): Draft {
  switch (category) {
    case 'simple': {
      const fn = rng.pick(CATALOGUE);
      const s = fn.sample(rng);
      return { request: s.request, offered: [fn], groundTruth: [callOf(fn, s)] };
    }
    case 'multiple': {
      const fn = rng.pick(CATALOGUE);
      const s = fn.sample(rng);
      return { request: s.request, offered: [fn, ...distractors(rng, [fn], rng.int(2, 4), fn.domain)], groundTruth: [callOf(fn, s)] };
    }
    case 'parallel': {
      const fn = rng.pick(CATALOGUE);
      const scenarios = distinctScenarios(rng, fn, rng.int(2, 3));
      return { request: joinRequests(rng, scenarios.map((s) => s.request)), offered: [fn], groundTruth: scenarios.map((s) => callOf(fn, s)) };
    }
    case 'parallel_multiple': {
      const fns = rng.shuffle(CATALOGUE).slice(0, rng.int(2, 3));
      const calls: { fn: CatalogueFunction; s: Scenario }[] = [];
      // One call per function, and one function may be asked twice; at most MAX_PARALLEL_MULTIPLE_CALLS calls.
      const doubled = rng.next() < 0.4 ? rng.int(0, fns.length - 1) : -1;
      fns.forEach((fn, i) => {
        for (const s of distinctScenarios(rng, fn, i === doubled && fns.length < MAX_PARALLEL_MULTIPLE_CALLS ? 2 : 1)) calls.push({ fn, s });
      });
      const ordered = rng.shuffle(calls);
      return {
        request: joinRequests(rng, ordered.map((c) => c.s.request)),
        offered: [...fns, ...distractors(rng, fns, rng.int(0, 2))],
        groundTruth: ordered.map((c) => callOf(c.fn, c.s)),
      };
    }
    case 'irrelevance': {
      if (rng.next() < 0.5) return { request: rng.pick(OPEN_REQUESTS), offered: rng.shuffle(CATALOGUE).slice(0, rng.int(1, 3)), groundTruth: [] };
      const wanted = rng.pick(CATALOGUE);
      return { request: wanted.sample(rng).request, offered: toolsUnrelatedTo(rng, wanted), groundTruth: [] };
    }
  }
}

/** Deterministic: the same (seed, index, split, options) always gives the same task. */
export function generateFunctionCallingTask(seed: number, index: number, split: Split, options: GenerateOptions = {}): FunctionCallingTask {
  const rng = new Rng(splitTaskSeed(seed, index, split));
  const category = options.category ?? sampleCategory(rng);
  const draft = draftFor(rng, category);
  const tools: ToolSpec[] = rng.shuffle(draft.offered).map((f) => structuredClone(f.tool));
  return {
    family: 'function-calling',
    id: `fc-${split}-${seed >>> 0}-${index}`,
    category,
    check: category === 'parallel_multiple' ? 'parallel' : category,
    system: SYSTEM_PROMPT,
    question: [{ role: 'user', content: withOpener(rng.pick(OPENERS), draft.request) }],
    tools,
    groundTruth: draft.groundTruth,
    resultSeed: rng.nextU32(),
    singleTurn: false,
  };
}
