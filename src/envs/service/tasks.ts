// Task generator: seeds a database, picks a user and an order that fit the category, writes the
// user's goal and the hidden gold solution, and checks that replaying the gold actions succeeds.
// Categories rotate with the index so every slice of tasks covers all seven.

import { Rng } from '../../util/rng';
import { mixSeeds } from '../../util/seeds';
import { splitTaskSeed, type Split } from '../splits';
import { cloneDatabase, databaseSeed, randomAddress, roundMoney, seedDatabase } from './database';
import { SERVICE_LEVEL_SPECS, type ServiceLevel } from './levels';
import { executeTool } from './tools';
import {
  CANCEL_REASONS,
  SERVICE_CATEGORIES,
  type Database,
  type GoalItem,
  type Order,
  type PaymentMethod,
  type ServiceCategory,
  type ServiceGoal,
  type ServiceTask,
  type User,
  type WriteAction,
} from './types';

/** What a category builder decides; the rest of the task is filled in by generateServiceTask. */
interface TaskDraft {
  /** The user the task is about. */
  user: User;
  /** The order the goal is about, when there is one. */
  order?: Order;
  /** The user's goal. */
  goal: ServiceGoal;
  /** Gold write actions (may be empty). */
  goldActions: WriteAction[];
  /** Facts the agent must tell. */
  requiredFacts: string[];
  /** The payment method the goal names, when relevant. */
  paymentMethod?: PaymentMethod;
}

const MAX_ATTEMPTS = 100;

/** How the simulated user names a payment method (unique per user: one PayPal, one gift card, distinct last fours). */
export function describePaymentMethod(method: PaymentMethod): string {
  if (method.source === 'paypal') return 'my PayPal account';
  if (method.source === 'gift_card') return 'my gift card';
  const brand = (method.brand ?? 'credit').replace(/^./, (c) => c.toUpperCase());
  return `my ${brand} credit card ending in ${method.last_four}`;
}

/** Sum of item prices of an order, as the two-decimal string the agent must state. */
export function orderTotal(order: Order): string {
  return roundMoney(order.items.reduce((s, it) => s + it.price, 0)).toFixed(2);
}

function ordersWhere(db: Database, pred: (o: Order) => boolean): Order[] {
  return Object.values(db.orders).filter(pred);
}

/** Items of an order whose product has another available variant, with one such variant picked. */
function swappableItems(db: Database, order: Order, rng: Rng): GoalItem[] {
  const out: GoalItem[] = [];
  for (const it of order.items) {
    const choices = Object.values(db.products[it.product_id].variants).filter((v) => v.available && v.item_id !== it.item_id);
    if (choices.length === 0) continue;
    const target = rng.pick(choices);
    out.push({ itemId: it.item_id, productName: it.name, options: { ...it.options }, newItemId: target.item_id, newOptions: { ...target.options } });
  }
  return out;
}

function asGoalItem(order: Order, itemId: string): GoalItem {
  const it = order.items.find((x) => x.item_id === itemId)!;
  return { itemId: it.item_id, productName: it.name, options: { ...it.options } };
}

/** Picks 1 item (70%) or 2 items (30%, when there are two). */
function pickSome<T>(rng: Rng, items: T[]): T[] {
  const n = items.length >= 2 && rng.next() < 0.3 ? 2 : 1;
  return rng.shuffle(items).slice(0, n);
}

function originalMethod(db: Database, order: Order): PaymentMethod {
  return db.users[order.user_id].payment_methods[order.payment_history[0].payment_method_id];
}

/** Swap/exchange/return arguments with item lists sorted by old item id (how tools store them). */
function itemArgs(orderId: string, items: GoalItem[], methodId: string, withNew: boolean): Record<string, unknown> {
  const sorted = [...items].sort((a, b) => (a.itemId < b.itemId ? -1 : 1));
  const args: Record<string, unknown> = { order_id: orderId, item_ids: sorted.map((i) => i.itemId) };
  if (withNew) args.new_item_ids = sorted.map((i) => i.newItemId!);
  args.payment_method_id = methodId;
  return args;
}

/** What a level asks of a builder (levels.ts). */
interface BuildOptions {
  /** Information tasks ask only this question. */
  question?: 'status';
  /** Returns and exchanges use the order's original payment method. */
  originalPaymentOnly?: boolean;
}

type Builder = (db: Database, rng: Rng, split: Split, opts: BuildOptions) => TaskDraft | null;

