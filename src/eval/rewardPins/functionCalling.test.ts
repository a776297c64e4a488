// Pins the exact reward of cheap agents on hand-built function-calling tasks (routing-style and one
// per BFCL-style check), worked out by hand from the rules in src/envs/functionCalling/environment.ts:
//   total = 0.1·format + 0.2·function_choice + 0.2·arguments + 0.5·exact_match, success = exact_match,
//   format = (every turn well-formed) AND (a parsed call was made; irrelevance: a real text answer).
// The tasks are written out here (not generated), so generator changes cannot move the pins.
import { describe, expect, it } from 'vitest';
import { BROKEN_CALL_TEXT, formatBreakingPolicy, randomPolicy } from '../baselinePolicies';
import { formatToolCalls } from '../../tokenizer/toolCalls';
import type { Policy, ToolSpec } from '../../envs/types';
import { FunctionCallingEnv } from '../../envs/functionCalling/environment';
import { functionCallingExpert } from '../../envs/functionCalling/expertPolicy';
import { functionCallingFamily, routingFamily } from '../../envs/functionCalling/family';
import { generateFunctionCallingTask } from '../../envs/functionCalling/generateTask';
import { playEpisode } from '../../envs/functionCalling/testHelpers';
import { GENERATED_CATEGORIES, type FunctionCallingTask, type GroundTruthCall } from '../../envs/functionCalling/types';

const tool = (name: string, params: string[]): ToolSpec => ({
  type: 'function',
  function: { name, description: `${name} tool`, parameters: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])), required: params } },
});

function task(category: string, check: FunctionCallingTask['check'], request: string, tools: ToolSpec[], groundTruth: GroundTruthCall[], singleTurn = false): FunctionCallingTask {
  return { family: 'function-calling', id: `pin-${category}`, category, check, system: 'Call the right tool.', question: [{ role: 'user', content: request }], tools, groundTruth, resultSeed: 7, singleTurn };
}

const ROUTE = task('route', 'simple', 'weather in Paris?', [tool('weather', ['city']), tool('time', ['city']), tool('price', ['ticker']), tool('define', ['word'])], [{ weather: { city: ['Paris'] } }], true);
const SIMPLE = task('simple', 'simple', 'What is the weather in Oslo?', [tool('get_weather', ['city'])], [{ get_weather: { city: ['Oslo'] } }]);
const MULTIPLE = task('multiple', 'multiple', 'What is the weather in Oslo?', [tool('get_stock_price', ['ticker']), tool('get_weather', ['city']), tool('translate', ['text'])], [{ get_weather: { city: ['Oslo'] } }]);
const PARALLEL = task('parallel', 'parallel', 'Weather in Oslo and in Rome?', [tool('get_weather', ['city'])], [{ get_weather: { city: ['Oslo'] } }, { get_weather: { city: ['Rome'] } }]);
const IRRELEVANCE = task('irrelevance', 'irrelevance', 'Write a haiku about autumn leaves.', [tool('get_stock_price', ['ticker'])], []);
const ALL_TASKS = [ROUTE, SIMPLE, MULTIPLE, PARALLEL, IRRELEVANCE];

const ZERO = { format: 0, function_choice: 0, arguments: 0, exact_match: 0 };
const FULL = { format: 1, function_choice: 1, arguments: 1, exact_match: 1 };

const say = (text: string): Policy => async () => text;
/** Calls in the first turn, then a short closing text (multi-turn tasks need a final answer). */
const callsThenDone = (calls: { name: string; arguments: Record<string, unknown> }[]): Policy => async (messages) =>
  messages.some((m) => m.role === 'assistant') ? 'Here are the results.' : formatToolCalls(calls);

async function play(t: FunctionCallingTask, policy: Policy) {
  const { last, transcript } = await playEpisode(t, policy, new FunctionCallingEnv());
  return { ...last, assistant: transcript.filter((m) => m.role === 'assistant').map((m) => m.content) };
}

function expectReward(r: Awaited<ReturnType<typeof play>>, components: Record<string, number>, total: number, success: boolean): void {
  expect(r.reward.components).toEqual(components);
  expect(r.reward.total).toBeCloseTo(total, 12);
  expect(r.info.success).toBe(success);
}

