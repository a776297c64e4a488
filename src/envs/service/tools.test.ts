import { describe, expect, it } from 'vitest';
import { databaseHash, seedDatabase } from './database';
import { SERVICE_TOOL_SPECS } from './toolSpecs';
import { executeTool } from './tools';
import type { Database, Order } from './types';

/** A database with one order of each kind we need, set up by hand so every test is exact. */
function fixture(): { db: Database; order: Order; userId: string } {
  const db = seedDatabase(2024);
  const order = Object.values(db.orders).find((o) => o.items.length >= 2)!;
  // Back to a clean pending order: one payment, no cancellation.
  order.status = 'pending';
  order.payment_history = order.payment_history.slice(0, 1);
  delete order.cancel_reason;
  return { db, order, userId: order.user_id };
}

/** An available variant of the same product, different from the item's own. */
function otherVariant(db: Database, order: Order, index = 0): string {
  const it = order.items[index];
  return Object.values(db.products[it.product_id].variants).find((v) => v.available && v.item_id !== it.item_id)!.item_id;
}

const original = (o: Order): string => o.payment_history[0].payment_method_id;

describe('read tools', () => {
  it('find the user by email (trimmed, any case) and by name + zip', () => {
    const { db, userId } = fixture();
    const u = db.users[userId];
    const byEmail = executeTool(db, 'find_user_id_by_email', { email: `  ${u.email.toUpperCase()} ` });
    expect(byEmail.ok).toBe(true);
    expect(JSON.parse(byEmail.output)).toEqual({ user_id: userId });
    expect(byEmail.foundUserId).toBe(userId);
    const byName = executeTool(db, 'find_user_id_by_name_zip', { first_name: u.name.first_name.toLowerCase(), last_name: u.name.last_name, zip: u.address.zip });
    expect(byName.foundUserId).toBe(userId);
  });

  it('say what to do when a user is not found', () => {
    const { db, userId } = fixture();
    const u = db.users[userId];
    const r = executeTool(db, 'find_user_id_by_email', { email: 'nobody@nowhere.test' });
    expect(r).toMatchObject({ ok: false, errorKind: 'not-found' });
    expect(r.output).toMatch(/^Error: .*no user with email.*name and zip/);
    const r2 = executeTool(db, 'find_user_id_by_name_zip', { first_name: u.name.first_name, last_name: u.name.last_name, zip: '00000' });
    expect(r2).toMatchObject({ ok: false, errorKind: 'not-found' });
  });

  it('return users, orders (with or without "#") and products as JSON, with the data owner', () => {
    const { db, order, userId } = fixture();
    const user = executeTool(db, 'get_user_details', { user_id: userId });
    expect(JSON.parse(user.output)).toEqual(db.users[userId]);
    expect(user.dataOwner).toBe(userId);
    const o = executeTool(db, 'get_order_details', { order_id: order.order_id.slice(1) });
    expect(JSON.parse(o.output).order_id).toBe(order.order_id);
    expect(o.dataOwner).toBe(userId);
    const p = executeTool(db, 'get_product_details', { product_id: order.items[0].product_id });
    expect(JSON.parse(p.output).name).toBe(order.items[0].name);
    expect(p.dataOwner).toBeUndefined();
  });

  it('report unknown ids as not-found errors', () => {
    const { db } = fixture();
    for (const [name, args] of [
      ['get_user_details', { user_id: 'ghost_1' }],
      ['get_order_details', { order_id: '#W0000000' }],
      ['get_product_details', { product_id: '123' }],
    ] as const) {
      expect(executeTool(db, name, args)).toMatchObject({ ok: false, errorKind: 'not-found' });
    }
  });
});

