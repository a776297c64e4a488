// Property-based fuzzing of the function-calling and coding environments' step (episodes.ts says
// what is checked). Coding runs against a stand-in sandbox (the real one is exercised in
// src/envs/coding and src/envs/coding/sandbox). Service: service.fuzz.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodingEnv, codingFamily } from '../envs/coding/index';
import type { SandboxResult, SandboxRunner, SandboxTest } from '../envs/coding/sandbox/types';
import { FunctionCallingEnv, functionCallingFamily, generateRoutingTask } from '../envs/functionCalling/index';
import { fuzzParams } from './arbitraries';
import { episode, play, tasksOf } from './episodes';
import { timeRatio } from './scaling';

describe('fuzz: environment steps', () => {
  it('function calling (generated and routing tasks)', async () => {
    const tasks = [
      ...tasksOf(functionCallingFamily.generateTask, 40, (t) => t.tools),
      ...tasksOf(generateRoutingTask, 8, (t) => t.tools),
    ];
    const env = new FunctionCallingEnv();
    await fc.assert(fc.asyncProperty(episode(tasks), ([task, replies]) => play(env, task, replies)), fuzzParams(21));
  });

  it('coding (stand-in sandbox that reports every status, or fails)', async () => {
    const statuses: SandboxResult['status'][] = ['ok', 'compile-error', 'timeout', 'memory-exceeded', 'crashed'];
    let calls = 0;
    // Deterministic in the code: a status, some tests passed; every 13th call the sandbox itself throws.
    const sandbox: SandboxRunner = async (code: string, tests: SandboxTest[]) => {
      calls++;
      if (calls % 13 === 0) throw new Error('sandbox unavailable');
      const h = [...code].reduce((a, c) => (a * 31 + c.charCodeAt(0)) >>> 0, 7);
      const status = statuses[h % statuses.length];
      const passed = status === 'ok' ? h % (tests.length + 1) : 0;
      return {
        backend: 'node', status, compiled: status !== 'compile-error', tests: tests.map((_, i) => ({ index: i, status: i < passed ? 'passed' : 'failed', message: 'x' })),
        passed, output: code.slice(0, 20), outputTruncated: false, durationMs: 1, ...(status === 'compile-error' ? { compileError: 'SyntaxError' } : {}),
      };
    };
    const tasks = tasksOf(codingFamily.generateTask, 20, () => [{ type: 'function', function: { name: 'run_tests', description: '', parameters: { type: 'object' } } }, { type: 'function', function: { name: 'submit', description: '', parameters: { type: 'object' } } }]);
    const env = new CodingEnv({ sandbox });
    await fc.assert(fc.asyncProperty(episode(tasks), ([task, replies]) => play(env, task, replies)), fuzzParams(23));
  });

  it('a step takes time linear in the reply length', async () => {
    const task = functionCallingFamily.generateTask(7, 3, 'train');
    const call = `<tool_call>{"name": "${task.tools[0].function.name}", "arguments": {"x": [1, 2, {"y": "z"}]}}</tool_call>`;
    const env = new FunctionCallingEnv();
    // step is async but does its work synchronously: time the call itself.
    const run = (text: string) => {
      env.reset(task);
      void env.step(text);
    };
    for (const unit of [call, 'plain prose with no call at all. ', '<tool_call>{"name": "x", "arguments": ']) {
      const { ratio, linear } = timeRatio((n) => unit.repeat(n), run, 300);
      expect(linear, `${unit.slice(0, 30)}: 16× reply took ${ratio.toFixed(1)}×`).toBe(true);
    }
  });
});
