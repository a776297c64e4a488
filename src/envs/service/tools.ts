// The retail tools as pure functions on the database. Read tools return JSON; write tools check that
// the order belongs to the user the agent authenticated, then the policy's hard rules (status, same
// product, availability, refund method, gift-card balance), mutate the database and return the
// updated order. Every failure is an error observation naming what went wrong and what to do;
// nothing here throws on model input.

import { roundMoney } from './database';
import { ALL_SERVICE_TOOLS_BY_NAME } from './toolSpecs';
import type { Database, Order, OrderItem, User, WriteAction, WriteToolName } from './types';
import { validateArguments } from './validate';

/** Why a tool call failed: bad call shape, missing record, a write for a user not authenticated, or a rule of the policy. */
export type ToolErrorKind = 'unknown-tool' | 'invalid-arguments' | 'not-found' | 'unauthenticated' | 'policy';

/**
 * Who runs a tool: the agent of an episode, with the user it has authenticated (null before), or
 * 'trusted' — the task generator and the gold check replaying gold actions. The environment always
 * passes the agent's session, so a model's write runs only on the authenticated user's orders.
 */
export type ToolCaller = { authenticatedUserId: string | null } | 'trusted';

/** Result of one tool call, with what the policy monitor needs to know about it. */
export interface ToolOutcome {
  /** True when the tool ran; false for any error. */
  ok: boolean;
  /** Observation text for the model: JSON on success, "Error: …" on failure. */
  output: string;
  /** Set when ok is false. */
  errorKind?: ToolErrorKind;
  /** Whether the tool is a write (consequential) tool, whatever the result. */
  isWrite: boolean;
  /** User whose data the call read or acted on (absent for lookups, products, unknown ids). */
  dataOwner?: string;
  /** find_user_id_* only: the user id found. */
  foundUserId?: string;
  /** Successful writes only: the action with canonical arguments (for gold comparison). */
  action?: WriteAction;
  /** transfer_to_human_agents succeeded: the episode ends. */
  transferred?: boolean;
}

export const WRITE_TOOLS: ReadonlySet<string> = new Set<WriteToolName>([
  'cancel_pending_order',
  'modify_pending_order_address',
  'modify_pending_order_items',
  'return_delivered_order_items',
  'exchange_delivered_order_items',
]);

const MAX_ECHO = 60;
const clip = (s: string): string => (s.length > MAX_ECHO ? `${s.slice(0, MAX_ECHO)}…` : s);

/** Own-property lookup: model-chosen keys like "constructor" or "__proto__" must not reach Object.prototype. */
function own<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record !== undefined && Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/** Accepts order ids with or without the leading '#'. */
export function normalizeOrderId(id: string): string {
  const t = id.trim();
  return t.startsWith('#') ? t : `#${t}`;
}

class ToolError extends Error {
  constructor(
    readonly kind: ToolErrorKind,
    message: string,
    readonly dataOwner?: string,
  ) {
    super(message);
  }
}

function getOrder(db: Database, rawId: string): Order {
  const id = normalizeOrderId(rawId);
  const order = own(db.orders, id);
  if (!order) throw new ToolError('not-found', `order "${clip(rawId)}" not found; ask the user for the order id (it looks like "#W1234567") or look it up in get_user_details`);
  return order;
}

/** Write tools act only for the owner of the order, once the agent has authenticated them. */
function requireAuthenticatedOwner(order: Order, caller: ToolCaller): void {
  if (caller === 'trusted' || caller.authenticatedUserId === order.user_id) return;
  const message =
    caller.authenticatedUserId === null
      ? `the user is not authenticated; before acting on order ${order.order_id}, ask for their email (or first name, last name and zip code) and find their user id with find_user_id_by_email or find_user_id_by_name_zip`
      : `order ${order.order_id} does not belong to the authenticated user; act only on the authenticated user's own orders`;
  throw new ToolError('unauthenticated', message, order.user_id);
}

function requireStatus(order: Order, status: Order['status'], action: string): void {
  if (order.status !== status) {
    throw new ToolError(
      'policy',
      `order ${order.order_id} is "${order.status}"; only ${status} orders can be ${action}. Explain this to the user, or transfer to a human agent if they insist`,
      order.user_id,
    );
  }
}

