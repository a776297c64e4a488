import { describe, expect, it } from 'vitest';
import { formatToolCalls } from '../../tokenizer/toolCalls';
import { SPLITS } from '../splits';
import { serviceLevelFamily } from './index';
import { SERVICE_LEVEL_SPECS, SERVICE_LEVELS } from './levels';
import { seedDatabase } from './database';
import type { ServiceTask } from './types';
import type { Policy } from '../types';

/** Plays one episode to the end; returns the last step and the turns. */
async function play(task: ServiceTask, policy: Policy) {
  const family = serviceLevelFamily(task.level ?? 'retail');
  const env = family.createEnv();
  const { messages, tools } = env.reset(task);
  const convo = [...messages];
  for (let turn = 1; ; turn++) {
    const text = await policy(convo, tools);
    convo.push({ role: 'assistant', content: text });
    const r = await env.step(text);
    convo.push(...r.messages);
    if (r.done) return { last: r, turns: turn, messages: convo, tools };
  }
}

describe('service curriculum levels', () => {
  it('generate only their own request kinds, deterministically, with the level recorded', () => {
    for (const level of SERVICE_LEVELS) {
      const family = serviceLevelFamily(level);
      const spec = SERVICE_LEVEL_SPECS[level];
      for (let i = 0; i < 30; i++) {
        const task = family.generateTask(3, i, 'train');
        expect(family.generateTask(3, i, 'train')).toEqual(task);
        expect(spec.categories).toContain(task.category);
        expect(task.level).toBe(level === 'retail' ? undefined : level);
        if (spec.question) expect(task.goal).toMatchObject({ kind: 'info', question: spec.question });
        if (spec.userKnowsOrderId) expect(task.user.knowsOrderId).toBe(true);
        if (spec.emailOnly) expect(task.user.authVia).toBe('email');
        if (spec.originalPaymentOnly) {
          // the payment method is the one get_order_details shows (no account read needed)
          const goal = task.goal as { orderId: string; paymentMethodId: string };
          expect(goal.paymentMethodId).toBe(seedDatabase(task.dbSeed).orders[goal.orderId].payment_history[0].payment_method_id);
        }
      }
    }
  });

  it('the expert solves every level with full reward on every split, in the turns the level promises', async () => {
    const maxTurns = { status: 4, write: 6, 'multi-step': 7, retail: 8 };
    for (const level of SERVICE_LEVELS) {
      const family = serviceLevelFamily(level);
      for (const split of SPLITS) {
        for (let i = 0; i < 14; i++) {
          const task = family.generateTask(5, i, split);
          const { last, turns, tools } = await play(task, family.expertPolicy(task, i));
          expect(last.info.success, `${task.id}: ${JSON.stringify(last.reward.components)}`).toBe(true);
          expect(last.reward.total).toBeCloseTo(1, 9);
          expect(turns).toBeLessThanOrEqual(maxTurns[level]);
          expect(tools.map((t) => t.function.name)).toEqual(SERVICE_LEVEL_SPECS[level].tools.map((t) => t.function.name));
        }
      }
    }
  });

  it('multi-step: the expert returns and exchanges in 6 and 7 turns, using only ids the conversation showed before', async () => {
    const family = serviceLevelFamily('multi-step');
    const turnsOf: Record<string, number[]> = { return: [], exchange: [] };
    for (const split of SPLITS) {
      for (let i = 0; i < 10; i++) {
        const task = family.generateTask(9, i, split);
        const { last, turns, messages } = await play(task, family.expertPolicy(task, i));
        expect(last.info.success, task.id).toBe(true);
        turnsOf[task.category].push(turns);
        // every id in a write call appeared in an earlier tool result (faithful SFT data)
        const write = messages.findIndex((m) => m.role === 'assistant' && /_delivered_order_items/.test(m.content));
        const seen = messages.slice(0, write).filter((m) => m.role === 'tool').map((m) => m.content).join('\n');
        for (const id of messages[write].content.match(/"(?:\d{10}|[a-z_]+_\d{7})"/g) ?? []) expect(seen, `${task.id}: ${id}`).toContain(id);
        expect(messages.some((m) => m.role === 'assistant' && m.content.includes('get_user_details'))).toBe(false);
      }
    }
    expect(new Set(turnsOf.return)).toEqual(new Set([6]));
    expect(new Set(turnsOf.exchange)).toEqual(new Set([7]));
  });

  it('a tool the level does not offer is an unknown tool (named choices), and the status tool is not offered at retail', async () => {
    const status = serviceLevelFamily('status').generateTask(1, 0, 'train');
    const env = serviceLevelFamily('status').createEnv();
    env.reset(status);
    const r = await env.step(formatToolCalls([{ name: 'get_user_details', arguments: { user_id: 'x' } }]));
    expect(r.messages[0].content).toMatch(/unknown tool "get_user_details"; available tools: find_user_id_by_email, get_order_status/);
    const retail = serviceLevelFamily('retail').generateTask(1, 5, 'train');
    const env2 = serviceLevelFamily('retail').createEnv();
    env2.reset(retail);
    const r2 = await env2.step(formatToolCalls([{ name: 'get_order_status', arguments: { order_id: '#W1' } }]));
    expect(r2.messages[0].content).toMatch(/unknown tool "get_order_status"/);
  });

  it('status level: reading the status before authenticating breaks the policy, and guessing the status earns nothing', async () => {
    const task = serviceLevelFamily('status').generateTask(2, 1, 'train');
    const goal = task.goal as { orderId: string };
    const env = serviceLevelFamily('status').createEnv();
    env.reset(task);
    await env.step('Which order is it (the order id)? And your email, please?');
    const read = await env.step(formatToolCalls([{ name: 'get_order_status', arguments: { order_id: goal.orderId } }]));
    expect(read.reward.components.authentication).toBe(0);
    // a fresh episode that names a status without looking it up: no fact counts
    const env2 = serviceLevelFamily('status').createEnv();
    env2.reset(task);
    const guess = await env2.step(`Order ${goal.orderId} is currently ${task.requiredFacts[0]}.`);
    expect(guess.reward.total).toBe(0);
  });
});
