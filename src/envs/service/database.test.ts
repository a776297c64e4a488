import { describe, expect, it } from 'vitest';
import { canonicalJson, hashText, stableHash } from './canonical';
import { cloneDatabase, databaseHash, DB_SHAPE, seedDatabase } from './database';

describe('seedDatabase', () => {
  it('is deterministic: the same seed gives the same database, another seed another one', () => {
    expect(canonicalJson(seedDatabase(42))).toBe(canonicalJson(seedDatabase(42)));
    expect(databaseHash(seedDatabase(42))).toBe(databaseHash(seedDatabase(42)));
    const hashes = new Set(Array.from({ length: 50 }, (_, s) => databaseHash(seedDatabase(s))));
    expect(hashes.size).toBe(50);
  });

  it('keeps its invariants over many seeds (unique credentials, consistent orders and items)', () => {
    for (let seed = 0; seed < 60; seed++) {
      const db = seedDatabase(seed);
      const users = Object.values(db.users);
      expect(users).toHaveLength(DB_SHAPE.users);
      expect(Object.keys(db.products)).toHaveLength(DB_SHAPE.products);
      expect(new Set(users.map((u) => u.email)).size).toBe(users.length);
      expect(new Set(users.map((u) => `${u.name.first_name} ${u.name.last_name} ${u.address.zip}`.toLowerCase())).size).toBe(users.length);
      for (const u of users) {
        const methods = Object.values(u.payment_methods);
        expect(methods.length).toBeGreaterThan(0);
        expect(methods.filter((m) => m.source === 'paypal').length).toBeLessThanOrEqual(1);
        expect(methods.filter((m) => m.source === 'gift_card').length).toBeLessThanOrEqual(1);
        const fours = methods.filter((m) => m.source === 'credit_card').map((m) => m.last_four);
        expect(new Set(fours).size).toBe(fours.length);
        for (const id of u.orders) {
          const o = db.orders[id];
          expect(o.user_id).toBe(u.user_id);
          expect(o.order_id).toMatch(/^#W\d{7}$/);
          expect(u.payment_methods[o.payment_history[0].payment_method_id]).toBeDefined();
          expect(new Set(o.items.map((it) => it.product_id)).size).toBe(o.items.length);
          expect(o.items.map((it) => it.item_id)).toEqual([...o.items.map((it) => it.item_id)].sort());
          for (const it of o.items) {
            const v = db.products[it.product_id].variants[it.item_id];
            expect(v.options).toEqual(it.options);
            expect(v.price).toBe(it.price);
          }
        }
      }
      for (const p of Object.values(db.products)) expect(Object.values(p.variants).filter((v) => v.available).length).toBeGreaterThanOrEqual(2);
      expect(Object.keys(db.orders).length).toBe(users.reduce((s, u) => s + u.orders.length, 0));
    }
  });

  it('clones deeply: changing the copy leaves the hash of the original alone', () => {
    const db = seedDatabase(7);
    const before = databaseHash(db);
    const copy = cloneDatabase(db);
    Object.values(copy.orders)[0].status = 'cancelled';
    Object.values(copy.orders)[0].items[0].price += 0.01;
    expect(databaseHash(db)).toBe(before);
    expect(databaseHash(copy)).not.toBe(before);
  });
});

describe('canonical JSON and hash', () => {
  it('ignores key order and undefined fields but not values', () => {
    expect(canonicalJson({ b: 1, a: [1, { y: 2, x: undefined, z: 'q' }] })).toBe('{"a":[1,{"y":2,"z":"q"}],"b":1}');
    expect(stableHash({ a: 1, b: 2 })).toBe(stableHash({ b: 2, a: 1 }));
    expect(stableHash({ a: 1, b: 2 })).not.toBe(stableHash({ a: 1, b: 3 }));
  });

  it('hashes to 16 hex digits and separates near-identical texts', () => {
    expect(hashText('abc')).toMatch(/^[0-9a-f]{16}$/);
    expect(hashText('abc')).not.toBe(hashText('abd'));
    expect(hashText('')).not.toBe(hashText(' '));
    const db = seedDatabase(3);
    expect(stableHash(db)).toBe(hashText(canonicalJson(db)));
  });
});
