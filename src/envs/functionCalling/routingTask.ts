// The "route" task set: four tools with one short parameter each, and a short request whose
// wording decides which tool to call. Small enough for a tiny byte-level model (T ≈ 256-512):
// the four tool schemas are ~700 bytes of JSON and requests are under 30 characters. Episodes are
// single-turn (done after the first assistant message) so an RL rollout is one generation.
// Success is the whole call right (exact_match, as for every function-calling task); function_choice is a reported component.
import type { ToolSpec } from '../types';
import { Rng } from '../../util/rng';
import { taskSeed } from './seeding';
import type { FunctionCallingTask } from './types';

/** System instruction of routing episodes (kept short for the tiny model's context). */
export const ROUTING_SYSTEM_PROMPT = 'Call the right tool.';

function shortTool(name: string, description: string, param: string): ToolSpec {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties: { [param]: { type: 'string' } }, required: [param] } } };
}

/** The four routing tools, always offered in this order. */
export const ROUTING_TOOLS: readonly ToolSpec[] = [
  shortTool('weather', 'Weather in a city', 'city'),
  shortTool('time', 'Local time in a city', 'city'),
  shortTool('price', 'Stock price', 'ticker'),
  shortTool('define', 'Meaning of a word', 'word'),
];

const CITIES = ['Paris', 'Tokyo', 'Oslo', 'Rome', 'Lima', 'Cairo', 'Delhi', 'Seoul', 'Berlin', 'Madrid', 'Dublin', 'Vienna', 'Prague', 'Sydney', 'Boston', 'Denver', 'Austin', 'Miami', 'Quito', 'Nairobi'];
const TICKERS = ['AAPL', 'MSFT', 'TSLA', 'AMZN', 'NVDA', 'META', 'IBM', 'INTC', 'ORCL', 'NFLX', 'KO', 'DIS'];
const WORDS = ['apple', 'river', 'light', 'stone', 'dream', 'cloud', 'music', 'bridge', 'forest', 'honey', 'ocean', 'garden'];

/** Per tool: its parameter, the value pool and the request templates ({x} = the value). */
const ROUTES: readonly { tool: string; param: string; values: readonly string[]; templates: readonly string[] }[] = [
  { tool: 'weather', param: 'city', values: CITIES, templates: ['weather in {x}?', '{x} weather?', 'is it raining in {x}?'] },
  { tool: 'time', param: 'city', values: CITIES, templates: ['time in {x}?', 'what time is it in {x}?', '{x} time?'] },
  { tool: 'price', param: 'ticker', values: TICKERS, templates: ['price of {x}?', '{x} stock price?', 'quote for {x}'] },
  { tool: 'define', param: 'word', values: WORDS, templates: ['define {x}', 'meaning of {x}?', 'what does {x} mean?'] },
];

/**
 * One line per tool, `name(param, …): description` — a compact rendering for byte-level presets
 * whose context cannot hold the JSON schemas plus Qwen3's tool preamble (~1.2 KB for these four).
 */
export function compactToolSignatures(tools: readonly ToolSpec[]): string {
  return tools.map((t) => `${t.function.name}(${Object.keys(t.function.parameters.properties ?? {}).join(', ')}): ${t.function.description}`).join('\n');
}

/** Deterministic routing task: the same (seed, index, split) gives the same request. */
export function generateRoutingTask(seed: number, index: number, split: 'train' | 'heldout'): FunctionCallingTask {
  const rng = new Rng(taskSeed(seed, index, split, 0x5047));
  const route = rng.pick(ROUTES);
  const value = rng.pick(route.values);
  const request = rng.pick(route.templates).replace('{x}', value);
  return {
    family: 'function-calling',
    id: `route-${split}-${seed >>> 0}-${index}`,
    category: 'route',
    check: 'simple',
    system: ROUTING_SYSTEM_PROMPT,
    question: [{ role: 'user', content: request }],
    tools: ROUTING_TOOLS.map((t) => structuredClone(t)),
    groundTruth: [{ [route.tool]: { [route.param]: [value] } }],
    resultSeed: rng.nextU32(),
    singleTurn: true,
  };
}