describe('function-calling reward pins', () => {
  it('do-nothing ("" or "ok") scores 0 on every task, irrelevance included', async () => {
    for (const t of ALL_TASKS) {
      for (const text of ['', 'ok']) expectReward(await play(t, say(text)), ZERO, 0, false);
    }
  });

  it('a do-nothing agent scores 0 on every generated category of the mix and on the routing set', async () => {
    for (const category of GENERATED_CATEGORIES) {
      for (let i = 0; i < 4; i++) {
        const r = await play(generateFunctionCallingTask(5, i, 'train', { category }), say('ok'));
        expect(r.reward.total, category).toBe(0);
      }
    }
    for (let i = 0; i < 8; i++) expect((await play(routingFamily.generateTask(5, i, 'train'), say('ok'))).reward.total).toBe(0);
  });

  it('format-breaking (an unclosed, unparsable call every turn) scores 0 on every task', async () => {
    for (const t of ALL_TASKS) {
      const r = await play(t, formatBreakingPolicy());
      expect(r.assistant[0]).toBe(BROKEN_CALL_TEXT);
      expectReward(r, ZERO, 0, false);
    }
  });

  it('the expert reaches full reward on every hand-built task', async () => {
    for (const t of ALL_TASKS) expectReward(await play(t, functionCallingExpert(t, 1)), FULL, 1, true);
  });

  it('success needs the whole call: the right function with a wrong argument is not a success (routing too)', async () => {
    // weather(city="clonnn"): function_choice 1, arguments 0/1, exact 0, format 1 → 0.1 + 0.2 = 0.3
    expectReward(await play(ROUTE, say(formatToolCalls([{ name: 'weather', arguments: { city: 'clonnn' } }]))), { format: 1, function_choice: 1, arguments: 0, exact_match: 0 }, 0.3, false);
    // time(city="Paris"): wrong function → only the well-formed call pays: 0.1
    expectReward(await play(ROUTE, say(formatToolCalls([{ name: 'time', arguments: { city: 'Paris' } }]))), { ...ZERO, format: 1 }, 0.1, false);
  });

  it('guess-everything = call every offered function (this family has no write tools, so it is also call-every-tool)', async () => {
    const everyTool = (t: FunctionCallingTask, value: string) => t.tools.map((x) => ({ name: x.function.name, arguments: { [Object.keys(x.function.parameters.properties ?? {})[0]]: value } }));
    // route: 4 calls with "Paris"; names overlap 1 of max(1, 4) → 0.25; the weather call's city is right:
    // 1 matched param ÷ max(1, 4) → 0.25; 4 calls ≠ 1 expected → exact 0. 0.1 + 0.2·0.25 + 0.2·0.25 = 0.2
    expectReward(await play(ROUTE, callsThenDone(everyTool(ROUTE, 'Paris'))), { format: 1, function_choice: 0.25, arguments: 0.25, exact_match: 0 }, 0.2, false);
    // multiple: 3 calls with "Oslo": 1/3 names, 1/3 arguments → 0.1 + 0.2/3 + 0.2/3 = 0.2333…
    expectReward(await play(MULTIPLE, callsThenDone(everyTool(MULTIPLE, 'Oslo'))), { format: 1, function_choice: 1 / 3, arguments: 1 / 3, exact_match: 0 }, 0.1 + 0.4 / 3, false);
    // parallel: get_weather for four cities (the two asked and two more): names 2 of max(2, 4) → 0.5;
    // Oslo and Rome match → 2 ÷ 4 = 0.5; 4 calls ≠ 2 → exact 0. 0.1 + 0.1 + 0.1 = 0.3
    const cities = ['Oslo', 'Rome', 'Paris', 'Tokyo'].map((city) => ({ name: 'get_weather', arguments: { city } }));
    expectReward(await play(PARALLEL, callsThenDone(cities)), { format: 1, function_choice: 0.5, arguments: 0.5, exact_match: 0 }, 0.3, false);
    // irrelevance: any call attempt is wrong → every component 0 (format too: no step toward the task)
    expectReward(await play(IRRELEVANCE, callsThenDone(everyTool(IRRELEVANCE, 'autumn'))), ZERO, 0, false);
  });

  it('irrelevance pays a real text answer (≥ 3 distinct words), never an empty or token reply', async () => {
    expectReward(await play(IRRELEVANCE, say("No tool fits; here is a haiku: red leaves drift down slow.")), FULL, 1, true);
    for (const token of ['ok', 'Sure.', 'no no no', '42']) expectReward(await play(IRRELEVANCE, say(token)), ZERO, 0, false);
    // the never-call agent that writes a sentence solves irrelevance and nothing else (BFCL's semantics)
    for (const t of [ROUTE, SIMPLE, MULTIPLE, PARALLEL]) expectReward(await play(t, say('I cannot help with that request.')), ZERO, 0, false);
  });

  it('the seeded random baseline (src/eval/baselinePolicies.ts), traced by hand', async () => {
    // route, seed 1: first turn is prose "done the check" → single-turn task needs a call → 0
    let r = await play(ROUTE, randomPolicy(1));
    expect(r.assistant).toEqual(['done the check']);
    expectReward(r, ZERO, 0, false);
    // route, seed 2: weather(city="maybe thanks"): right function, wrong value → 0.1 + 0.2 = 0.3
    r = await play(ROUTE, randomPolicy(2));
    expect(r.assistant).toEqual([formatToolCalls([{ name: 'weather', arguments: { city: 'maybe thanks' } }])]);
    expectReward(r, { format: 1, function_choice: 1, arguments: 0, exact_match: 0 }, 0.3, false);
    // route, seed 5: time(city="order order"): wrong function, well-formed call → 0.1
    r = await play(ROUTE, randomPolicy(5));
    expect(r.assistant).toEqual([formatToolCalls([{ name: 'time', arguments: { city: 'order order' } }])]);
    expectReward(r, { ...ZERO, format: 1 }, 0.1, false);
    // multiple, seed 2: first calling turn get_stock_price(…) → wrong function (later turns are not
    // scored); all 8 turns are well-formed calls → 0.1
    r = await play(MULTIPLE, randomPolicy(2));
    expect(r.assistant[0]).toBe(formatToolCalls([{ name: 'get_stock_price', arguments: { ticker: 'maybe thanks' } }]));
    expectReward(r, { ...ZERO, format: 1 }, 0.1, false);
    // multiple, seed 3: first calling turn get_weather(city="item now") → 0.1 + 0.2 = 0.3
    r = await play(MULTIPLE, randomPolicy(3));
    expect(r.assistant[0]).toBe(formatToolCalls([{ name: 'get_weather', arguments: { city: 'item now' } }]));
    expectReward(r, { format: 1, function_choice: 1, arguments: 0, exact_match: 0 }, 0.3, false);
    // parallel, seed 4: one get_weather call of two expected: names 1 ÷ max(2, 1) = 0.5, value wrong → 0.1 + 0.1 = 0.2
    r = await play(PARALLEL, randomPolicy(4));
    expect(r.assistant[0]).toBe(formatToolCalls([{ name: 'get_weather', arguments: { city: 'value data data' } }]));
    expectReward(r, { format: 1, function_choice: 0.5, arguments: 0, exact_match: 0 }, 0.2, false);
    // irrelevance, seed 1: three distinct words and no call → solved (abstaining is the task) → 1
    r = await play(IRRELEVANCE, randomPolicy(1));
    expect(r.assistant).toEqual(['done the check']);
    expectReward(r, FULL, 1, true);
    // irrelevance, seed 2: calls a tool → 0
    expectReward(await play(IRRELEVANCE, randomPolicy(2)), ZERO, 0, false);
  });

  it('the mix family and the routing family share these rules', () => {
    expect(functionCallingFamily.createEnv()).toBeInstanceOf(FunctionCallingEnv);
    expect(routingFamily.createEnv()).toBeInstanceOf(FunctionCallingEnv);
  });
});