function swapBuilder(kind: 'modify_items' | 'exchange'): Builder {
  return (db, rng, _split, opts) => {
    const status = kind === 'modify_items' ? 'pending' : 'delivered';
    const candidates = ordersWhere(db, (o) => o.status === status && swappableItems(db, o, new Rng(0)).length > 0);
    if (candidates.length === 0) return null;
    const order = rng.pick(candidates);
    const items = pickSome(rng, swappableItems(db, order, rng));
    const user = db.users[order.user_id];
    const method = opts.originalPaymentOnly || rng.next() < 0.7 ? originalMethod(db, order) : rng.pick(Object.values(user.payment_methods));
    const name = kind === 'modify_items' ? 'modify_pending_order_items' : 'exchange_delivered_order_items';
    const goal: ServiceGoal = { kind, orderId: order.order_id, items, paymentMethodId: method.id };
    return { user, order, goal, goldActions: [{ name, arguments: itemArgs(order.order_id, items, method.id, true) }], requiredFacts: [], paymentMethod: method };
  };
}

const BUILDERS: Record<Exclude<ServiceCategory, 'transfer'>, Builder> = {
  cancel(db, rng) {
    const candidates = ordersWhere(db, (o) => o.status === 'pending');
    if (candidates.length === 0) return null;
    const order = rng.pick(candidates);
    const reason = rng.pick(CANCEL_REASONS);
    return {
      user: db.users[order.user_id],
      order,
      goal: { kind: 'cancel', orderId: order.order_id, reason },
      goldActions: [{ name: 'cancel_pending_order', arguments: { order_id: order.order_id, reason } }],
      requiredFacts: [],
    };
  },
  modify_address(db, rng, split) {
    const candidates = ordersWhere(db, (o) => o.status === 'pending');
    if (candidates.length === 0) return null;
    const order = rng.pick(candidates);
    const address = randomAddress(rng, split);
    if (address.zip === order.address.zip) return null;
    return {
      user: db.users[order.user_id],
      order,
      goal: { kind: 'modify_address', orderId: order.order_id, address },
      goldActions: [{ name: 'modify_pending_order_address', arguments: { order_id: order.order_id, ...address } }],
      requiredFacts: [],
    };
  },
  modify_items: swapBuilder('modify_items'),
  exchange: swapBuilder('exchange'),
  return(db, rng, _split, opts) {
    const candidates = ordersWhere(db, (o) => o.status === 'delivered');
    if (candidates.length === 0) return null;
    const order = rng.pick(candidates);
    const items = pickSome(rng, order.items.map((it) => asGoalItem(order, it.item_id)));
    const user = db.users[order.user_id];
    const giftCard = Object.values(user.payment_methods).find((m) => m.source === 'gift_card');
    const method = !opts.originalPaymentOnly && giftCard && rng.next() < 0.3 ? giftCard : originalMethod(db, order);
    return {
      user,
      order,
      goal: { kind: 'return', orderId: order.order_id, items, paymentMethodId: method.id },
      goldActions: [{ name: 'return_delivered_order_items', arguments: itemArgs(order.order_id, items, method.id, false) }],
      requiredFacts: [],
      paymentMethod: method,
    };
  },
  info(db, rng, _split, opts) {
    const order = rng.pick(ordersWhere(db, () => true));
    const question = opts.question ?? rng.pick(['status', 'total', 'items'] as const);
    const facts = question === 'status' ? [order.status] : question === 'total' ? [orderTotal(order)] : order.items.map((it) => it.name);
    return { user: db.users[order.user_id], order, goal: { kind: 'info', orderId: order.order_id, question }, goldActions: [], requiredFacts: facts };
  },
};

