// The seeded retail database of one episode: a small catalog (10 products with variants), 6 users
// with payment methods and 2–4 orders each. Small on purpose: every tool output fits the default
// tool-output limit, and building one takes well under a millisecond.
// Splits: the database seed names its split (databaseSeed: the two low bits), and a database of
// split S draws users, addresses and product types from S's parts of the pools (catalog.ts) and
// ids whose first digit belongs to S (train 1-7, validation 8, test 9). So no test user, order,
// product or id can occur in a training database, whatever the seeds.

import { Rng } from '../../util/rng';
import type { Split } from '../splits';
import { stableHash } from './canonical';
import { CARD_BRANDS, CITIES, EMAIL_DOMAINS, FIRST_NAMES, LAST_NAMES, PRODUCT_TEMPLATES, STREETS } from './catalog';
import { CANCEL_REASONS, type Address, type Database, type Order, type OrderItem, type OrderStatus, type PaymentMethod, type Product, type User, type Variant } from './types';

/** Sizes of a seeded database. */
export const DB_SHAPE = {
  /** Products drawn from the catalog templates. */
  products: 10,
  /** Users (customers). */
  users: 6,
  /** Orders per user, inclusive range. */
  ordersPerUser: [2, 4] as const,
  /** Items per order, inclusive range (distinct products). */
  itemsPerOrder: [1, 4] as const,
  /** Variants per product, inclusive range. */
  variantsPerProduct: [3, 6] as const,
};

/** Status weights of seeded orders (pending, processed, delivered, cancelled). */
const STATUS_WEIGHTS: [OrderStatus, number][] = [
  ['pending', 0.32],
  ['processed', 0.13],
  ['delivered', 0.4],
  ['cancelled', 0.15],
];

/** Dollars rounded to cents (all money in the database goes through this). */
export function roundMoney(x: number): number {
  return Math.round(x * 100) / 100;
}

/** A deep copy (the database is plain JSON). */
export function cloneDatabase(db: Database): Database {
  return structuredClone(db);
}

/** Stable hash of the canonical JSON of the database. */
export function databaseHash(db: Database): string {
  return stableHash(db);
}

const SPLIT_CODE: Readonly<Record<Split, number>> = { train: 0, validation: 1, test: 2 };

/** A database seed for `split`: `base` with its two low bits set to the split's code. */
export function databaseSeed(base: number, split: Split): number {
  return ((base & ~3) | SPLIT_CODE[split]) >>> 0;
}

/** The split a database seed belongs to (code 3 counts as train). */
export function splitOfDatabaseSeed(seed: number): Split {
  const code = seed & 3;
  return code === 1 ? 'validation' : code === 2 ? 'test' : 'train';
}

/** First digit of every id, per split: ids of different splits never coincide. */
const ID_FIRST_DIGIT: Readonly<Record<Split, readonly [number, number]>> = { train: [1, 7], validation: [8, 8], test: [9, 9] };

/** Draws a decimal-digit string id of `split` not yet in `taken`. */
function uniqueDigits(rng: Rng, digits: number, taken: Set<string>, split: Split): string {
  for (;;) {
    let s = String(rng.int(...ID_FIRST_DIGIT[split]));
    for (let i = 1; i < digits; i++) s += String(rng.int(0, 9));
    if (!taken.has(s)) {
      taken.add(s);
      return s;
    }
  }
}

/** A random address of `split`'s cities and streets; its zip has the city's prefix. */
export function randomAddress(rng: Rng, split: Split): Address {
  const place = rng.pick(CITIES[split]);
  const hasSuite = rng.next() < 0.3;
  return {
    address1: `${rng.int(1, 999)} ${rng.pick(STREETS[split])}`,
    address2: hasSuite ? `Suite ${rng.int(100, 999)}` : '',
    city: place.city,
    state: place.state,
    country: 'USA',
    zip: `${place.zipPrefix}${String(rng.int(0, 999)).padStart(3, '0')}`,
  };
}

function seedProducts(rng: Rng, ids: Set<string>, split: Split): Record<string, Product> {
  const products: Record<string, Product> = {};
  for (const template of rng.shuffle(PRODUCT_TEMPLATES[split]).slice(0, DB_SHAPE.products)) {
    const product_id = uniqueDigits(rng, 10, ids, split);
    const variants: Record<string, Variant> = {};
    const wanted = rng.int(DB_SHAPE.variantsPerProduct[0], DB_SHAPE.variantsPerProduct[1]);
    const seen = new Set<string>();
    for (let attempt = 0; attempt < 50 && seen.size < wanted; attempt++) {
      const options: Record<string, string> = {};
      for (const [name, values] of Object.entries(template.options)) options[name] = rng.pick(values);
      const key = JSON.stringify(options);
      if (seen.has(key)) continue;
      seen.add(key);
      const item_id = uniqueDigits(rng, 10, ids, split);
      // The first two variants are always available so every product can be swapped or exchanged.
      const available = seen.size <= 2 || rng.next() < 0.7;
      const price = roundMoney(rng.uniform(template.priceRange[0], template.priceRange[1]));
      variants[item_id] = { item_id, options, available, price };
    }
    products[product_id] = { product_id, name: template.name, variants };
  }
  return products;
}

