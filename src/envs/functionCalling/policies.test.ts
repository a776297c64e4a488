import { describe, expect, it } from 'vitest';
import { FunctionCallingEnv } from './environment';
import { functionCallingFamily, routingFamily } from './family';
import { generateFunctionCallingTask } from './generateTask';
import { playEpisode, randomPolicy } from './testHelpers';
import { GENERATED_CATEGORIES } from './types';
import type { Policy } from '../types';

const N = 500;
const SEED = 20251130;

describe('expert and baseline policies on generated tasks', () => {
  it(`the expert reaches 100% success and full reward on ${N} tasks of every category`, async () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < N; i++) {
      const task = functionCallingFamily.generateTask(SEED, i, i % 2 === 0 ? 'train' : 'test');
      seen.set(task.category, (seen.get(task.category) ?? 0) + 1);
      const { last } = await playEpisode(task, functionCallingFamily.expertPolicy(task, i), functionCallingFamily.createEnv());
      if (last.info.success !== true || last.reward.total < 1 - 1e-9) {
        throw new Error(`expert failed ${task.id} (${task.category}): ${JSON.stringify(last.info)} ${JSON.stringify(task.groundTruth)}`);
      }
    }
    for (const category of GENERATED_CATEGORIES) expect(seen.get(category) ?? 0).toBeGreaterThan(N * 0.08);
  });

  it('the expert also solves every routing task', async () => {
    for (let i = 0; i < 200; i++) {
      const task = routingFamily.generateTask(SEED, i, 'train');
      const { last, transcript } = await playEpisode(task, routingFamily.expertPolicy(task, i), routingFamily.createEnv());
      expect(last.info.success).toBe(true);
      expect(transcript.filter((m) => m.role === 'assistant')).toHaveLength(1);
    }
  });

  it('a seeded random policy stays under 10% success', async () => {
    let successes = 0;
    let totalReward = 0;
    for (let i = 0; i < N; i++) {
      const task = functionCallingFamily.generateTask(SEED + 1, i, 'train');
      const { last } = await playEpisode(task, randomPolicy(i), new FunctionCallingEnv());
      if (last.info.success === true) successes++;
      totalReward += last.reward.total;
    }
    const rate = successes / N;
    expect(rate).toBeLessThan(0.1);
    expect(rate).toBeGreaterThan(0); // irrelevance items answered in text do succeed: the test measures something
    expect(totalReward / N).toBeLessThan(0.35);
  });

  it('a format-breaking policy gets format 0 on every task', async () => {
    const breakers = [
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}',
      '<tool_call>not json</tool_call>',
      '{"name": "get_weather", "arguments": {"city": "Paris"}}',
      '<toolcall>{"name": "f"}</toolcall>',
      '</tool_call> oops',
      '<tool_call>[1, 2]</tool_call>',
      '',
      'answer <|im_end|>',
    ];
    for (let i = 0; i < 120; i++) {
      const task = generateFunctionCallingTask(SEED + 2, i, 'train');
      const text = breakers[i % breakers.length];
      const breaking: Policy = async () => text;
      const { last } = await playEpisode(task, breaking, new FunctionCallingEnv({ maxTurns: 3 }));
      expect(last.reward.components.format, `${JSON.stringify(text)} on ${task.category}`).toBe(0);
      expect(last.info.success).toBe(false);
    }
  });
});
