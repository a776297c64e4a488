import { describe, expect, it } from 'vitest';
import { formatToolCalls, type ToolCall } from '../../tokenizer/toolCalls';
import { Rng } from '../../util/rng';
import type { ChatMessage, Policy, Reward } from '../types';
import { cloneDatabase, databaseHash, seedDatabase } from './database';
import { playEpisode } from './episode';
import { expertScript } from './expert';
import { serviceFamily } from './index';
import { SERVICE_TOOL_SPECS } from './toolSpecs';
import { executeTool } from './tools';
import { SERVICE_CATEGORIES, type ServiceTask } from './types';

const TOOL_NAMES = SERVICE_TOOL_SPECS.map((t) => t.function.name);
const WORDS = ['hello', 'order', 'email', 'cancel', 'return', 'yes', 'confirm', 'please', 'item', 'refund', 'address', 'which', '?', 'sorry', 'cannot', 'W1234567', 'the', 'is', 'delivered', '12.50', 'constructor', '__proto__'];

function expectRewardInRange(r: Reward): void {
  for (const v of Object.values(r.components)) {
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThanOrEqual(1);
  }
  expect(r.total).toBeGreaterThanOrEqual(0);
  expect(r.total).toBeLessThanOrEqual(1 + 1e-12);
}

function randomJson(rng: Rng, depth = 0): unknown {
  switch (rng.int(0, depth > 1 ? 3 : 5)) {
    case 0:
      return rng.int(-5, 1e6);
    case 1:
      return rng.pick([null, true, false, 1.5, -0, '']);
    case 2:
    case 3:
      return rng.pick(WORDS) + (rng.next() < 0.3 ? `#W${rng.int(1000000, 9999999)}` : '');
    case 4:
      return Array.from({ length: rng.int(0, 3) }, () => randomJson(rng, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: rng.int(0, 3) }, () => [rng.pick(WORDS), randomJson(rng, depth + 1)]));
  }
}

function randomCalls(rng: Rng): ToolCall[] {
  return Array.from({ length: rng.int(1, 3) }, () => {
    const spec = rng.pick(SERVICE_TOOL_SPECS).function;
    const args: Record<string, unknown> = {};
    for (const key of Object.keys(spec.parameters.properties ?? {})) if (rng.next() < 0.8) args[key] = randomJson(rng);
    return { name: rng.next() < 0.9 ? spec.name : rng.pick(WORDS), arguments: args };
  });
}

/** Seeded random agent: random prose or random tool calls with random arguments. */
function randomPolicy(seed: number): Policy {
  const rng = new Rng(seed);
  return async () =>
    rng.next() < 0.5
      ? Array.from({ length: rng.int(0, 12) }, () => rng.pick(WORDS)).join(' ')
      : formatToolCalls(randomCalls(rng));
}

/** Breaks the tool-call format in every way the parser knows. */
function formatBreakingPolicy(seed: number): Policy {
  const rng = new Rng(seed);
  const broken = [
    '<tool_call>{"name": "get_user_details", "arguments": {"user_id": </tool_call>',
    '<tool_call>get_order_details(order_id="#W1")</tool_call>',
    '<tool_call>["find_user_id_by_email"]</tool_call>',
    '<tool_call>{"arguments": {}}</tool_call>',
    '<tool_call>{"name": "cancel_pending_order", "arguments": "not json"}</tool_call>',
    '<tool_call>{"name": "cancel_pending_order", "arguments": [1, 2]}</tool_call>',
    '</tool_call> stray close',
    '<tool_call>{"name": "get_order_details", "arguments": {"order_id": "#W1"}}',
    '<tool_call><tool_call>{"name": "x"}</tool_call>',
  ];
  return async () => rng.pick(broken);
}

/** Mutates one expert turn: truncation, character noise, wrong argument values, duplication, padding. */
function mutate(turn: string | ToolCall[], rng: Rng): string {
  let text = typeof turn === 'string' ? turn : formatToolCalls(turn);
  switch (rng.int(0, 7)) {
    case 0:
      return text.slice(0, rng.int(0, text.length));
    case 1: {
      const chars = [...text];
      for (let k = rng.int(1, 6); k > 0 && chars.length > 0; k--) chars[rng.int(0, chars.length - 1)] = rng.pick(['{', '}', '"', '<', '>', '/', ':', ',', '[', ']', '\\', 'é', '\u0000']);
      return chars.join('');
    }
    case 2:
      if (typeof turn !== 'string') {
        const calls = turn.map((c) => ({ name: c.name, arguments: { ...c.arguments } }));
        const c = rng.pick(calls);
        const keys = Object.keys(c.arguments);
        const op = rng.int(0, 3);
        if (op === 0 && keys.length > 0) c.arguments[rng.pick(keys)] = randomJson(rng);
        else if (op === 1 && keys.length > 0) delete c.arguments[rng.pick(keys)];
        else if (op === 2) c.name = rng.pick(TOOL_NAMES);
        else c.arguments[rng.pick(WORDS)] = randomJson(rng);
        text = formatToolCalls(calls);
      }
      return text;
    case 3:
      return `${text}\n${text}`;
    case 4:
      return `<think>${rng.pick(WORDS)}</think>${rng.pick(WORDS)} ${text}`;
    case 5:
      return rng.next() < 0.1 ? text + 'z'.repeat(rng.int(10_000, 300_000)) : text;
    default:
      return text;
  }
}