function seedPaymentMethods(rng: Rng, ids: Set<string>, split: Split): Record<string, PaymentMethod> {
  const methods: PaymentMethod[] = [];
  const cards = rng.int(1, 2);
  for (let i = 0; i < cards; i++) {
    const brand = rng.pick(CARD_BRANDS);
    methods.push({ id: `credit_card_${uniqueDigits(rng, 7, ids, split)}`, source: 'credit_card', brand, last_four: String(rng.int(1000, 9999)) });
  }
  // Two cards of one user never share the last four digits (users tell cards apart by them).
  if (methods.length === 2 && methods[0].last_four === methods[1].last_four) methods.pop();
  if (rng.next() < 0.5) methods.push({ id: `paypal_${uniqueDigits(rng, 7, ids, split)}`, source: 'paypal' });
  if (rng.next() < 0.5) methods.push({ id: `gift_card_${uniqueDigits(rng, 7, ids, split)}`, source: 'gift_card', balance: roundMoney(rng.int(0, 300)) });
  return Object.fromEntries(methods.map((m) => [m.id, m]));
}

function pickStatus(rng: Rng): OrderStatus {
  let u = rng.next();
  for (const [status, w] of STATUS_WEIGHTS) {
    if (u < w) return status;
    u -= w;
  }
  return 'delivered';
}

function seedOrder(rng: Rng, user: User, products: Product[], ids: Set<string>, split: Split): Order {
  const count = rng.int(DB_SHAPE.itemsPerOrder[0], DB_SHAPE.itemsPerOrder[1]);
  const items: OrderItem[] = rng
    .shuffle(products)
    .slice(0, count)
    .map((p) => {
      const v = rng.pick(Object.values(p.variants));
      return { name: p.name, product_id: p.product_id, item_id: v.item_id, options: { ...v.options }, price: v.price };
    })
    .sort((a, b) => (a.item_id < b.item_id ? -1 : 1));
  const status = pickStatus(rng);
  const method = rng.pick(Object.values(user.payment_methods));
  const total = roundMoney(items.reduce((s, it) => s + it.price, 0));
  const order: Order = {
    order_id: `#W${uniqueDigits(rng, 7, ids, split)}`,
    user_id: user.user_id,
    status,
    address: rng.next() < 0.8 ? { ...user.address } : randomAddress(rng, split),
    items,
    payment_history: [{ transaction_type: 'payment', amount: total, payment_method_id: method.id }],
  };
  if (status === 'cancelled') {
    order.cancel_reason = rng.pick(CANCEL_REASONS);
    order.payment_history.push({ transaction_type: 'refund', amount: total, payment_method_id: method.id });
  }
  return order;
}

/** Builds the database of one episode from the pools of the seed's split (databaseSeed). Deterministic: the same seed gives the same database. */
export function seedDatabase(seed: number): Database {
  const split = splitOfDatabaseSeed(seed);
  const rng = new Rng(seed);
  const ids = new Set<string>();
  const products = seedProducts(rng, ids, split);
  const users: Record<string, User> = {};
  const orders: Record<string, Order> = {};
  const emails = new Set<string>();
  const nameZips = new Set<string>();
  while (Object.keys(users).length < DB_SHAPE.users) {
    const first = rng.pick(FIRST_NAMES[split]);
    const last = rng.pick(LAST_NAMES[split]);
    const address = randomAddress(rng, split);
    const email = `${first}.${last}${rng.int(10, 99)}@${rng.pick(EMAIL_DOMAINS)}`.toLowerCase();
    const nameZip = `${first} ${last} ${address.zip}`.toLowerCase();
    // Credentials must identify exactly one user, or authentication would be ambiguous.
    if (emails.has(email) || nameZips.has(nameZip)) continue;
    emails.add(email);
    nameZips.add(nameZip);
    const user_id = `${first}_${last}_${uniqueDigits(rng, 4, ids, split)}`.toLowerCase();
    const user: User = { user_id, name: { first_name: first, last_name: last }, email, address, payment_methods: seedPaymentMethods(rng, ids, split), orders: [] };
    const orderCount = rng.int(DB_SHAPE.ordersPerUser[0], DB_SHAPE.ordersPerUser[1]);
    for (let i = 0; i < orderCount; i++) {
      const order = seedOrder(rng, user, Object.values(products), ids, split);
      orders[order.order_id] = order;
      user.orders.push(order.order_id);
    }
    users[user_id] = user;
  }
  return { users, orders, products };
}