describe('prototype keys', () => {
  it('treats "constructor", "__proto__" and "toString" as unknown ids everywhere', () => {
    const { db, order } = fixture();
    const before = databaseHash(db);
    for (const key of ['constructor', '__proto__', 'toString']) {
      for (const [name, args] of [
        ['get_user_details', { user_id: key }],
        ['get_product_details', { product_id: key }],
        ['get_order_details', { order_id: key }],
        ['modify_pending_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], new_item_ids: [key], payment_method_id: original(order) }],
        ['modify_pending_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], new_item_ids: [otherVariant(db, order)], payment_method_id: key }],
      ] as const) {
        const r = executeTool(db, name, args);
        expect(r).toMatchObject({ ok: false, errorKind: 'not-found' });
        expect(typeof r.output).toBe('string');
      }
    }
    expect(databaseHash(db)).toBe(before);
  });
});

describe('argument checking', () => {
  it('rejects unknown tools, missing, unexpected and mistyped arguments without touching the database', () => {
    const { db, order } = fixture();
    const before = databaseHash(db);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['delete_everything', {}, /unknown tool "delete_everything"; available tools: find_user_id_by_email/],
      ['cancel_pending_order', { order_id: order.order_id }, /missing required argument "reason"/],
      ['cancel_pending_order', { order_id: order.order_id, reason: 'no longer needed', force: true }, /unexpected argument "force"/],
      ['cancel_pending_order', { order_id: 7, reason: 'no longer needed' }, /"order_id" must be a string, got a number/],
      ['cancel_pending_order', { order_id: order.order_id, reason: 'bored' }, /"reason" must be one of "no longer needed", "ordered by mistake"/],
      ['return_delivered_order_items', { order_id: order.order_id, item_ids: 'x', payment_method_id: 'p' }, /"item_ids" must be an array/],
      ['return_delivered_order_items', { order_id: order.order_id, item_ids: [1], payment_method_id: 'p' }, /"item_ids\[0\]" must be a string/],
    ];
    for (const [name, args, message] of cases) {
      const r = executeTool(db, name, args);
      expect(r.ok).toBe(false);
      expect(r.output).toMatch(message);
    }
    expect(databaseHash(db)).toBe(before);
    expect(SERVICE_TOOL_SPECS).toHaveLength(11);
  });
});

describe('cancel_pending_order', () => {
  it('cancels a pending order, records the reason and refunds the payment (gift cards get their balance back)', () => {
    const { db, order, userId } = fixture();
    const method = db.users[userId].payment_methods[original(order)];
    method.source = 'gift_card';
    method.balance = 10;
    const r = executeTool(db, 'cancel_pending_order', { order_id: order.order_id, reason: 'ordered by mistake' });
    expect(r.ok).toBe(true);
    expect(r.action).toEqual({ name: 'cancel_pending_order', arguments: { order_id: order.order_id, reason: 'ordered by mistake' } });
    expect(order.status).toBe('cancelled');
    expect(order.cancel_reason).toBe('ordered by mistake');
    const paid = order.payment_history[0].amount;
    expect(order.payment_history.at(-1)).toEqual({ transaction_type: 'refund', amount: paid, payment_method_id: method.id });
    expect(method.balance).toBeCloseTo(10 + paid, 2);
  });

  it('refuses non-pending orders as a policy error', () => {
    const { db, order } = fixture();
    for (const status of ['processed', 'delivered', 'cancelled'] as const) {
      order.status = status;
      const r = executeTool(db, 'cancel_pending_order', { order_id: order.order_id, reason: 'no longer needed' });
      expect(r).toMatchObject({ ok: false, errorKind: 'policy', isWrite: true });
      expect(r.output).toContain(`is "${status}"; only pending orders can be cancelled`);
    }
  });
});

describe('modify_pending_order_address', () => {
  const address = { address1: ' 1 New Road ', address2: '', city: 'Austin', state: 'TX', country: 'USA', zip: '78701' };
  it('changes the address of a pending order (trimmed)', () => {
    const { db, order } = fixture();
    const r = executeTool(db, 'modify_pending_order_address', { order_id: order.order_id, ...address });
    expect(r.ok).toBe(true);
    expect(order.address).toEqual({ ...address, address1: '1 New Road' });
  });
  it('refuses a delivered order', () => {
    const { db, order } = fixture();
    order.status = 'delivered';
    expect(executeTool(db, 'modify_pending_order_address', { order_id: order.order_id, ...address })).toMatchObject({ ok: false, errorKind: 'policy' });
  });
});

describe('modify_pending_order_items', () => {
  it('swaps a variant, charges the difference and stores canonical arguments whatever the argument order', () => {
    const { db, order } = fixture();
    const [a, b] = [order.items[0].item_id, order.items[1].item_id];
    const [na, nb] = [otherVariant(db, order, 0), otherVariant(db, order, 1)];
    const oldTotal = order.items.reduce((s, it) => s + it.price, 0);
    const pm = original(order);
    const r = executeTool(db, 'modify_pending_order_items', { order_id: order.order_id, item_ids: [b, a], new_item_ids: [nb, na], payment_method_id: pm });
    expect(r.ok).toBe(true);
    expect(r.action?.arguments).toEqual({ order_id: order.order_id, item_ids: [a, b], new_item_ids: [na, nb], payment_method_id: pm });
    expect(order.items.map((it) => it.item_id)).toContain(na);
    expect(order.items.map((it) => it.item_id)).not.toContain(a);
    const diff = order.items.reduce((s, it) => s + it.price, 0) - oldTotal;
    if (Math.abs(diff) > 0.001) expect(order.payment_history.at(-1)?.amount).toBeCloseTo(Math.abs(diff), 2);
    expect(order.status).toBe('pending');
  });

  it('refuses other products, unavailable variants, the same variant, unknown items, length mismatch and foreign payment methods', () => {
    const { db, order } = fixture();
    const before = databaseHash(db);
    const a = order.items[0].item_id;
    const otherProduct = Object.values(db.products).find((p) => p.product_id !== order.items[0].product_id)!;
    const foreign = Object.values(otherProduct.variants)[0].item_id;
    const pm = original(order);
    const call = (args: Record<string, unknown>) => executeTool(db, 'modify_pending_order_items', { order_id: order.order_id, item_ids: [a], new_item_ids: [otherVariant(db, order)], payment_method_id: pm, ...args });
    expect(call({ new_item_ids: [foreign] })).toMatchObject({ ok: false, errorKind: 'policy' });
    expect(call({ new_item_ids: [a] })).toMatchObject({ ok: false, errorKind: 'invalid-arguments' });
    expect(call({ new_item_ids: ['999'] })).toMatchObject({ ok: false, errorKind: 'not-found' });
    expect(call({ item_ids: ['999'] })).toMatchObject({ ok: false, errorKind: 'not-found' });
    expect(call({ new_item_ids: [] })).toMatchObject({ ok: false, errorKind: 'invalid-arguments' });
    expect(call({ payment_method_id: 'paypal_0' })).toMatchObject({ ok: false, errorKind: 'not-found' });
    const target = db.products[order.items[0].product_id].variants[otherVariant(db, order)];
    target.available = false;
    expect(call({ new_item_ids: [target.item_id] }).output).toMatch(/is not available/);
    target.available = true;
    order.status = 'processed';
    expect(call({})).toMatchObject({ ok: false, errorKind: 'policy' });
    order.status = 'pending';
    expect(databaseHash(db)).toBe(before);
  });

  it('refuses a gift card that cannot cover the charge', () => {
    const { db, order, userId } = fixture();
    const it = order.items[0];
    const pricier = Object.values(db.products[it.product_id].variants).find((v) => v.item_id !== it.item_id)!;
    pricier.available = true;
    pricier.price = it.price + 50;
    db.users[userId].payment_methods.gift_card_0 = { id: 'gift_card_0', source: 'gift_card', balance: 10 };
    const r = executeTool(db, 'modify_pending_order_items', { order_id: order.order_id, item_ids: [it.item_id], new_item_ids: [pricier.item_id], payment_method_id: 'gift_card_0' });
    expect(r).toMatchObject({ ok: false, errorKind: 'policy' });
    expect(r.output).toMatch(/balance of 10.00, less than the 50.00/);
  });
});

describe('return_delivered_order_items', () => {
  it('requests a return to the original method, storing sorted item ids', () => {
    const { db, order } = fixture();
    order.status = 'delivered';
    const ids = order.items.map((it) => it.item_id).reverse();
    const r = executeTool(db, 'return_delivered_order_items', { order_id: order.order_id, item_ids: ids, payment_method_id: original(order) });
    expect(r.ok).toBe(true);
    expect(order.status).toBe('return requested');
    expect(order.return_items).toEqual([...ids].sort());
  });

  it('refuses pending orders, empty or repeated items, and refunds to a non-original non-gift-card method', () => {
    const { db, order, userId } = fixture();
    const pm = original(order);
    const ids = [order.items[0].item_id];
    expect(executeTool(db, 'return_delivered_order_items', { order_id: order.order_id, item_ids: ids, payment_method_id: pm })).toMatchObject({ errorKind: 'policy' });
    order.status = 'delivered';
    expect(executeTool(db, 'return_delivered_order_items', { order_id: order.order_id, item_ids: [], payment_method_id: pm })).toMatchObject({ errorKind: 'invalid-arguments' });
    expect(executeTool(db, 'return_delivered_order_items', { order_id: order.order_id, item_ids: [ids[0], ids[0]], payment_method_id: pm })).toMatchObject({ errorKind: 'invalid-arguments' });
    db.users[userId].payment_methods.credit_card_9 = { id: 'credit_card_9', source: 'credit_card', brand: 'visa', last_four: '0001' };
    const r = executeTool(db, 'return_delivered_order_items', { order_id: order.order_id, item_ids: ids, payment_method_id: 'credit_card_9' });
    expect(r).toMatchObject({ ok: false, errorKind: 'policy' });
    expect(r.output).toContain(`original payment method (${pm}) or a gift card`);
  });
});

describe('exchange_delivered_order_items', () => {
  it('requests an exchange for another variant of the same product', () => {
    const { db, order } = fixture();
    order.status = 'delivered';
    const n = otherVariant(db, order);
    const r = executeTool(db, 'exchange_delivered_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], new_item_ids: [n], payment_method_id: original(order) });
    expect(r.ok).toBe(true);
    expect(order).toMatchObject({ status: 'exchange requested', exchange_items: [order.items[0].item_id], exchange_new_items: [n] });
  });
  it('refuses a pending order', () => {
    const { db, order } = fixture();
    const r = executeTool(db, 'exchange_delivered_order_items', { order_id: order.order_id, item_ids: [order.items[0].item_id], new_item_ids: [otherVariant(db, order)], payment_method_id: original(order) });
    expect(r).toMatchObject({ ok: false, errorKind: 'policy' });
  });
});

describe('transfer_to_human_agents', () => {
  it('succeeds and flags the transfer; a missing summary is an argument error', () => {
    const { db } = fixture();
    expect(executeTool(db, 'transfer_to_human_agents', { summary: 'wants a refund to a new card' })).toMatchObject({ ok: true, transferred: true, isWrite: false });
    expect(executeTool(db, 'transfer_to_human_agents', {})).toMatchObject({ ok: false, errorKind: 'invalid-arguments' });
  });
});

describe('write tools check authentication', () => {
  it('refuse a write for a caller who has not authenticated the order owner, and leave the database alone', () => {
    const { db, order, userId } = fixture();
    const before = databaseHash(db);
    const args = { order_id: order.order_id, reason: 'no longer needed' };
    const nobody = executeTool(db, 'cancel_pending_order', args, { authenticatedUserId: null });
    expect(nobody).toMatchObject({ ok: false, isWrite: true, errorKind: 'unauthenticated', dataOwner: userId });
    expect(nobody.output).toMatch(/the user is not authenticated; .*find_user_id_by_email/);
    const other = Object.keys(db.users).find((id) => id !== userId)!;
    const stranger = executeTool(db, 'cancel_pending_order', args, { authenticatedUserId: other });
    expect(stranger).toMatchObject({ ok: false, errorKind: 'unauthenticated' });
    expect(stranger.output).toMatch(/does not belong to the authenticated user/);
    expect(databaseHash(db)).toBe(before);
    expect(executeTool(db, 'cancel_pending_order', args, { authenticatedUserId: userId })).toMatchObject({ ok: true });
  });

  it('check the owner before the status, so a write cannot probe another user\'s order', () => {
    const { db, order } = fixture();
    order.status = 'delivered';
    for (const name of ['cancel_pending_order', 'modify_pending_order_address']) {
      const args = name === 'cancel_pending_order' ? { order_id: order.order_id, reason: 'no longer needed' } : { order_id: order.order_id, address1: 'a', address2: '', city: 'c', state: 'TX', country: 'USA', zip: '78701' };
      expect(executeTool(db, name, args, { authenticatedUserId: null })).toMatchObject({ errorKind: 'unauthenticated' });
    }
  });

  it('leave read tools and transfers to the policy monitor', () => {
    const { db, order } = fixture();
    expect(executeTool(db, 'get_order_details', { order_id: order.order_id }, { authenticatedUserId: null })).toMatchObject({ ok: true, dataOwner: order.user_id });
    expect(executeTool(db, 'transfer_to_human_agents', { summary: 'x' }, { authenticatedUserId: null })).toMatchObject({ ok: true });
  });
});