/** A request the policy forbids: the agent should refuse or transfer, and change nothing. */
const buildForbidden: Builder = (db, rng, split) => {
  const variant = rng.pick(['cancel', 'address', 'exchange', 'out_of_scope'] as const);
  if (variant === 'out_of_scope') {
    const user = rng.pick(Object.values(db.users));
    const request = rng.pick(['change_email', 'price_match', 'refund_new_card'] as const);
    return { user, goal: { kind: 'out_of_scope', request }, goldActions: [], requiredFacts: [] };
  }
  const shipped = ordersWhere(db, (o) => (variant === 'exchange' ? o.status === 'delivered' : o.status === 'delivered' || o.status === 'processed'));
  if (shipped.length === 0) return null;
  const order = rng.pick(shipped);
  const user = db.users[order.user_id];
  const base = { user, order, goldActions: [], requiredFacts: [] };
  if (variant === 'cancel') return { ...base, goal: { kind: 'forbidden_cancel', orderId: order.order_id, reason: rng.pick(CANCEL_REASONS) } };
  if (variant === 'address') return { ...base, goal: { kind: 'forbidden_address', orderId: order.order_id, address: randomAddress(rng, split) } };
  const item = rng.pick(order.items);
  const others = Object.values(db.products).filter((p) => !order.items.some((it) => it.product_id === p.product_id));
  if (others.length === 0) return null;
  const wanted = rng.pick(others);
  return { ...base, goal: { kind: 'forbidden_exchange', orderId: order.order_id, items: [asGoalItem(order, item.item_id)], wantedProductName: wanted.name } };
};

/** A product name that is in this order and in no other order of the user ('' when none). */
function uniqueProductOf(db: Database, user: User, order: Order): string {
  for (const it of order.items) {
    const elsewhere = user.orders.some((id) => id !== order.order_id && db.orders[id].items.some((x) => x.product_id === it.product_id));
    if (!elsewhere) return it.name;
  }
  return '';
}

/** True when every gold action succeeds on a copy of the database. */
function goldReplays(db: Database, actions: WriteAction[]): boolean {
  const copy = cloneDatabase(db);
  return actions.every((a) => executeTool(copy, a.name, a.arguments).ok);
}

/** Per level, a salt of its task stream (retail keeps 0: its stream is the one every figure so far used). */
const LEVEL_SALT: Readonly<Record<ServiceLevel, number>> = { retail: 0, status: 0x57a7, write: 0x3217, 'multi-step': 0x3e7c };

/**
 * Deterministic task for (seed, index, split) of a level (levels.ts; default the full retail set).
 * Disjoint by construction: the task's database is built from the split's users, addresses, product
 * types and ids (database.ts), and the simulated user words everything with the split's phrasings
 * (userText.ts), whatever the level.
 */
export function generateServiceTask(seed: number, index: number, split: Split, level: ServiceLevel = 'retail'): ServiceTask {
  const spec = SERVICE_LEVEL_SPECS[level];
  const categories = spec.categories;
  const category = categories[((index % categories.length) + categories.length) % categories.length];
  const base = level === 'retail' ? splitTaskSeed(seed, index, split, 0x5e4c) : mixSeeds(splitTaskSeed(seed, index, split, 0x5e4c), LEVEL_SALT[level]);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const dbSeed = databaseSeed(mixSeeds(base, attempt, 11), split);
    const db = seedDatabase(dbSeed);
    const rng = new Rng(mixSeeds(base, attempt, 23));
    const draft = category === 'transfer' ? buildForbidden(db, rng, split, {}) : BUILDERS[category](db, rng, split, { question: spec.question, originalPaymentOnly: spec.originalPaymentOnly });
    if (!draft || !goldReplays(db, draft.goldActions)) continue;
    const hint = draft.order ? uniqueProductOf(db, draft.user, draft.order) : '';
    const knowsOrderId = spec.userKnowsOrderId || !draft.order || hint === '' || rng.next() < 0.7;
    const authVia = spec.emailOnly || rng.next() < 0.6 ? 'email' : 'name_zip';
    return {
      family: 'service',
      id: level === 'retail' ? `service-${split}-${seed}-${index}` : `service-${level}-${split}-${seed}-${index}`,
      category,
      ...(level === 'retail' ? {} : { level }),
      split,
      dbSeed,
      userSeed: mixSeeds(base, attempt, 37),
      user: {
        userId: draft.user.user_id,
        email: draft.user.email,
        firstName: draft.user.name.first_name,
        lastName: draft.user.name.last_name,
        zip: draft.user.address.zip,
        authVia,
        knowsOrderId,
        orderHint: knowsOrderId ? '' : hint,
        paymentDescription: draft.paymentMethod ? describePaymentMethod(draft.paymentMethod) : '',
      },
      goal: draft.goal,
      goldActions: draft.goldActions,
      requiredFacts: draft.requiredFacts,
    };
  }
  throw new Error(`service task generator found no ${category} task for seed ${seed}, index ${index} in ${MAX_ATTEMPTS} databases; this is a bug in src/envs/service/tasks.ts`);
}
