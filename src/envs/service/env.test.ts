import { describe, expect, it } from 'vitest';
import { formatToolCalls, type ToolCall } from '../../tokenizer/toolCalls';
import type { StepResult } from '../types';
import { cloneDatabase, databaseHash, seedDatabase } from './database';
import { MAX_CALLS_PER_TURN, type ServiceEnv } from './env';
import { expertScript } from './expert';
import { serviceFamily } from './index';
import type { PolicyViolation } from './monitor';
import { generateServiceTask } from './tasks';
import { executeTool, WRITE_TOOLS } from './tools';
import type { ServiceTask } from './types';
import { STOP_MARKER } from './userText';

function findTask(pred: (t: ServiceTask) => boolean): ServiceTask {
  for (let i = 0; i < 700; i++) {
    const t = generateServiceTask(3, i, 'train');
    if (pred(t)) return t;
  }
  throw new Error('no generated task fits the test; widen the search');
}

type Turn = string | ToolCall[];

/** Plays fixed assistant turns; returns every step result (stops early if the episode ends). */
async function play(task: ServiceTask, turns: Turn[], limits = {}) {
  const env = serviceFamily.createEnv(limits);
  const reset = env.reset(task);
  const steps: StepResult[] = [];
  for (const turn of turns) {
    const r = await env.step(typeof turn === 'string' ? turn : formatToolCalls(turn));
    steps.push(r);
    if (r.done) break;
  }
  const last = steps[steps.length - 1];
  const violations = (last.info.allViolations ?? steps.flatMap((s) => s.info.violations as PolicyViolation[])) as PolicyViolation[];
  return { env, reset, steps, last, rules: violations.map((v) => v.rule) };
}

const isWriteTurn = (t: Turn): boolean => Array.isArray(t) && t.some((c) => WRITE_TOOLS.has(c.name));
const orderOf = (t: ServiceTask): string => ('orderId' in t.goal ? t.goal.orderId : '');

describe('expert episode', () => {
  it('reaches full reward with no violations, and the final database hash is the gold replay hash', async () => {
    const task = findTask((t) => t.category === 'exchange');
    const { last, rules, env } = await play(task, expertScript(task, 1));
    expect(last.done).toBe(true);
    expect(rules).toEqual([]);
    expect(last.reward.components).toEqual({ outcome: 1, tool_calls: 1, authentication: 1, policy: 1, info: 1 });
    expect(last.reward.total).toBeCloseTo(1, 12);
    const db = seedDatabase(task.dbSeed);
    const initial = databaseHash(db);
    const gold = cloneDatabase(db);
    for (const a of task.goldActions) expect(executeTool(gold, a.name, a.arguments).ok).toBe(true);
    expect((env as ServiceEnv).databaseHashes()).toEqual({ current: databaseHash(gold), gold: databaseHash(gold), initial });
    expect(databaseHash(gold)).not.toBe(initial);
    expect(last.info.databaseMatchesGold).toBe(true);
    expect(last.info.endReason).toBe('user-goal-achieved');
  });

  it('opens with the policy as the system message and all 11 tools', () => {
    const task = findTask((t) => t.category === 'cancel');
    const { messages, tools } = serviceFamily.createEnv().reset(task);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[0].content).toMatch(/Authentication[\s\S]*confirm[\s\S]*one action at a time/i);
    expect(tools.map((t) => t.function.name)).toContain('exchange_delivered_order_items');
    expect(tools).toHaveLength(11);
  });
});

