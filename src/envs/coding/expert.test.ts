// The expert's words match what its runs showed: after a run the sandbox stopped (a loaded machine can
// make even the reference hit the time limit) it says so and runs again, and it never writes "All
// examples pass" unless the last run said so — SFT data must not teach claims the tool result denies.
import { describe, expect, it } from 'vitest';
import { parseToolCalls } from '../../tokenizer/toolCalls';
import type { ChatMessage } from '../types';
import { codingExpert } from './expert';
import { codingFamily } from './family';
import { RUN_TESTS, SUBMIT } from './prompts';
import type { CodingTask } from './types';

const TASK = codingFamily.generateTask(2024, 3, 'train') as CodingTask;
const TIMED_OUT = '2/3 public examples passed.\nFAIL example 3: stopped at the time limit (2000 ms)';

/** A seed whose expert checks the reference first (no buggy detour). */
async function directSeed(): Promise<number> {
  for (let seed = 0; seed < 50; seed++) {
    const first = await codingExpert(TASK, seed)([], []);
    if (first.startsWith('Here is my implementation')) return seed;
  }
  throw new Error('no direct seed in 50');
}

/** The conversation after `runs` run_tests results (system and user first). */
function after(runs: string[]): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }];
  for (const r of runs) messages.push({ role: 'assistant', content: 'a' }, { role: 'tool', content: r });
  return messages;
}

/** The reply's one tool call, read with the parser the environment uses. */
function theCall(reply: string) {
  const { calls, errors } = parseToolCalls(reply);
  expect(errors).toEqual([]);
  expect(calls).toHaveLength(1);
  return calls[0];
}
const callName = (reply: string) => theCall(reply).name;

describe('coding expert', () => {
  it('submits with "All examples pass" only after a run that passed', async () => {
    const expert = codingExpert(TASK, await directSeed());
    const reply = await expert(after(['All 3 public examples passed.']), []);
    expect(reply.startsWith('All examples pass')).toBe(true);
    expect(callName(reply)).toBe(SUBMIT);
  });

  it('after a stopped run it says what the run showed and runs the same code once more, then submits without claiming a pass', async () => {
    const expert = codingExpert(TASK, await directSeed());
    const rerun = await expert(after([TIMED_OUT]), []);
    expect(callName(rerun)).toBe(RUN_TESTS);
    expect(rerun).toContain('2/3 public examples passed.');
    expect(rerun).not.toContain('All examples pass');
    expect(theCall(rerun).arguments.code).toBe(TASK.solution); // the reference again, not the buggy attempt

    const last = await expert(after([TIMED_OUT, TIMED_OUT]), []);
    expect(callName(last)).toBe(SUBMIT);
    expect(last).not.toContain('All examples pass');
    expect(last).toContain('still did not run to the end');

    const passedOnRerun = await expert(after([TIMED_OUT, 'All 3 public examples passed.']), []);
    expect(passedOnRerun.startsWith('All examples pass')).toBe(true);
    expect(callName(passedOnRerun)).toBe(SUBMIT);
  });
});
