// Episodes for the environment fuzz suites: any sequence of replies (tool calls to the task's own
// tools with any arguments, broken tags, deep JSON, byte soup) against a task. Checked after every
// step: it resolved, never hit the internal-error path, every reward component is in [0, 1] and
// total = Σ weight · component in [0, Σ weights], and an ended episode stays ended.
import type { Split } from '../envs/splits';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Environment, StepResult, TaskBase, ToolSpec } from '../envs/types';
import { reply } from './arbitraries';

/** Checks one step's result; returns whether the episode is over. */
function expectSaneStep(step: StepResult, context: string): boolean {
  expect(String(step.info?.error ?? ''), context).not.toMatch(/internal environment error/);
  const { components, weights, total } = step.reward;
  let sum = 0;
  let weightSum = 0;
  for (const [k, w] of Object.entries(weights)) {
    const c = components[k] ?? 0;
    expect(c, `${context}: component ${k}`).toBeGreaterThanOrEqual(0);
    expect(c, `${context}: component ${k}`).toBeLessThanOrEqual(1);
    sum += w * c;
    weightSum += w;
  }
  expect(total, context).toBeCloseTo(sum, 9);
  expect(total, context).toBeGreaterThanOrEqual(0);
  expect(total, context).toBeLessThanOrEqual(weightSum + 1e-9);
  for (const m of step.messages) expect(typeof m.content, context).toBe('string');
  return step.done;
}

/** Plays replies until the episode ends (then one more, which must leave it ended). */
export async function play<T extends TaskBase>(env: Environment<T>, task: T, replies: string[]): Promise<void> {
  env.reset(task);
  let done = false;
  for (const text of replies) {
    const step = await env.step(text);
    const context = `${task.id} after ${JSON.stringify(text.slice(0, 200))}`;
    const nowDone = expectSaneStep(step, context);
    if (done) expect(nowDone, context).toBe(true);
    done = nowDone;
  }
}

const names = (tools: ToolSpec[]) => tools.map((t) => t.function.name);
const params = (tools: ToolSpec[]) => [...new Set(tools.flatMap((t) => Object.keys(t.function.parameters.properties ?? {})))];

/** Tasks of a family (train and held-out) with the tool names their replies should mostly call. */
export function tasksOf<T extends TaskBase>(generate: (seed: number, i: number, split: Split) => T, count: number, tools: (t: T) => ToolSpec[]) {
  return Array.from({ length: count }, (_, i) => generate(7, i, i % 4 === 0 ? 'test' : 'train')).map((task) => ({ task, names: names(tools(task)), params: params(tools(task)) }));
}

/** A task and 1…maxSteps replies that mostly call its tools. */
export const episode = <T>(tasks: { task: T; names: string[]; params: string[] }[], maxSteps = 3) =>
  fc.constantFrom(...tasks).chain(({ task, names: n, params: p }) => fc.tuple(fc.constant(task), fc.array(reply(n, p), { minLength: 1, maxLength: maxSteps })));