describe('policy rules', () => {
  it("acting without the user's yes is a no-confirmation violation, and a violation is never a success", async () => {
    const task = findTask((t) => t.category === 'cancel');
    const script = expertScript(task, 1);
    const w = script.findIndex(isWriteTurn);
    const { last, rules } = await play(task, [...script.slice(0, w - 1), ...script.slice(w)]);
    expect(rules).toEqual(['no-confirmation']);
    expect(last.info.databaseMatchesGold).toBe(true);
    expect(last.info.success).toBe(false);
    expect(last.reward.components).toEqual({ outcome: 0, tool_calls: 1, authentication: 1, policy: 0.5, info: 1 });
    expect(last.reward.total).toBeCloseTo(0.2 * 1 + 0.1 * 1 + 0.1 * 0.5 + 0.1 * 1, 12); // 0.45
  });

  it('a write before authentication is refused by the tool and is an unauthenticated-access violation', async () => {
    const task = findTask((t) => t.category === 'cancel' && t.user.knowsOrderId);
    const script = expertScript(task, 1);
    const w = script.findIndex(isWriteTurn);
    // Ask (user answers), confirm (user says yes), act — with no lookup at all.
    const { last, rules, steps, env } = await play(task, [script[0], script[w - 1], script[w], script[w + 1]]);
    expect(steps[2].messages[0].content).toMatch(/^Error: cancel_pending_order: the user is not authenticated; .*find_user_id_by_email/);
    expect(rules).toEqual(['unauthenticated-access']);
    const hashes = (env as ServiceEnv).databaseHashes()!;
    expect(hashes.current).toBe(hashes.initial);
    expect(last.reward.components).toEqual({ outcome: 0, tool_calls: 0, authentication: 0, policy: 0, info: 0 });
  });

  it('a lookup before the user gave credentials does not authenticate', async () => {
    const task = findTask((t) => t.category === 'info' && t.user.authVia === 'email');
    const script = expertScript(task, 1);
    const { last, rules } = await play(task, [script[1], script[0], script[2], script[3], script[4]]);
    expect(last.reward.components.authentication).toBe(0);
    expect(rules).toContain('unauthenticated-access');
  });

  it('two consequential calls in one turn are a several-actions violation', async () => {
    const task = findTask((t) => t.category === 'modify_address');
    const script = expertScript(task, 1);
    const w = script.findIndex(isWriteTurn);
    const both = [...(script[w] as ToolCall[]), { name: 'cancel_pending_order', arguments: { order_id: orderOf(task), reason: 'no longer needed' } }];
    const { last, rules } = await play(task, [...script.slice(0, w), both, 'Done. Anything else?']);
    expect(rules).toContain('several-actions');
    expect(rules).toContain('no-confirmation');
    expect(last.reward.components.outcome).toBe(0);
    expect(last.reward.components.tool_calls).toBe(0.5);
  });

  it('a write the policy forbids is a forbidden-change violation and leaves the database alone', async () => {
    const task = findTask((t) => t.goal.kind === 'forbidden_cancel');
    const script = expertScript(task, 1);
    const lookups = script.slice(0, 4);
    const id = orderOf(task);
    const { last, rules, steps } = await play(task, [
      ...lookups,
      `I will cancel order ${id}. Do you confirm (yes/no)?`,
      [{ name: 'cancel_pending_order', arguments: { order_id: id, reason: 'no longer needed' } }],
      `I'm sorry, but order ${id} cannot be cancelled because it is no longer pending.`,
    ]);
    expect(steps[4].messages[0].content).toMatch(/^Yes/);
    expect(steps[5].messages[0].content).toMatch(/^Error: cancel_pending_order: order .* only pending orders can be cancelled/);
    expect(rules).toEqual(['forbidden-change']);
    expect(last.info.endReason).toBe('user-refusal-accepted');
    // Resolved in the end, but the attempt broke a rule: no outcome; the rest pays (progress was made).
    expect(last.reward.components).toEqual({ outcome: 0, tool_calls: 1, authentication: 1, policy: 0.5, info: 1 });
  });

  it("reading another user's order after authenticating is an unauthenticated-access violation", async () => {
    const task = findTask((t) => t.category === 'info');
    const db = seedDatabase(task.dbSeed);
    const foreign = Object.values(db.orders).find((o) => o.user_id !== task.user.userId)!;
    const script = expertScript(task, 1);
    const { rules } = await play(task, [...script.slice(0, 3), [{ name: 'get_order_details', arguments: { order_id: foreign.order_id } }]]);
    expect(rules).toEqual(['unauthenticated-access']);
  });

  it('a forbidden request refused without authenticating is not an outcome', async () => {
    const task = findTask((t) => t.category === 'transfer');
    const { last } = await play(task, ["I'm sorry, but I cannot help with that under our policy."]);
    expect(last.info.endReason).toBe('user-refusal-accepted');
    expect(last.reward.components.outcome).toBe(0);
  });
});

describe('facts', () => {
  it('counts a stated fact, but not a message that lists every possible answer', async () => {
    const task = findTask((t) => t.goal.kind === 'info' && t.goal.question === 'status');
    const script = expertScript(task, 1);
    const good = await play(task, script);
    expect(good.last.reward.components).toMatchObject({ info: 1, outcome: 1 });
    const listing = `Order ${orderOf(task)} is pending, processed, delivered or cancelled.`;
    const bad = await play(task, [...script.slice(0, -1), listing]);
    expect(bad.last.reward.components).toMatchObject({ info: 0, outcome: 0 });
  });
});