function findOrderItems(order: Order, itemIds: string[]): OrderItem[] {
  if (itemIds.length === 0) throw new ToolError('invalid-arguments', 'item_ids is empty; list at least one item id from the order', order.user_id);
  if (new Set(itemIds).size !== itemIds.length) throw new ToolError('invalid-arguments', 'item_ids contains the same item twice; list each item once', order.user_id);
  return itemIds.map((id) => {
    const item = order.items.find((it) => it.item_id === id);
    if (!item) {
      const have = order.items.map((it) => it.item_id).join(', ');
      throw new ToolError('not-found', `item "${clip(id)}" is not in order ${order.order_id}; its item ids are: ${have}`, order.user_id);
    }
    return item;
  });
}

function paymentMethodOf(db: Database, order: Order, id: string) {
  const user = db.users[order.user_id];
  const method = own(user?.payment_methods, id);
  if (!method) {
    const have = Object.keys(user?.payment_methods ?? {}).join(', ');
    throw new ToolError('not-found', `payment method "${clip(id)}" is not one of the user's; their methods are: ${have}`, order.user_id);
  }
  return method;
}

/** Checks a same-product swap and returns the new items (aligned with `oldItems`) and Σ new − Σ old. */
function planSwap(db: Database, order: Order, oldItems: OrderItem[], newIds: string[]): { newItems: OrderItem[]; difference: number } {
  if (newIds.length !== oldItems.length) {
    throw new ToolError('invalid-arguments', `item_ids has ${oldItems.length} entries but new_item_ids has ${newIds.length}; give one new item per item`, order.user_id);
  }
  const newItems = oldItems.map((old, i) => {
    const product = db.products[old.product_id];
    const variant = own(product?.variants, newIds[i]);
    if (!variant) {
      const elsewhere = Object.values(db.products).some((p) => own(p.variants, newIds[i]) !== undefined);
      if (elsewhere) {
        throw new ToolError('policy', `item "${clip(newIds[i])}" is not a variant of ${old.name} (product ${old.product_id}); items can only be swapped for a variant of the same product`, order.user_id);
      }
      throw new ToolError('not-found', `item "${clip(newIds[i])}" does not exist; look up product ${old.product_id} with get_product_details to find its variants`, order.user_id);
    }
    if (variant.item_id === old.item_id) throw new ToolError('invalid-arguments', `new item ${variant.item_id} is the same variant as the old one; choose a different variant`, order.user_id);
    if (!variant.available) throw new ToolError('policy', `item ${variant.item_id} of ${old.name} is not available; offer the user an available variant`, order.user_id);
    return { name: old.name, product_id: old.product_id, item_id: variant.item_id, options: { ...variant.options }, price: variant.price };
  });
  const difference = roundMoney(newItems.reduce((s, it) => s + it.price, 0) - oldItems.reduce((s, it) => s + it.price, 0));
  return { newItems, difference };
}

function checkGiftCardCovers(method: { source: string; balance?: number; id: string }, amount: number, owner: string): void {
  if (method.source === 'gift_card' && amount > (method.balance ?? 0)) {
    throw new ToolError('policy', `gift card ${method.id} has a balance of ${(method.balance ?? 0).toFixed(2)}, less than the ${amount.toFixed(2)} to pay; use another payment method`, owner);
  }
}

