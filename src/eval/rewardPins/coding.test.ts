// Pins the exact reward of cheap agents on a hand-built coding task, worked out by hand from the
// rules in src/envs/coding/env.ts:
//   total = 0.6·tests_passed + 0.2·success + 0.1·compiles + 0.1·format;
//   compiles and format pay only when the submission passes at least one hidden test.
// Graded by the real sandbox (a few short runs).
import { afterAll, describe, expect, it } from 'vitest';
import { formatToolCalls } from '../../tokenizer/toolCalls';
import type { ChatMessage, Policy, StepResult } from '../../envs/types';
import { CodingEnv } from '../../envs/coding/env';
import { codingExpert } from '../../envs/coding/expert';
import { closeNodeSandbox } from '../../envs/coding/sandbox/nodeSandbox';
import type { CodingTask } from '../../envs/coding/types';
import { BROKEN_CALL_TEXT, formatBreakingPolicy, randomPolicy } from '../baselinePolicies';

afterAll(() => closeNodeSandbox());

/** addOne(x) = x + 1; no hidden input is a public one, so memorising the examples passes nothing. */
const TASK: CodingTask = {
  family: 'coding',
  id: 'pin/add-one',
  category: 'maths',
  template: 'pin-add-one',
  entry: 'addOne',
  signature: 'function addOne(x)',
  statement: 'Write addOne(x) that returns x + 1.',
  publicTests: [
    { args: [1], expected: 2 },
    { args: [5], expected: 6 },
  ],
  hiddenTests: [
    { args: [0], expected: 1 },
    { args: [7], expected: 8 },
    { args: [-3], expected: -2 },
    { args: [10], expected: 11 },
  ],
  solution: 'function addOne(x) {\n  return x + 1;\n}\n',
  buggySolution: 'function addOne(x) {\n  return x;\n}\n',
  bugNote: 'it returns x instead of x + 1',
};

const ZERO = { tests_passed: 0, success: 0, compiles: 0, format: 0 };
const submit = (code: string) => formatToolCalls([{ name: 'submit', arguments: { code } }]);
const say = (text: string): Policy => async () => text;

async function play(policy: Policy): Promise<StepResult & { assistant: string[] }> {
  const env = new CodingEnv({ sandboxLimits: { timeoutMs: 2000 } });
  const { messages, tools } = env.reset(TASK);
  const convo: ChatMessage[] = [...messages];
  const assistant: string[] = [];
  for (;;) {
    const text = await policy(convo, tools);
    assistant.push(text);
    convo.push({ role: 'assistant', content: text });
    const step = await env.step(text);
    convo.push(...step.messages);
    if (step.done) return { ...step, assistant };
  }
}

function expectReward(r: StepResult, components: Record<string, number>, total: number, success: boolean): void {
  expect(r.reward.components).toEqual(components);
  expect(r.reward.total).toBeCloseTo(total, 12);
  expect(r.info.success).toBe(success);
}

describe('coding reward pins', () => {
  it('the expert reaches full reward', async () => {
    expectReward(await play(codingExpert(TASK, 1)), { tests_passed: 1, success: 1, compiles: 1, format: 1 }, 1, true);
  });

  it('do-nothing ("" or "ok" every turn) and format-breaking score 0 at the turn limit', async () => {
    for (const policy of [say(''), say('ok'), formatBreakingPolicy()]) {
      const r = await play(policy);
      expect(r.info.limit).toBe('max-turns');
      expectReward(r, ZERO, 0, false);
    }
    expect((await play(formatBreakingPolicy())).assistant[0]).toBe(BROKEN_CALL_TEXT);
  });

  it('the seeded random baseline scores 0: random words never define addOne', async () => {
    for (const seed of [1, 2, 3]) expectReward(await play(randomPolicy(seed)), ZERO, 0, false);
  });

  it('guess-everything (memorise the public examples) and a stub that defines the function score 0', async () => {
    // Both compile and define addOne, but pass 0 of 4 hidden tests → no progress → compiles and format 0.
    expectReward(await play(say(submit('function addOne(x) { return ({ 1: 2, 5: 6 })[x] ?? null; }'))), ZERO, 0, false);
    expectReward(await play(say(submit('function addOne(x) {}'))), ZERO, 0, false);
  });

  it('call-every-tool (run_tests and submit of a stub in one turn) scores 0', async () => {
    const both = formatToolCalls([
      { name: 'run_tests', arguments: { code: 'function addOne(x) { return 0; }' } },
      { name: 'submit', arguments: { code: 'function addOne(x) { return 0; }' } },
    ]);
    expectReward(await play(say(both)), ZERO, 0, false);
  });

  it('partial progress pays: 3 of 4 hidden tests', async () => {
    // Fails only x = −3: tests_passed 3/4, compiles 1, format 1 (its one turn was well-formed), success 0.
    // total = 0.6 · 0.75 + 0.1 + 0.1 = 0.65
    expectReward(await play(say(submit('function addOne(x) { return x >= 0 ? x + 1 : 0; }'))), { tests_passed: 0.75, success: 0, compiles: 1, format: 1 }, 0.65, false);
  });
});
