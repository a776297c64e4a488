// Pins the exact reward of cheap agents on customer-service tasks, worked out by hand from the
// rules in src/envs/service/reward.ts:
//   total = 0.5·outcome + 0.2·tool_calls + 0.1·authentication + 0.1·policy + 0.1·info, success = outcome;
//   policy (and tool_calls / info where the task has no writes / no facts) pay only after progress.
// The tasks are built here from a seeded database by structure (a pending order to cancel, an order
// whose status is asked, a delivered order someone wants cancelled), so the values below do not
// depend on which ids or names the database holds.
import { describe, expect, it } from 'vitest';
import { formatToolCalls, type ToolCall } from '../../tokenizer/toolCalls';
import type { Policy } from '../../envs/types';
import { seedDatabase } from '../../envs/service/database';
import { playEpisode } from '../../envs/service/episode';
import { expertScript, serviceExpertPolicy } from '../../envs/service/expert';
import { SERVICE_CATEGORIES, type Database, type Order, type ServiceGoal, type ServiceTask, type WriteAction } from '../../envs/service/types';
import { generateServiceTask } from '../../envs/service/tasks';
import { BROKEN_CALL_TEXT, formatBreakingPolicy, randomPolicy } from '../baselinePolicies';

const STATUSES = ['pending', 'processed', 'delivered', 'cancelled', 'return requested', 'exchange requested'];

/** The first database (by seed) with an order that fits, and that order. */
function findOrder(fits: (o: Order, db: Database) => boolean): { db: Database; dbSeed: number; order: Order } {
  for (let dbSeed = 1; dbSeed < 200; dbSeed++) {
    const db = seedDatabase(dbSeed);
    const order = Object.values(db.orders).find((o) => fits(o, db));
    if (order) return { db, dbSeed, order };
  }
  throw new Error('no seeded database has an order that fits; widen the search');
}

function taskFor(id: string, category: ServiceTask['category'], fits: (o: Order) => boolean, goalOf: (o: Order) => ServiceGoal, gold: (o: Order) => WriteAction[], facts: (o: Order) => string[]): ServiceTask {
  const { db, dbSeed, order } = findOrder(fits);
  const u = db.users[order.user_id];
  return {
    family: 'service',
    id,
    category,
    dbSeed,
    userSeed: 1,
    user: { userId: u.user_id, email: u.email, firstName: u.name.first_name, lastName: u.name.last_name, zip: u.address.zip, authVia: 'email', knowsOrderId: true, orderHint: '', paymentDescription: '' },
    goal: goalOf(order),
    goldActions: gold(order),
    requiredFacts: facts(order),
  };
}

const CANCEL = taskFor(
  'pin-cancel',
  'cancel',
  (o) => o.status === 'pending',
  (o) => ({ kind: 'cancel', orderId: o.order_id, reason: 'no longer needed' }),
  (o) => [{ name: 'cancel_pending_order', arguments: { order_id: o.order_id, reason: 'no longer needed' } }],
  () => [],
);
const STATUS = taskFor('pin-status', 'info', (o) => o.status === 'processed', (o) => ({ kind: 'info', orderId: o.order_id, question: 'status' }), () => [], (o) => [o.status]);
const FORBIDDEN = taskFor('pin-forbidden', 'transfer', (o) => o.status === 'delivered', (o) => ({ kind: 'forbidden_cancel', orderId: o.order_id, reason: 'ordered by mistake' }), () => [], () => []);
const TASKS = [CANCEL, STATUS, FORBIDDEN];
const orderOf = (t: ServiceTask): Order => seedDatabase(t.dbSeed).orders[(t.goal as { orderId: string }).orderId];

const ZERO = { outcome: 0, tool_calls: 0, authentication: 0, policy: 0, info: 0 };
const FULL = { outcome: 1, tool_calls: 1, authentication: 1, policy: 1, info: 1 };

type Turn = string | ToolCall[];
/** Plays fixed turns, then repeats the last one until the episode ends. */
const scripted = (turns: Turn[]): Policy => async (messages) => {
  const k = Math.min(messages.filter((m) => m.role === 'assistant').length, turns.length - 1);
  const t = turns[k];
  return typeof t === 'string' ? t : formatToolCalls(t);
};

async function play(task: ServiceTask, policy: Policy) {
  const r = await playEpisode(task, policy);
  return { ...r.last, turns: r.turns, messages: r.messages };
}

function expectReward(r: Awaited<ReturnType<typeof play>>, components: Record<string, number>, total: number, success: boolean): void {
  expect(r.reward.components).toEqual(components);
  expect(r.reward.total).toBeCloseTo(total, 12);
  expect(r.info.success).toBe(success);
}

/** The expert's opening: ask credentials and details, find the user, read the user and the order. */
const authenticateAndLookUp = (t: ServiceTask): Turn[] => expertScript(t, 1).slice(0, 4);

/** Each write tool once, all aimed at the task's order, with schema-valid arguments. */
function everyWriteCall(t: ServiceTask): ToolCall[] {
  const o = orderOf(t);
  const item = o.items[0].item_id;
  const pm = o.payment_history[0].payment_method_id;
  return [
    { name: 'cancel_pending_order', arguments: { order_id: o.order_id, reason: 'no longer needed' } },
    { name: 'modify_pending_order_address', arguments: { order_id: o.order_id, address1: '1 Main Street', address2: '', city: 'Austin', state: 'TX', country: 'USA', zip: '78701' } },
    { name: 'modify_pending_order_items', arguments: { order_id: o.order_id, item_ids: [item], new_item_ids: [item], payment_method_id: pm } },
    { name: 'return_delivered_order_items', arguments: { order_id: o.order_id, item_ids: [item], payment_method_id: pm } },
    { name: 'exchange_delivered_order_items', arguments: { order_id: o.order_id, item_ids: [item], new_item_ids: [item], payment_method_id: pm } },
  ];
}

