// The "route" task sets: short tools with one short parameter each, and a short request whose
// wording decides which tool to call. Small enough for a nano byte-level model (512-token context):
// with the compact tool rendering a route8 prompt is ≤ ~260 byte tokens and a call ≤ ~60
// (measured in routingTask.test.ts). Episodes are single-turn (done after the first assistant
// message), so an RL rollout is one generation. Success is the WHOLE call right (function and
// argument values, BFCL's checker); function choice is a reward component.
// Levels:
// - route4: weather, time (city), price (ticker), define (word). A value-type rule reaches 75 %.
// - route8: four value types × two tools each (city: weather/time, ticker: price/news, word:
//   define/translate, person: email/phone): the value type alone gives at most 50 %.
// - route8-multi: route8, and 35 % of the requests ask for two calls ("… and …").
// - route4b: the other four route8 tools (news, translate, email, phone), none of route4's: a
//   task set of the same shape and difficulty (value-type rule 75 %) whose skill route4 training
//   does not give; the merge table's disjoint-tools pair (route4 + route4b specialists).
// Splits (src/envs/splits.ts): values (routingPools.ts) and phrasings (routingTemplates.ts) are cut
// into fixed train / validation / test parts; the seed only picks within the split's part.
import type { ToolSpec } from '../types';
import { Rng } from '../../util/rng';
import { checkSplit, splitTaskSeed, type Split } from '../splits';
import { ROUTING_VALUES, type RoutingValueType } from './routingPools';
import { ROUTING_JOINERS, ROUTING_TEMPLATES } from './routingTemplates';
import type { FunctionCallingTask, GroundTruthCall } from './types';

export type RoutingLevel = 'route4' | 'route8' | 'route8-multi' | 'route4b';

export const ROUTING_LEVELS: readonly RoutingLevel[] = ['route4', 'route8', 'route8-multi', 'route4b'];

export function isRoutingLevel(x: unknown): x is RoutingLevel {
  return typeof x === 'string' && (ROUTING_LEVELS as readonly string[]).includes(x);
}

/** System instruction of routing episodes (kept short for the tiny model's context). */
export const ROUTING_SYSTEM_PROMPT = 'Call the right tool.';

/** Share of route8-multi requests that need two calls. */
export const MULTI_CALL_SHARE = 0.35;

function shortTool(name: string, description: string, param: string): ToolSpec {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties: { [param]: { type: 'string' } }, required: [param] } } };
}

/** One routing tool: its schema, its one parameter and the type of value that parameter takes. */
export interface RouteTool {
  tool: ToolSpec;
  param: string;
  valueType: RoutingValueType;
}

const route = (name: string, description: string, param: string, valueType: RoutingValueType): RouteTool => ({ tool: shortTool(name, description, param), param, valueType });

/** route4: today's four tools, unchanged (descriptions as before, so route4 prompts read as they did). */
const ROUTE4: readonly RouteTool[] = [
  route('weather', 'Weather in a city', 'city', 'city'),
  route('time', 'Local time in a city', 'city', 'city'),
  route('price', 'Stock price', 'ticker', 'ticker'),
  route('define', 'Meaning of a word', 'word', 'word'),
];

/** route8: one-word descriptions keep eight compact tool lines near 175 bytes. */
const ROUTE8: readonly RouteTool[] = [
  route('weather', 'sky', 'city', 'city'),
  route('time', 'clock', 'city', 'city'),
  route('price', 'quote', 'ticker', 'ticker'),
  route('news', 'headlines', 'ticker', 'ticker'),
  route('define', 'meaning', 'word', 'word'),
  route('translate', 'Spanish', 'word', 'word'),
  route('email', 'message', 'name', 'person'),
  route('phone', 'call', 'name', 'person'),
];

/** route4b: route8's tools that route4 lacks, described as plainly as route4's. */
const ROUTE4B: readonly RouteTool[] = [
  route('news', 'Headlines about a stock', 'ticker', 'ticker'),
  route('translate', 'Word in Spanish', 'word', 'word'),
  route('email', 'Email a person', 'name', 'person'),
  route('phone', 'Call a person', 'name', 'person'),
];

/** The tools of each level, always offered in this order. */
export const ROUTING_LEVEL_TOOLS: Readonly<Record<RoutingLevel, readonly RouteTool[]>> = { route4: ROUTE4, route8: ROUTE8, 'route8-multi': ROUTE8, route4b: ROUTE4B };

/** The four route4 tools (the level most code and tests use). */
export const ROUTING_TOOLS: readonly ToolSpec[] = ROUTE4.map((r) => r.tool);

/**
 * One line per tool, `name(param, …): description` — a compact rendering for byte-level presets
 * whose context cannot hold the JSON schemas plus Qwen3's tool preamble (~1.2 KB for four tools).
 */
export function compactToolSignatures(tools: readonly ToolSpec[]): string {
  return tools.map((t) => `${t.function.name}(${Object.keys(t.function.parameters.properties ?? {}).join(', ')}): ${t.function.description}`).join('\n');
}

/** One request for one tool of the level, from the split's phrasings and values. */
function sampleRequest(rng: Rng, tools: readonly RouteTool[], split: Split): { text: string; phrasing: string; call: GroundTruthCall } {
  const r = rng.pick(tools);
  const name = r.tool.function.name;
  const value = rng.pick(ROUTING_VALUES[r.valueType][split]);
  const phrasing = rng.pick(ROUTING_TEMPLATES[name][split]);
  return { text: phrasing.replace('{x}', value), phrasing, call: { [name]: { [r.param]: [value] } } };
}

/** Joins two requests: the first loses its question mark ("weather in Oslo? and …" reads badly). */
function joinRequests(rng: Rng, split: Split, a: string, b: string): string {
  return rng.pick(ROUTING_JOINERS[split]).replace('{a}', a.replace(/\?$/, '')).replace('{b}', b);
}

/** Deterministic routing task: the same (level, seed, index, split) gives the same request. */
export function generateRoutingTask(seed: number, index: number, split: Split, level: RoutingLevel = 'route4'): FunctionCallingTask {
  checkSplit(split, 'generateRoutingTask');
  if (!isRoutingLevel(level)) throw new Error(`generateRoutingTask: unknown level ${JSON.stringify(level)}; use one of ${ROUTING_LEVELS.join(', ')}`);
  const rng = new Rng(splitTaskSeed(seed, index, split, 0x5047));
  const tools = ROUTING_LEVEL_TOOLS[level];
  const first = sampleRequest(rng, tools, split);
  let request = first.text;
  let groundTruth = [first.call];
  let phrasings = [first.phrasing];
  let category = 'route';
  if (level === 'route8-multi' && rng.next() < MULTI_CALL_SHARE) {
    // a second request for another tool (the same tool twice would be a parallel call of one function)
    let second = sampleRequest(rng, tools, split);
    while (Object.keys(second.call)[0] === Object.keys(first.call)[0]) second = sampleRequest(rng, tools, split);
    request = joinRequests(rng, split, first.text, second.text);
    groundTruth = [first.call, second.call];
    phrasings = [first.phrasing, second.phrasing];
    category = 'route_multi';
  }
  return {
    family: 'function-calling',
    id: `${level}-${split}-${seed >>> 0}-${index}`,
    category,
    check: groundTruth.length > 1 ? 'parallel' : 'simple',
    system: ROUTING_SYSTEM_PROMPT,
    question: [{ role: 'user', content: request }],
    tools: tools.map((t) => structuredClone(t.tool)),
    groundTruth,
    resultSeed: rng.nextU32(),
    singleTurn: true,
    phrasings,
  };
}