function mutatedExpertPolicy(task: ServiceTask, seed: number): Policy {
  const rng = new Rng(seed);
  const script = expertScript(task, seed);
  return async (messages: ChatMessage[]) => {
    const turn = script[messages.filter((m) => m.role === 'assistant').length] ?? 'Goodbye.';
    return rng.next() < 0.4 ? mutate(turn, rng) : typeof turn === 'string' ? turn : formatToolCalls(turn);
  };
}

describe('task generation', () => {
  it('is deterministic, JSON-serialisable, rotates categories, and separates train from test', () => {
    const a = serviceFamily.generateTask(11, 5, 'train');
    expect(serviceFamily.generateTask(11, 5, 'train')).toEqual(a);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
    const h = serviceFamily.generateTask(11, 5, 'test');
    expect(h.id).not.toBe(a.id);
    expect(h.dbSeed).not.toBe(a.dbSeed);
    expect(Array.from({ length: 14 }, (_, i) => serviceFamily.generateTask(11, i, 'train').category)).toEqual([...SERVICE_CATEGORIES, ...SERVICE_CATEGORIES]);
    expect(serviceFamily.name).toBe('service');
    expect(Object.values(serviceFamily.defaultWeights).reduce((s, w) => s + w, 0)).toBeCloseTo(1, 12);
  });

  it('has gold actions that replay on the initial database and change it exactly for write tasks', () => {
    for (let i = 0; i < 140; i++) {
      const task = serviceFamily.generateTask(12, i, i % 2 ? 'train' : 'test');
      const db = seedDatabase(task.dbSeed);
      expect(db.users[task.user.userId].email).toBe(task.user.email);
      if ('orderId' in task.goal) expect(db.orders[task.goal.orderId].user_id).toBe(task.user.userId);
      const gold = cloneDatabase(db);
      for (const a of task.goldActions) expect(executeTool(gold, a.name, a.arguments).ok).toBe(true);
      const writes = !['info', 'transfer'].includes(task.category);
      expect(task.goldActions.length > 0).toBe(writes);
      expect(databaseHash(gold) !== databaseHash(db)).toBe(writes);
      expect(task.requiredFacts.length > 0).toBe(task.category === 'info');
    }
  });
});

describe('policies', () => {
  it('the expert succeeds on 500 train tasks (and 70 test) with full reward', async () => {
    const failures: string[] = [];
    let maxTurns = 0;
    for (const [split, n] of [['train', 500], ['test', 70]] as const) {
      for (let i = 0; i < n; i++) {
        const task = serviceFamily.generateTask(1, i, split);
        const { last, turns } = await playEpisode(task, serviceFamily.expertPolicy(task, i));
        maxTurns = Math.max(maxTurns, turns);
        if (last.reward.total < 1 - 1e-9 || last.info.success !== true) failures.push(`${task.id} (${task.category}): ${JSON.stringify(last.reward.components)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(maxTurns).toBeLessThanOrEqual(8);
  });

  it('a seeded random policy succeeds on fewer than 10% of tasks', async () => {
    let successes = 0;
    const n = 140;
    for (let i = 0; i < n; i++) {
      const { last } = await playEpisode(serviceFamily.generateTask(2, i, 'train'), randomPolicy(i));
      expectRewardInRange(last.reward);
      if (last.info.success) successes++;
    }
    expect(successes / n).toBeLessThan(0.1);
  });

  it('a format-breaking policy never succeeds and only gets error observations', async () => {
    for (let i = 0; i < 35; i++) {
      const { last, messages } = await playEpisode(serviceFamily.generateTask(3, i, 'train'), formatBreakingPolicy(i));
      expect(last.info.success).toBe(false);
      expect(last.reward.components.outcome).toBe(0);
      for (const m of messages.filter((x) => x.role === 'tool')) expect(m.content).toMatch(/^Error: /);
    }
  });
});

describe('fuzz', () => {
  it('thousands of random and mutated assistant outputs never throw and keep rewards in [0, 1]', async () => {
    let steps = 0;
    const roles = new Set(['user', 'tool']);
    for (let i = 0; i < 320; i++) {
      const task = serviceFamily.generateTask(4, i, 'train');
      const policy = i % 4 === 0 ? randomPolicy(1000 + i) : mutatedExpertPolicy(task, i);
      const env = serviceFamily.createEnv({ maxTurns: 12 });
      const { messages, tools } = env.reset(task);
      const convo = [...messages];
      for (;;) {
        const text = await policy(convo, tools);
        convo.push({ role: 'assistant', content: text });
        const r = await env.step(text);
        steps++;
        expectRewardInRange(r.reward);
        for (const m of r.messages) {
          expect(roles.has(m.role)).toBe(true);
          expect(typeof m.content).toBe('string');
          expect(m.content.length).toBeLessThan(10_000);
        }
        convo.push(...r.messages);
        if (r.done) break;
      }
    }
    expect(steps).toBeGreaterThan(2000);
  });
});