describe('service reward pins', () => {
  it('the expert reaches full reward on every pinned task', async () => {
    for (const t of TASKS) expectReward(await play(t, serviceExpertPolicy(t, 1)), FULL, 1, true);
  });

  it('do-nothing ("" or "ok") scores 0 on every pinned task and every generated category', async () => {
    for (const t of TASKS) for (const text of ['', 'ok']) expectReward(await play(t, scripted([text])), ZERO, 0, false);
    for (let i = 0; i < SERVICE_CATEGORIES.length; i++) {
      const r = await play(generateServiceTask(4, i, 'train'), scripted(['ok']));
      expect(r.reward.total, SERVICE_CATEGORIES[i]).toBe(0);
    }
  });

  it('format-breaking and the seeded random baseline score 0 (neither can authenticate, so nothing counts)', async () => {
    for (const t of TASKS) {
      const broken = await play(t, formatBreakingPolicy());
      expect(broken.messages.filter((m) => m.role === 'assistant').every((m) => m.content === BROKEN_CALL_TEXT)).toBe(true);
      expect(broken.info.endReason).toBe('max-turns');
      expectReward(broken, ZERO, 0, false);
      for (const seed of [1, 2, 3]) expectReward(await play(t, randomPolicy(seed)), ZERO, 0, false);
    }
  });

  it('guess-everything: naming statuses two per message (no login, no tool) tells nothing', async () => {
    // Each status of the six is named once over three messages: five wrong alternatives in the
    // conversation (> 1 allowed), and no lookup before → no fact counts → every component 0.
    const pairs = [0, 2, 4].map((i) => `Your order is either ${STATUSES[i]} or ${STATUSES[i + 1]}.`);
    expectReward(await play(STATUS, scripted(pairs)), ZERO, 0, false);
    expectReward(await play(STATUS, scripted([`Your order is ${STATUSES.join(', ')}.`])), ZERO, 0, false);
    // A lucky guess of the true status, alone, without looking it up: not a fact from the tools → 0.
    expectReward(await play(STATUS, scripted([`Your order is ${orderOf(STATUS).status}.`])), ZERO, 0, false);
  });

  it('guess-everything after a clean lookup earns only the authentication step', async () => {
    // Authenticated before any access → authentication 1; the listing names 5 wrong statuses → info 0;
    // no progress → policy and tool_calls 0. total = 0.1 · 1 = 0.1
    const r = await play(STATUS, scripted([...authenticateAndLookUp(STATUS), `Your order is ${STATUSES.join(', ')}.`]));
    expectReward(r, { ...ZERO, authentication: 1 }, 0.1, false);
  });

  it('call-every-write-tool without logging in: every write is refused by the tool, nothing counts', async () => {
    for (const t of TASKS) {
      const r = await play(t, scripted([everyWriteCall(t)]));
      expect(r.messages.filter((m) => m.role === 'tool').every((m) => m.content.includes('the user is not authenticated'))).toBe(true);
      expect(r.info.databaseMatchesGold).toBe(t.goldActions.length === 0);
      expectReward(r, ZERO, 0, false);
    }
    // issue 13: cancel_pending_order with no login and no yes, then "done": refused → 0 (was outcome 1, total 0.80)
    const cancel = await play(CANCEL, scripted([[everyWriteCall(CANCEL)[0]], `Order ${CANCEL.goldActions[0].arguments.order_id} is cancelled.`]));
    expectReward(cancel, ZERO, 0, false);
  });

  it('call-every-write-tool after logging in, one per turn, with no confirmation', async () => {
    // cancel succeeds (= the gold action); the four others hit a cancelled order and are refused.
    // Violations: 5 × no-confirmation + 4 × forbidden-change = 9 → policy max(0, 1 − 4.5) = 0.
    // outcome 0 (violations), tool_calls 1/max(1, 1) = 1, authentication 1, info 1 (no facts, progress).
    // total = 0.2 + 0.1 + 0 + 0.1 = 0.4
    const writes = everyWriteCall(CANCEL).map((c) => [c]);
    const r = await play(CANCEL, scripted([...authenticateAndLookUp(CANCEL), ...writes, 'All done. Anything else?']));
    expect((r.info.allViolations as { rule: string }[]).map((v) => v.rule).sort()).toEqual([...Array(4).fill('forbidden-change'), ...Array(5).fill('no-confirmation')]);
    expect(r.info.databaseMatchesGold).toBe(true);
    expectReward(r, { outcome: 0, tool_calls: 1, authentication: 1, policy: 0, info: 1 }, 0.4, false);
  });

  it('the right write after logging in but without the user\'s yes is no success', async () => {
    // One no-confirmation violation → policy 0.5, outcome 0; total = 0.2 + 0.1 + 0.05 + 0.1 = 0.45
    const r = await play(CANCEL, scripted([...authenticateAndLookUp(CANCEL), [everyWriteCall(CANCEL)[0]], 'Your order is cancelled.']));
    expectReward(r, { outcome: 0, tool_calls: 1, authentication: 1, policy: 0.5, info: 1 }, 0.45, false);
  });

  it('a forbidden request refused without looking at the order is a guess', async () => {
    // authenticated (1), but the refusal did not follow a look at the order → not resolved → no progress.
    const script = expertScript(FORBIDDEN, 1).slice(0, 3); // ask, find user, user details — no order read
    const refuse = "I'm sorry, but I cannot cancel that order under our policy.";
    expectReward(await play(FORBIDDEN, scripted([...script, refuse])), { ...ZERO, authentication: 1 }, 0.1, false);
  });
});