/** Sorts (item, newItem) pairs by old item id so the stored lists do not depend on argument order. */
function sortedPairs(oldIds: string[], newIds: string[]): [string[], string[]] {
  const pairs = oldIds.map((id, i) => [id, newIds[i]] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return [pairs.map((p) => p[0]), pairs.map((p) => p[1])];
}

const json = (value: unknown): string => JSON.stringify(value);

type Args = Record<string, unknown>;
type Impl = (db: Database, a: Args, caller: ToolCaller) => Omit<ToolOutcome, 'isWrite' | 'ok'>;

const IMPLS: Record<string, Impl> = {
  find_user_id_by_email(db, a) {
    const email = String(a.email).trim().toLowerCase();
    const user = Object.values(db.users).find((u) => u.email === email);
    if (!user) throw new ToolError('not-found', `no user with email "${clip(String(a.email))}"; ask the user to check it, or try their name and zip code`);
    return { output: json({ user_id: user.user_id }), foundUserId: user.user_id };
  },
  find_user_id_by_name_zip(db, a) {
    const [first, last, zip] = [a.first_name, a.last_name, a.zip].map((v) => String(v).trim().toLowerCase());
    const user = Object.values(db.users).find(
      (u) => u.name.first_name.toLowerCase() === first && u.name.last_name.toLowerCase() === last && u.address.zip === zip,
    );
    if (!user) throw new ToolError('not-found', 'no user with that first name, last name and zip code; ask the user to check them, or ask for their email');
    return { output: json({ user_id: user.user_id }), foundUserId: user.user_id };
  },
  get_user_details(db, a) {
    const user: User | undefined = own(db.users, String(a.user_id).trim());
    if (!user) throw new ToolError('not-found', `user "${clip(String(a.user_id))}" not found; find the user id with find_user_id_by_email or find_user_id_by_name_zip`);
    return { output: json(user), dataOwner: user.user_id };
  },
  get_order_details(db, a) {
    const order = getOrder(db, String(a.order_id));
    return { output: json(order), dataOwner: order.user_id };
  },
  get_order_status(db, a) {
    const order = getOrder(db, String(a.order_id));
    return { output: json({ order_id: order.order_id, status: order.status }), dataOwner: order.user_id };
  },
  get_product_details(db, a) {
    const product = own(db.products, String(a.product_id).trim());
    if (!product) throw new ToolError('not-found', `product "${clip(String(a.product_id))}" not found; product ids are listed in the items of get_order_details`);
    return { output: json(product) };
  },
  cancel_pending_order(db, a, caller) {
    const order = getOrder(db, String(a.order_id));
    requireAuthenticatedOwner(order, caller);
    requireStatus(order, 'pending', 'cancelled');
    // Refund what each method paid net of earlier refunds.
    const net = new Map<string, number>();
    for (const p of order.payment_history) net.set(p.payment_method_id, (net.get(p.payment_method_id) ?? 0) + (p.transaction_type === 'payment' ? p.amount : -p.amount));
    for (const [methodId, amount] of net) {
      const refund = roundMoney(amount);
      if (refund <= 0) continue;
      order.payment_history.push({ transaction_type: 'refund', amount: refund, payment_method_id: methodId });
      const method = db.users[order.user_id]?.payment_methods[methodId];
      if (method?.source === 'gift_card') method.balance = roundMoney((method.balance ?? 0) + refund);
    }
    order.status = 'cancelled';
    order.cancel_reason = a.reason as Order['cancel_reason'];
    return { output: json(order), dataOwner: order.user_id, action: { name: 'cancel_pending_order', arguments: { order_id: order.order_id, reason: a.reason } } };
  },
  modify_pending_order_address(db, a, caller) {
    const order = getOrder(db, String(a.order_id));
    requireAuthenticatedOwner(order, caller);
    requireStatus(order, 'pending', 'modified');
    const address = {
      address1: String(a.address1).trim(),
      address2: String(a.address2).trim(),
      city: String(a.city).trim(),
      state: String(a.state).trim(),
      country: String(a.country).trim(),
      zip: String(a.zip).trim(),
    };
    order.address = address;
    return { output: json(order), dataOwner: order.user_id, action: { name: 'modify_pending_order_address', arguments: { order_id: order.order_id, ...address } } };
  },
  modify_pending_order_items(db, a, caller) {
    const order = getOrder(db, String(a.order_id));
    requireAuthenticatedOwner(order, caller);
    requireStatus(order, 'pending', 'modified');
    const oldItems = findOrderItems(order, a.item_ids as string[]);
    const { newItems, difference } = planSwap(db, order, oldItems, a.new_item_ids as string[]);
    const method = paymentMethodOf(db, order, String(a.payment_method_id));
    checkGiftCardCovers(method, difference, order.user_id);
    const replaced = new Map(oldItems.map((old, i) => [old.item_id, newItems[i]]));
    order.items = order.items.map((it) => replaced.get(it.item_id) ?? it).sort((x, y) => (x.item_id < y.item_id ? -1 : 1));
    if (difference !== 0) {
      order.payment_history.push({ transaction_type: difference > 0 ? 'payment' : 'refund', amount: Math.abs(difference), payment_method_id: method.id });
      if (method.source === 'gift_card') method.balance = roundMoney((method.balance ?? 0) - difference);
    }
    const [itemIds, newIds] = sortedPairs(a.item_ids as string[], a.new_item_ids as string[]);
    return {
      output: json(order),
      dataOwner: order.user_id,
      action: { name: 'modify_pending_order_items', arguments: { order_id: order.order_id, item_ids: itemIds, new_item_ids: newIds, payment_method_id: method.id } },
    };
  },
  return_delivered_order_items(db, a, caller) {
    const order = getOrder(db, String(a.order_id));
    requireAuthenticatedOwner(order, caller);
    requireStatus(order, 'delivered', 'returned');
    findOrderItems(order, a.item_ids as string[]);
    const method = paymentMethodOf(db, order, String(a.payment_method_id));
    const original = order.payment_history[0]?.payment_method_id;
    if (method.id !== original && method.source !== 'gift_card') {
      throw new ToolError('policy', `refunds go to the original payment method (${original}) or a gift card of the user, not ${method.id}`, order.user_id);
    }
    order.status = 'return requested';
    order.return_items = [...(a.item_ids as string[])].sort();
    order.return_payment_method_id = method.id;
    return {
      output: json(order),
      dataOwner: order.user_id,
      action: { name: 'return_delivered_order_items', arguments: { order_id: order.order_id, item_ids: order.return_items, payment_method_id: method.id } },
    };
  },
  exchange_delivered_order_items(db, a, caller) {
    const order = getOrder(db, String(a.order_id));
    requireAuthenticatedOwner(order, caller);
    requireStatus(order, 'delivered', 'exchanged');
    const oldItems = findOrderItems(order, a.item_ids as string[]);
    const { difference } = planSwap(db, order, oldItems, a.new_item_ids as string[]);
    const method = paymentMethodOf(db, order, String(a.payment_method_id));
    checkGiftCardCovers(method, difference, order.user_id);
    const [itemIds, newIds] = sortedPairs(a.item_ids as string[], a.new_item_ids as string[]);
    order.status = 'exchange requested';
    order.exchange_items = itemIds;
    order.exchange_new_items = newIds;
    order.exchange_payment_method_id = method.id;
    order.exchange_price_difference = difference;
    return {
      output: json(order),
      dataOwner: order.user_id,
      action: { name: 'exchange_delivered_order_items', arguments: { order_id: order.order_id, item_ids: itemIds, new_item_ids: newIds, payment_method_id: method.id } },
    };
  },
  transfer_to_human_agents() {
    return { output: json({ result: 'Transfer successful' }), transferred: true };
  },
};

/**
 * Runs one tool call on `db` (mutating it on successful writes) for `caller` (see ToolCaller; the
 * default 'trusted' is for gold replays only). `offered`: the tools of the episode's level (a tool
 * outside it is unknown to the agent); default every tool. Total: never throws.
 */
export function executeTool(db: Database, name: string, args: Record<string, unknown>, caller: ToolCaller = 'trusted', offered: ReadonlyMap<string, unknown> = ALL_SERVICE_TOOLS_BY_NAME): ToolOutcome {
  const spec = offered.has(name) ? ALL_SERVICE_TOOLS_BY_NAME.get(name) : undefined;
  const isWrite = WRITE_TOOLS.has(name);
  if (!spec || !IMPLS[name]) {
    const known = [...offered.keys()].join(', ');
    return { ok: false, isWrite, errorKind: 'unknown-tool', output: `Error: unknown tool "${clip(name)}"; available tools: ${known}` };
  }
  const problem = validateArguments(args, spec.function.parameters);
  if (problem) return { ok: false, isWrite, errorKind: 'invalid-arguments', output: `Error: ${name}: ${problem}` };
  try {
    return { ok: true, isWrite, ...IMPLS[name](db, args, caller) };
  } catch (e) {
    if (e instanceof ToolError) return { ok: false, isWrite, errorKind: e.kind, dataOwner: e.dataOwner, output: `Error: ${name}: ${e.message}` };
    // A bug of ours, not the model's: still an observation, never a crash of the rollout.
    return { ok: false, isWrite, errorKind: 'invalid-arguments', output: `Error: ${name} failed internally (${e instanceof Error ? e.message : String(e)})` };
  }
}
