import { describe, expect, it } from 'vitest';
import { formatToolCalls } from '../../tokenizer/toolCalls';
import type { ChatMessage } from '../types';
import { DEFAULT_WEIGHTS, FunctionCallingEnv, MAX_CALL_TAGS_PARSED, MAX_CALLS_PER_TURN } from './environment';
import { canonicalCall, functionCallingExpert } from './expertPolicy';
import { generateFunctionCallingTask } from './generateTask';
import { generateRoutingTask } from './routingTask';
import type { FunctionCallingTask } from './types';

const simple = generateFunctionCallingTask(3, 0, 'train', { category: 'simple' });
const expected = canonicalCall(simple.groundTruth[0], simple.tools);
const callText = formatToolCalls([expected]);

function started(task: FunctionCallingTask = simple, limits = {}): FunctionCallingEnv {
  const env = new FunctionCallingEnv(limits);
  env.reset(task);
  return env;
}

describe('FunctionCallingEnv episode', () => {
  it('reset gives a short system instruction, the user request and the tools', () => {
    const env = new FunctionCallingEnv();
    const { messages, tools } = env.reset(simple);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[0].content.length).toBeLessThan(200);
    expect(messages[0].content).not.toContain('{');
    expect(tools.map((t) => t.function.name)).toEqual(simple.tools.map((t) => t.function.name));
  });

  it('runs calls → tool results → final text answer, with full reward', async () => {
    const env = started();
    const first = await env.step(callText);
    expect(first.done).toBe(false);
    expect(first.messages).toHaveLength(1);
    expect(first.messages[0]).toMatchObject({ role: 'tool', name: expected.name });
    expect(() => JSON.parse(first.messages[0].content)).not.toThrow();
    expect(first.info.success).toBe(true);
    const last = await env.step('Here is your answer.');
    expect(last.done).toBe(true);
    expect(last.messages).toEqual([]);
    expect(last.reward.components).toEqual({ format: 1, function_choice: 1, arguments: 1, exact_match: 1 });
    expect(last.reward.total).toBeCloseTo(1);
    expect(last.reward.weights).toEqual(DEFAULT_WEIGHTS);
  });

  it('simulated results are deterministic and depend on the arguments', async () => {
    const a = await started().step(callText);
    const b = await started().step(callText);
    expect(a.messages[0].content).toBe(b.messages[0].content);
    const weather = generateFunctionCallingTask(1, 4, 'train', { category: 'simple' });
    const call = canonicalCall(weather.groundTruth[0], weather.tools);
    const other = { ...call, arguments: { ...call.arguments, [Object.keys(call.arguments)[0]]: 'Somewhere else' } };
    const x = await started(weather).step(formatToolCalls([call]));
    const y = await started(weather).step(formatToolCalls([other]));
    expect(x.messages[0].content).not.toBe(y.messages[0].content);
  });

  it('turns unknown tools, wrong types, missing and unknown arguments into readable tool errors', async () => {
    const name = expected.name;
    const required = simple.tools[0].function.parameters.required ?? [];
    const cases: [string, RegExp][] = [
      [formatToolCalls([{ name: 'launch_rocket', arguments: {} }]), /unknown tool "launch_rocket"; available tools: /],
      [formatToolCalls([{ name, arguments: { ...expected.arguments, [required[0]]: { nested: true } } }]), /must be of type/],
      [formatToolCalls([{ name, arguments: {} }]), new RegExp(`missing required argument "${required[0]}"`)],
      [formatToolCalls([{ name, arguments: { ...expected.arguments, colour: 'red' } }]), /unknown argument "colour"; accepted: /],
      [`<tool_call>{"name": "${name}", "arguments": ${JSON.stringify(expected.arguments).replace(/^\{/, '{"constructor": 1, ')}}</tool_call>`, /unknown argument "constructor"/],
      [`<tool_call>{"name": "${name}", "arguments": ${JSON.stringify(expected.arguments).replace(/^\{/, '{"__proto__": {"x": 1}, ')}}</tool_call>`, /unknown argument "__proto__"/],
      [formatToolCalls([{ name: 'toString', arguments: {} }]), /unknown tool "toString"/],
    ];
    for (const [text, pattern] of cases) {
      const r = await started().step(text);
      expect(r.done).toBe(false);
      expect(r.messages[0].role).toBe('tool');
      expect(r.messages[0].content).toMatch(pattern);
      expect(r.info.success).toBe(false);
    }
  });

  it('an enum violation is reported with the allowed values', async () => {
    const task = generateRoutingTask(0, 0, 'train');
    const env = started({ ...task, tools: [{ type: 'function', function: { name: 'pick', description: '', parameters: { type: 'object', properties: { c: { type: 'string', enum: ['a', 'b'] } }, required: ['c'] } } }] });
    const r = await env.step(formatToolCalls([{ name: 'pick', arguments: { c: 'z' } }]));
    expect(r.messages[0].content).toMatch(/must be one of \["a","b"\]/);
  });

  it('malformed call blocks get an error observation and format 0', async () => {
    const env = started();
    const r = await env.step('<tool_call>{"name": "x", "arguments": {</tool_call>');
    expect(r.done).toBe(false);
    expect(r.messages[0].content).toMatch(/^Error: tool call 1: body is not valid JSON/);
    expect(r.reward.components.format).toBe(0);
    // BFCL single-turn: the first calling turn is what counts, so a later good call cannot rescue it.
    await env.step(callText);
    const end = await env.step('done');
    expect(end.reward.components.format).toBe(0);
    expect(end.reward.components.exact_match).toBe(0);
  });

  it('a step after the episode ended returns an error in info, not a throw', async () => {
    const env = started();
    await env.step('No tools needed.');
    const after = await env.step('more text');
    expect(after.done).toBe(true);
    expect(after.messages).toEqual([]);
    expect(String(after.info.error)).toMatch(/already ended/);
    const fresh = new FunctionCallingEnv();
    const before = await fresh.step('hello');
    expect(String(before.info.error)).toMatch(/before reset/);
  });

  it('ends at maxTurns when the model keeps calling', async () => {
    const env = started(simple, { maxTurns: 3 });
    let r = await env.step(callText);
    r = await env.step(callText);
    expect(r.done).toBe(false);
    r = await env.step(callText);
    expect(r.done).toBe(true);
    expect(r.info.limit).toBe('max-turns');
    expect(r.info.success).toBe(true);
  });

  it('handles a 1 MB output: truncated observations, no throw', async () => {
    const huge = 'x'.repeat(1 << 20);
    const env = started(simple, { maxToolOutputChars: 500 });
    const r = await env.step(formatToolCalls([{ name: huge, arguments: { a: huge } }]));
    expect(r.messages[0].content.length).toBeLessThan(700);
    expect(r.messages[0].name?.length).toBeLessThanOrEqual(64);
    const unclosed = await started(simple, { maxToolOutputChars: 500 }).step(`<tool_call>${huge}`);
    expect(unclosed.messages[0].content.length).toBeLessThan(700);
    const text = await started(simple, { maxToolOutputChars: 500 }).step(huge);
    expect(text.done).toBe(true);
    expect(String(text.info.finalAnswer).length).toBeLessThan(700);
  });

  it('reads at most MAX_CALL_TAGS_PARSED call tags (the parser is quadratic in unclosed tags)', async () => {
    const r = await started().step('<tool_call>'.repeat(50_000));
    expect(r.messages[0].content).toMatch(new RegExp(`more than ${MAX_CALL_TAGS_PARSED} <tool_call>/</tool_call> tags`));
    expect(r.reward.components.format).toBe(0);
  });

  it('runs at most MAX_CALLS_PER_TURN calls of one turn', async () => {
    const r = await started().step(formatToolCalls(Array.from({ length: 40 }, () => expected)));
    expect(r.messages).toHaveLength(MAX_CALLS_PER_TURN + 1);
    expect(r.messages.at(-1)?.content).toMatch(/24 calls beyond the first 16 were not run/);
    expect(r.info.success).toBe(false);
  });

  it('irrelevance: a text answer succeeds; any call attempt or an empty answer fails', async () => {
    const task = generateFunctionCallingTask(5, 1, 'train', { category: 'irrelevance' });
    const good = await started(task).step('None of these tools can do that; here is my answer.');
    expect(good.reward.components).toEqual({ format: 1, function_choice: 1, arguments: 1, exact_match: 1 });
    const called = started(task);
    await called.step(formatToolCalls([{ name: task.tools[0].function.name, arguments: {} }]));
    expect((await called.step('ok')).reward.components.exact_match).toBe(0);
    const empty = await started(task).step('   ');
    expect(empty.reward.components).toMatchObject({ format: 0, exact_match: 0 });
    for (const token of ['ok', 'Yes.', 'ok ok ok', '...']) {
      const r = await started(task).step(token);
      expect(r.reward.components, token).toEqual({ format: 0, function_choice: 0, arguments: 0, exact_match: 0 });
      expect(r.info.success, token).toBe(false);
    }
  });

  it('routing tasks are single-turn: done after the first assistant message', async () => {
    const task = generateRoutingTask(2, 3, 'train');
    const env = started(task);
    const r = await env.step(formatToolCalls([canonicalCall(task.groundTruth[0], task.tools)]));
    expect(r.done).toBe(true);
    expect(r.info.success).toBe(true);
    expect(r.reward.total).toBeCloseTo(1);
  });

  it('routing success is the whole call right: the right function with a wrong argument value is not a success', async () => {
    const task = generateRoutingTask(2, 3, 'train');
    const gold = canonicalCall(task.groundTruth[0], task.tools);
    const param = Object.keys(gold.arguments)[0];
    const wrongValue = await started(task).step(formatToolCalls([{ name: gold.name, arguments: { [param]: 'Nowhere' } }]));
    expect(wrongValue.info.success).toBe(false);
    expect(wrongValue.reward.components).toEqual({ format: 1, function_choice: 1, arguments: 0, exact_match: 0 });
    expect(wrongValue.reward.total).toBeCloseTo(0.1 + 0.2, 12);
    const other = task.tools.map((t) => t.function.name).find((n) => n !== gold.name)!;
    const wrongTool = await started(task).step(formatToolCalls([{ name: other, arguments: gold.arguments }]));
    expect(wrongTool.info.success).toBe(false);
    const garbled = await started(task).step(`${formatToolCalls([gold])}<tool_call>{oops</tool_call>`);
    expect(garbled.info.success).toBe(false);
  });

  it('places function_choice at the end of the first calling turn\'s function names (component credit); nothing else', async () => {
    const routed = generateRoutingTask(1, 0, 'train');
    const call = formatToolCalls([{ name: 'price', arguments: { ticker: 'KO' } }]);
    const r = await started(routed).step(call);
    expect(r.reward.decidedAt).toEqual({ function_choice: { turn: 0, char: call.indexOf('"price"') + '"price"'.length } });
    // multi-turn: prose before the call shifts the offset; later calling turns do not move it
    const env = started();
    const first = await env.step(`ok ${callText}`);
    expect(first.reward.decidedAt).toEqual({ function_choice: { turn: 0, char: 3 + callText.indexOf(`"${expected.name}"`) + expected.name.length + 2 } });
    expect((await env.step(formatToolCalls([{ name: 'other', arguments: {} }]))).reward.decidedAt).toEqual(first.reward.decidedAt);
    expect((await env.step('Done.')).reward.decidedAt).toEqual(first.reward.decidedAt);
    // not placeable: a malformed block in the calling turn, or an irrelevance task (no call is the right answer)
    expect((await started(routed).step(`${call}<tool_call>{bad</tool_call>`)).reward.decidedAt).toBeUndefined();
    const irrelevance = generateFunctionCallingTask(3, 1, 'train', { category: 'irrelevance' });
    expect((await started(irrelevance).step(call)).reward.decidedAt).toBeUndefined();
  });

  it('a routing (single-turn) reply without a call earns no format reward', async () => {
    const task = generateRoutingTask(2, 3, 'train');
    const r = await started(task).step('eeee');
    expect(r.done).toBe(true);
    expect(r.reward.components.format).toBe(0);
    expect(r.reward.total).toBe(0);
    expect(r.info.formatIssues).toContain('this single-turn task needs a tool call, but the reply makes none');
  });

  it('custom weights change the total, not the components', async () => {
    const env = new FunctionCallingEnv({}, { exact_match: 1, format: 0, function_choice: 0, arguments: 0 });
    env.reset(simple);
    const r = await env.step(formatToolCalls([{ name: expected.name, arguments: {} }]));
    expect(r.reward.components).toMatchObject({ format: 1, function_choice: 1, exact_match: 0 });
    expect(r.reward.total).toBe(0);
  });

  it('expert policy drives a full multi-turn episode', async () => {
    const task = generateFunctionCallingTask(9, 2, 'train', { category: 'parallel' });
    const env = new FunctionCallingEnv();
    const { messages, tools } = env.reset(task);
    const policy = functionCallingExpert(task, 1);
    const history: ChatMessage[] = [...messages];
    let done = false;
    let turns = 0;
    let last = null;
    while (!done && turns < 8) {
      const text = await policy(history, tools);
      history.push({ role: 'assistant', content: text });
      last = await env.step(text);
      history.push(...last.messages);
      done = last.done;
      turns++;
    }
    expect(turns).toBe(2);
    expect(last?.reward.total).toBeCloseTo(1);
  });
});
