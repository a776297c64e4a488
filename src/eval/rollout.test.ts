import { describe, expect, it } from 'vitest';
import type { EnvFamily, Policy, TaskBase } from '../envs/types';
import { fakeFamily, type FakeTask } from './fakeFamily';
import { assistantMessage, episodeSuccess, runEpisode } from './rollout';

const family = fakeFamily();
const task = family.generateTask(1, 0, 'test');

describe('assistantMessage', () => {
  it('keeps the raw text as content and adds the parsed calls in OpenAI shape', () => {
    const text = 'Let me see.\n<tool_call>\n{"name":"calculate","arguments":{"a":1,"b":2,"op":"add"}}\n</tool_call>';
    expect(assistantMessage(text)).toEqual({
      role: 'assistant',
      content: text,
      tool_calls: [{ type: 'function', function: { name: 'calculate', arguments: { a: 1, b: 2, op: 'add' } } }],
    });
  });

  it('has no tool_calls for plain text or a call that does not parse', () => {
    expect(assistantMessage('The answer is 3.')).toEqual({ role: 'assistant', content: 'The answer is 3.' });
    expect(assistantMessage('<tool_call>{not json')).toEqual({ role: 'assistant', content: '<tool_call>{not json' });
  });
});

describe('runEpisode', () => {
  it('plays the expert to success: opening, call, tool result, answer', async () => {
    const ep = await runEpisode(family, task, family.expertPolicy(task, 5), { seed: 5 });
    expect(ep.end).toBe('done');
    expect(ep.success).toBe(true);
    expect(ep.successSource).toBe('env');
    expect(ep.turns).toBe(2);
    expect(ep.reward.total).toBeCloseTo(1, 12);
    expect(ep.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(ep.messages[2].tool_calls?.[0].function.name).toBe('calculate');
    expect(ep.stepInfos).toHaveLength(2);
    expect(ep.seed).toBe(5);
    expect(ep.taskId).toBe(task.id);
    expect(ep.category).toBe(task.op);
    expect(ep.error).toBeUndefined();
  });

  it('ends as a failure, without throwing, when the policy throws mid-episode', async () => {
    let calls = 0;
    const expert = family.expertPolicy(task, 1);
    const flaky: Policy = async (m, t) => {
      if (calls++ === 1) throw new Error('model exploded');
      return expert(m, t);
    };
    const ep = await runEpisode(family, task, flaky);
    expect(ep.end).toBe('policy-error');
    expect(ep.error).toMatch(/policy threw on turn 2: model exploded/);
    expect(ep.success).toBe(false);
    expect(ep.turns).toBe(1);
    expect(ep.reward.total).toBe(0);
    expect(Object.values(ep.reward.components)).toEqual([0, 0, 0]);
    expect(ep.lastEnvReward?.components.tool).toBe(1); // kept for diagnostics
  });

  it('treats a non-string reply as a policy error', async () => {
    const ep = await runEpisode(family, task, (async () => undefined) as unknown as Policy);
    expect(ep.end).toBe('policy-error');
    expect(ep.error).toMatch(/returned undefined.*must resolve to the assistant's text/);
    expect(ep.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('records an environment that throws or never ends instead of crashing', async () => {
    const throwing: EnvFamily<FakeTask> = {
      ...family,
      createEnv: () => ({ family: 'fake' as TaskBase['family'], reset: () => ({ messages: [{ role: 'user', content: 'hi' }], tools: [] }), step: async () => { throw new Error('boom'); } }),
    };
    const a = await runEpisode(throwing, task, async () => 'hello');
    expect(a.end).toBe('env-error');
    expect(a.error).toMatch(/threw in step 1.*boom/);
    const endless: EnvFamily<FakeTask> = {
      ...family,
      createEnv: () => ({ family: 'fake' as TaskBase['family'], reset: () => ({ messages: [{ role: 'user', content: 'hi' }], tools: [] }), step: async () => ({ messages: [], reward: { components: {}, weights: {}, total: 1 }, done: false, info: {} }) }),
    };
    const b = await runEpisode(endless, task, async () => 'hello', { turnCap: 5 });
    expect(b.end).toBe('turn-cap');
    expect(b.turns).toBe(5);
    expect(b.success).toBe(false);
  });

  it('passes limits to the environment', async () => {
    const chatty: Policy = async () => '<tool_call>\n{"name":"calculate","arguments":{}}\n</tool_call>';
    const ep = await runEpisode(family, task, chatty, { limits: { maxTurns: 3 } });
    expect(ep.end).toBe('done');
    expect(ep.turns).toBe(3);
    expect(ep.info.limit).toBe('max-turns');
    expect(ep.success).toBe(false);
  });

  it('gives the policy copies, so it cannot rewrite the recorded history', async () => {
    const expert = family.expertPolicy(task, 2);
    const vandal: Policy = async (messages, tools) => {
      const reply = await expert(messages, tools);
      messages[1].content = 'rewritten';
      messages.length = 0;
      return reply;
    };
    const ep = await runEpisode(family, task, vandal);
    expect(ep.messages[1].content).toMatch(/^What is/);
    expect(ep.success).toBe(true);
  });
});

describe('episodeSuccess', () => {
  const full = { components: { x: 1 }, weights: { x: 1 }, total: 0.9999999999999999 };
  it("uses the env's info.success when given, else full reward; never succeeds without 'done'", () => {
    expect(episodeSuccess('done', { success: false }, full)).toEqual({ success: false, source: 'env' });
    expect(episodeSuccess('done', {}, full)).toEqual({ success: true, source: 'total' });
    expect(episodeSuccess('done', {}, { ...full, total: 0.99 })).toEqual({ success: false, source: 'total' });
    expect(episodeSuccess('policy-error', { success: true }, full).success).toBe(false);
  });

  it('falls back to the total rule for a family that reports no success', async () => {
    const quiet = fakeFamily({ reportSuccess: false });
    const t = quiet.generateTask(2, 1, 'test');
    const ep = await runEpisode(quiet, t, quiet.expertPolicy(t, 1));
    expect(ep.successSource).toBe('total');
    expect(ep.success).toBe(true);
  });
});