describe('robustness', () => {
  const task = findTask((t) => t.category === 'return');

  it('turns malformed calls, unknown tools and bad arguments into error observations', async () => {
    const { steps } = await play(task, [
      '<tool_call>{"name": "get_user_details", "arguments": </tool_call>',
      '<tool_call>{"name": "teleport", "arguments": {}}</tool_call>',
      '<tool_call>{"name": "get_order_details", "arguments": {"order_id": 12}}</tool_call>',
      '<tool_call>{"name": "get_order_details"',
    ]);
    expect(steps.map((s) => s.done)).toEqual([false, false, false, false]);
    expect(steps[0].messages[0]).toMatchObject({ role: 'tool', name: 'invalid_tool_call' });
    expect(steps[0].messages[0].content).toMatch(/^Error: 1 malformed tool call\(s\): .*not valid JSON/);
    expect(steps[1].messages[0].content).toMatch(/unknown tool "teleport"/);
    expect(steps[2].messages[0].content).toMatch(/"order_id" must be a string/);
    expect(steps[3].messages[0].content).toMatch(/never closed/);
  });

  it('handles a 1 MB assistant message and truncates long tool outputs', async () => {
    const huge = 'blah '.repeat(200_000);
    const a = await play(task, [huge, `<tool_call>{"name": "transfer_to_human_agents", "arguments": {"summary": "${'x'.repeat(1_000_000)}"}}</tool_call>`]);
    expect(a.steps[0].messages[0].role).toBe('user');
    expect(a.last.info.endReason).toBe('transfer');
    const b = await play(task, [expertScript(task, 1)[0], [{ name: 'get_product_details', arguments: { product_id: Object.keys(seedDatabase(task.dbSeed).products)[0] } }]], { maxToolOutputChars: 50 });
    expect(b.last.messages[0].content).toMatch(/^.{50}\n…\[truncated \d+ characters\]$/s);
  });

  it('refuses a degenerate 1 MB run of tool-call tags quickly, as an error observation', async () => {
    const start = performance.now();
    const { steps } = await play(task, ['</tool_call>'.repeat(85_000), '<tool_call>'.repeat(90_000)]);
    expect(performance.now() - start).toBeLessThan(3000);
    for (const s of steps) {
      expect(s.done).toBe(false);
      expect(s.messages[0].content).toMatch(/more than 128 <tool_call> tags in one turn/);
    }
  });

  it(`runs at most ${MAX_CALLS_PER_TURN} calls per turn and says so`, async () => {
    const calls = Array.from({ length: 40 }, () => ({ name: 'get_product_details', arguments: { product_id: '1' } }));
    const { last } = await play(task, [calls]);
    expect(last.messages).toHaveLength(MAX_CALLS_PER_TURN + 1);
    expect(last.messages.at(-1)?.content).toMatch(/40 tool calls in one turn; only the first 16 ran/);
  });

  it('ends at maxTurns, and steps after the end (or before reset) say what to do', async () => {
    const { last, env } = await play(task, ['What is your email?', 'And your email again?', 'Please share your email.'], { maxTurns: 3 });
    expect(last).toMatchObject({ done: true, info: { limit: 'max-turns', endReason: 'max-turns' } });
    const after = await env.step('hello?');
    expect(after.done).toBe(true);
    expect(after.info.error).toMatch(/already ended; call reset\(task\)/);
    const fresh = await serviceFamily.createEnv().step('hi');
    expect(fresh.info.error).toMatch(/before reset\(task\)/);
  });

  it('transfer ends the episode; the user stop marker ends it too', async () => {
    const t = await play(task, [[{ name: 'transfer_to_human_agents', arguments: { summary: 'help' } }], 'still here?']);
    expect(t.steps).toHaveLength(1);
    expect(t.last.info.endReason).toBe('transfer');
    const s = await play(task, ['a', 'b', 'c', 'd']);
    expect(s.last.messages[0].content).toContain(STOP_MARKER);
    expect(s.steps).toHaveLength(3);
  });

  it('applies custom weights', async () => {
    const env = serviceFamily.createEnv(undefined, { outcome: 1, tool_calls: 0, authentication: 0, policy: 0, info: 0 });
    env.reset(task);
    const r = await env.step('hello');
    expect(r.reward.total).toBe(r.reward.components.outcome);
    expect(r.reward.weights.outcome).toBe(1);
  });
});
