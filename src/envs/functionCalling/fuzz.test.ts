import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import type { StepResult } from '../types';
import { bfclTasks, parseBfclAnswers, parseBfclQuestions } from './bfclLoader';
import { FunctionCallingEnv } from './environment';
import { functionCallingExpert } from './expertPolicy';
import { generateFunctionCallingTask } from './generateTask';
import { generateRoutingTask } from './routingTask';
import { scoreCalls } from './scoring';
import { randomCall } from './testHelpers';
import type { FunctionCallingTask } from './types';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const bfcl = bfclTasks(
  parseBfclQuestions(readFileSync(join(FIXTURES, 'bfcl_questions.jsonl'), 'utf8'), 'q'),
  parseBfclAnswers(readFileSync(join(FIXTURES, 'bfcl_possible_answers.jsonl'), 'utf8'), 'a'),
);

const GARBAGE = [
  '<tool_call>', '</tool_call>', '<tool_response>', '<|im_end|>', '{', '}', '[', ']', '"', ':', ',', '\\', 'null',
  '{"name": ', '"arguments": ', '🙂', '\u202e', '\ud800', '\u0000', 'ß', '中文', '\n', '<think>', 'NaN', '1e999',
];

function nestedGarbage(rng: Rng, depth: number): unknown {
  if (depth <= 0) return rng.pick([null, 1.5, -0, 'x', true, '\ud83d', 9007199254740993]);
  return rng.next() < 0.5 ? { [rng.pick(['a', 'name', 'arguments', '__proto__', ''])]: nestedGarbage(rng, depth - 1) } : [nestedGarbage(rng, depth - 1), nestedGarbage(rng, depth - 1)];
}

/** One random corruption of a well-formed reply. */
function mutate(rng: Rng, text: string): string {
  const at = rng.int(0, text.length);
  switch (rng.int(0, 9)) {
    case 0:
      return text.slice(0, at); // truncated (often mid-JSON)
    case 1:
      return text.slice(0, at) + rng.pick(GARBAGE) + text.slice(at);
    case 2:
      return text.replace(/tool_call/g, rng.pick(['toolcall', 'tool-call', 'TOOL_CALL', 'tool_calls', 'function']));
    case 3:
      return text.replace(/"arguments": \{[^}]*\}/, `"arguments": ${JSON.stringify(nestedGarbage(rng, rng.int(1, 6)))}`);
    case 4:
      return text + text.slice(0, at);
    case 5:
      return `<tool_call>{"name": ${JSON.stringify('f'.repeat(rng.int(0, 3)))}, "arguments": ${JSON.stringify(nestedGarbage(rng, 4))}}</tool_call>`;
    case 6:
      return Array.from({ length: rng.int(1, 40) }, () => rng.pick(GARBAGE)).join('');
    case 7:
      return text.replace(/"name": "([^"]*)"/, (_, n: string) => `"name": "${n}${rng.pick(['', '_x', ' ', '\u0301'])}"`);
    case 8:
      return text.replace(/\d+/g, () => rng.pick(['-1', '1e400', '0.5', '"7"', 'true', '[]']));
    default:
      return text.split('').reverse().join('');
  }
}

function expectSane(step: StepResult): void {
  expect(step.reward.total).toBeGreaterThanOrEqual(0);
  expect(step.reward.total).toBeLessThanOrEqual(1 + 1e-9);
  for (const v of Object.values(step.reward.components)) {
    expect(Number.isFinite(v)).toBe(true);
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThanOrEqual(1);
  }
  for (const m of step.messages) expect(typeof m.content).toBe('string');
}

function taskFor(i: number): FunctionCallingTask {
  if (i % 7 === 0) return generateRoutingTask(11, i, 'train');
  if (i % 7 === 1) return bfcl[i % bfcl.length];
  return generateFunctionCallingTask(11, i, i % 2 ? 'train' : 'test');
}

describe('fuzz: the environment never throws and rewards stay in [0, 1]', () => {
  it('3000 mutated and random multi-turn outputs', async () => {
    const rng = new Rng(424242);
    for (let i = 0; i < 600; i++) {
      const task = taskFor(i);
      const env = new FunctionCallingEnv({ maxTurns: 4, maxToolOutputChars: 300 });
      const { messages, tools } = env.reset(task);
      const expert = functionCallingExpert(task, i);
      for (let turn = 0; turn < 5; turn++) {
        const base = await expert(messages, tools);
        const text = rng.next() < 0.15 ? base : mutate(rng, rng.next() < 0.3 ? mutate(rng, base) : base);
        const step = await env.step(text);
        expectSane(step);
        for (const m of step.messages) expect(m.content.length).toBeLessThan(400);
        messages.push({ role: 'assistant', content: text }, ...step.messages);
      }
    }
  });

  it('huge outputs (1 MB) of several shapes', async () => {
    const rng = new Rng(7);
    const big = 'é🙂a'.repeat(262_144); // ~1 MB of mixed-width characters
    const shapes = [
      big,
      `<tool_call>${big}</tool_call>`,
      `<tool_call>{"name": "get_weather", "arguments": {"location": "${big}"}}</tool_call>`,
      `<tool_call>{"name": "${big}", "arguments": {}}</tool_call>`,
      '<tool_call>'.repeat(50_000),
      `<tool_call>{"name": "a", "arguments": ${'['.repeat(50_000)}`,
      `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
    ];
    for (const [k, text] of shapes.entries()) {
      const env = new FunctionCallingEnv({ maxToolOutputChars: 1000 });
      env.reset(taskFor(rng.int(2, 50) + k));
      const step = await env.step(text);
      expectSane(step);
      for (const m of step.messages) expect(m.content.length).toBeLessThan(1100);
    }
  });

  it('the call scorer on 3000 random call lists', () => {
    const rng = new Rng(99);
    for (let i = 0; i < 3000; i++) {
      const task = taskFor(i);
      const calls = Array.from({ length: rng.int(0, 5) }, () => (rng.next() < 0.2 ? { name: 'x', arguments: nestedGarbage(rng, 3) as Record<string, unknown> } : randomCall(rng, task.tools)));
      const verdict = scoreCalls(task, calls);
      for (const v of Object.values(verdict.components)) {
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1);
      }
      expect(verdict.valid).toBe(verdict.components.exact_match === 1);
    }
  });
});
