// Train / validation / test splits, disjoint BY CONSTRUCTION: every content pool a task is built
// from (argument values, request phrasings, users, products, problem templates, tools) is cut once
// into three fixed parts that do not depend on any run seed; a task of split S draws only from S's
// part, and the run seed only picks within it. So no validation or test value, phrasing, template
// or tool can reach a training or SFT stream, whatever the seeds (asserted in splits.test.ts).
// Settings are chosen on validation; test is what gets reported.
import { hashString, mixSeeds } from '../util/seeds';

export type Split = 'train' | 'validation' | 'test';

/** The splits in report order. */
export const SPLITS: readonly Split[] = ['train', 'validation', 'test'];

export function isSplit(x: unknown): x is Split {
  return x === 'train' || x === 'validation' || x === 'test';
}

/** One list per split, written out by hand where a reader should see the cut (templates, tools). */
export type SplitLists<T> = Readonly<Record<Split, readonly T[]>>;

/** Shares of a pool per split; they sum to 1. */
export type SplitShares = Readonly<Record<Split, number>>;

/** 70 % train, 15 % validation, 15 % test. */
export const DEFAULT_SHARES: SplitShares = { train: 0.7, validation: 0.15, test: 0.15 };

/**
 * Cuts `pool` into fixed per-split parts: items are ordered by a hash of (`salt`, key) — not by any
 * run seed — then cut by `shares` (rounded; validation and test get ≥ 1 item each when the pool has
 * ≥ 3). Adding an item to a pool moves only that item's neighbours in the order, never the salt.
 * Throws on duplicate keys: the same value in two parts would be a leak.
 */
export function partitionPool<T>(pool: readonly T[], salt: string, key: (item: T) => string = String, shares: SplitShares = DEFAULT_SHARES): SplitLists<T> {
  const keys = pool.map(key);
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k)) throw new Error(`partitionPool(${salt}): "${k}" appears twice in the pool; remove the duplicate (it would land in two splits)`);
    seen.add(k);
  }
  const order = pool.map((item, i) => ({ item, h: hashString(`${salt}\u0000${keys[i]}`), k: keys[i] })).sort((a, b) => a.h - b.h || (a.k < b.k ? -1 : 1));
  const n = pool.length;
  const minEach = n >= 3 ? 1 : 0;
  const nValidation = Math.max(minEach, Math.round(n * shares.validation));
  const nTest = Math.max(minEach, Math.round(n * shares.test));
  const nTrain = n - nValidation - nTest;
  if (nTrain < 1) throw new Error(`partitionPool(${salt}): a pool of ${n} cannot be cut into train/validation/test; give it at least 3 items`);
  const items = order.map((o) => o.item);
  return { train: items.slice(0, nTrain), validation: items.slice(nTrain, nTrain + nValidation), test: items.slice(nTrain + nValidation) };
}

/**
 * Cuts a hand-written phrasing list by position: the last `heldOut` items → test, the `heldOut`
 * before them → validation, the rest → train (append new phrasings before the held-out ones to
 * grow train). Needs more than 2·heldOut items (`what` names the list in the error).
 */
export function cutByPosition<T>(list: readonly T[], what: string, heldOut = 1): SplitLists<T> {
  if (list.length <= 2 * heldOut) throw new Error(`${what}: a phrasing list needs > ${2 * heldOut} entries (train, then ${heldOut} validation and ${heldOut} test); got ${list.length}`);
  return { train: list.slice(0, -2 * heldOut), validation: list.slice(-2 * heldOut, -heldOut), test: list.slice(-heldOut) };
}

/** Per-split salts of the task streams (the content pools already differ per split; this only keeps the streams unrelated). */
const SPLIT_SALT: Readonly<Record<Split, number>> = { train: 0x7a11, validation: 0x5a1d, test: 0x7e57 };

/** Seed of task `index` of `split` in a run seeded `seed`, for a generator salted `salt`. */
export function splitTaskSeed(seed: number, index: number, split: Split, salt = 0): number {
  return mixSeeds(seed, index, SPLIT_SALT[split], salt);
}

/** Throws a clear error for a split name a caller made up (CLI input, old 'heldout' callers). */
export function checkSplit(split: unknown, where: string): Split {
  if (isSplit(split)) return split;
  const hint = split === 'heldout' ? " ('heldout' was renamed: use 'validation' for tuning and curves, 'test' for the reported figure)" : '';
  throw new Error(`${where}: unknown split ${JSON.stringify(split)}; use one of ${SPLITS.join(', ')}${hint}`);
}
