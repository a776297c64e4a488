// The collectives data parallelism needs. allGather, in rank order: each rank sends its bytes
// (gradients, parameter deltas) and a little JSON (losses, metrics) for round r; every rank gets
// every rank's contribution for round r, its own included, ordered by rank, and adds them up the
// same way — so all ranks hold bit-identical sums. reduceAtRank0: every rank's contribution reaches
// rank 0, which combines all of them (e.g. sums in rank order) and sends the one result to every
// other rank. A rank that claims another's place, repeats a round, runs too far ahead or sends
// nothing within the timeout stops the collective with a message naming it (data parallelism
// needs every rank for every step).
// Two routes for allGather: 'direct' (every rank sends to every other: tabs, where one post reaches
// all, and memory) and 'via-rank0' (across machines: a joiner is connected to the leader, rank 0,
// only, so ranks ≠ 0 send their contribution to rank 0, which checks it and forwards it unchanged
// to every other rank; a forwarded contribution is accepted from rank 0 only). Payloads a round:
// direct, W − 1 sent by each rank; via rank 0, 1 sent by each rank ≠ 0 and (W − 1)² by rank 0.
// reduceAtRank0 needs no forwarding: 1 sent by each rank ≠ 0, W − 1 by rank 0 (the gradients
// across machines take it: dataParallel.ts).
import type { HeaderOf } from './protocol';
import type { SwarmNode } from './swarmNode';

export interface Contribution {
  bytes: Uint8Array;
  info: unknown;
}

/** JSON that keeps NaN and ±Infinity (metrics can hold them; plain JSON turns them into null). */
export function encodeInfo(info: unknown): string {
  return JSON.stringify(info, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? { $num: String(v) } : v));
}

export function decodeInfo(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    const n = (v as { $num?: unknown } | null)?.$num;
    return typeof n === 'string' && ['NaN', 'Infinity', '-Infinity'].includes(n) ? Number(n) : v;
  });
}

export type CollectiveRoute = 'direct' | 'via-rank0';

const REFUSED = Symbol('refused');

export class Collective {
  private round = 0;
  /** Rank 0 on the via-rank0 route: forwards go out one after another, in the order they arrived. */
  private forwarding: Promise<void> = Promise.resolve();
  private readonly inbox = new Map<string, Contribution>();
  private failure: Error | null = null;
  private wake: () => void = () => {};

  constructor(
    private readonly node: SwarmNode,
    /** Names this collective (several may share a swarm). */
    readonly group: string,
    readonly rank: number,
    /** Member id of every rank, in rank order. */
    readonly ranks: readonly string[],
    private readonly timeoutMs = 120_000,
    readonly route: CollectiveRoute = 'direct',
  ) {
    if (ranks[rank] !== node.selfId) throw new Error(`collective '${group}': rank ${rank} is ${ranks[rank]}, not this member (${node.selfId})`);
    node.on('gather', (from, m) => (m.h.group === this.reduceGroup ? this.onReduce(from, m.h, m.p ?? new Uint8Array(0)) : this.onGather(from, m.h, m.p ?? new Uint8Array(0))));
    node.onLeave((id, why) => {
      const r = ranks.indexOf(id);
      if (r >= 0 && r !== rank) this.fail(new Error(`rank ${r} (${id}) left (${why}): the data-parallel run cannot go on without it`));
    });
  }

  get world(): number {
    return this.ranks.length;
  }

  /** reduceAtRank0's messages travel under their own group name: rank 0 never forwards them. */
  private get reduceGroup(): string {
    return `${this.group}:reduce`;
  }

  private fail(e: Error): void {
    this.failure ??= e;
    this.wake();
  }

  private onGather(from: string, h: HeaderOf<'gather'>, bytes: Uint8Array): void {
    if (h.group !== this.group) return;
    const problem = h.world !== this.world ? `says the group has ${h.world} ranks, it has ${this.world}`
      : this.ranks[h.rank] !== from && !this.forwardedByRank0(from, h.rank) ? `claims rank ${h.rank}, which is ${this.ranks[h.rank]}`
      : h.round < this.round - 1 || h.round > this.round + 1 ? `sent round ${h.round} while this rank is at round ${this.round}`
      : this.inbox.has(`${h.round}:${h.rank}`) ? `sent round ${h.round} twice`
      : null;
    const info = this.checked(from, h, problem);
    if (info === REFUSED) return;
    const own = bytes.slice();
    this.inbox.set(`${h.round}:${h.rank}`, { bytes: own, info });
    if (this.route === 'via-rank0' && this.rank === 0) this.forward(h, own);
    this.wake();
  }

  /**
   * reduceAtRank0's messages: at rank 0, a rank ≠ 0's own contribution; at a rank ≠ 0, rank 0's
   * result (rank 0 in the header). Kept under `reduce:` keys; nothing is forwarded.
   */
  private onReduce(from: string, h: HeaderOf<'gather'>, bytes: Uint8Array): void {
    const key = `reduce:${h.round}:${h.rank}`;
    const problem = h.world !== this.world ? `says the group has ${h.world} ranks, it has ${this.world}`
      : this.rank === 0 && (h.rank === 0 || this.ranks[h.rank] !== from) ? `claims rank ${h.rank}, which is ${this.ranks[h.rank]}`
      : this.rank !== 0 && (h.rank !== 0 || from !== this.ranks[0]) ? `sent a result in rank 0's place (rank 0 is ${this.ranks[0]})`
      : h.round < this.round - 1 || h.round > this.round + 1 ? `sent round ${h.round} while this rank is at round ${this.round}`
      : this.inbox.has(key) ? `sent round ${h.round} twice`
      : null;
    const info = this.checked(from, h, problem);
    if (info === REFUSED) return;
    this.inbox.set(key, { bytes: bytes.slice(), info });
    this.wake();
  }

  /** The message's side-information, or REFUSED (its sender dropped, the collective failed) when `problem` or its JSON is bad. */
  private checked(from: string, h: HeaderOf<'gather'>, problem: string | null): unknown {
    const refuse = (why: string, what: string) => {
      this.node.drop(from, `collective '${this.group}': ${why}`);
      this.fail(new Error(`collective '${this.group}': ${from} ${what}`));
      return REFUSED;
    };
    if (problem) return refuse(problem, problem);
    try {
      return decodeInfo(h.info);
    } catch {
      return refuse('side-information is not JSON', 'sent side-information that is not JSON');
    }
  }

  /** A contribution of rank `claimed` that rank 0 forwards (via-rank0 route, ranks ≠ 0 only). */
  private forwardedByRank0(from: string, claimed: number): boolean {
    return this.route === 'via-rank0' && this.rank !== 0 && claimed !== 0 && from === this.ranks[0];
  }

  /** Rank 0 (via-rank0): passes rank h.rank's checked contribution on to every other rank ≠ 0. */
  private forward(h: HeaderOf<'gather'>, bytes: Uint8Array): void {
    for (const [k, id] of this.ranks.entries()) {
      if (k === 0 || k === h.rank) continue;
      this.forwarding = this.forwarding.then(() => this.node.say(id, { h, p: bytes })).catch((e: unknown) => {
        this.fail(new Error(`collective '${this.group}': forwarding rank ${h.rank}'s round ${h.round} to rank ${k} (${id}) failed: ${(e as Error).message}`));
      });
    }
  }

  /** Every rank's contribution to the next round, in rank order. */
  async allGather(bytes: Uint8Array, info: unknown): Promise<Contribution[]> {
    const r = this.round++;
    this.inbox.set(`${r}:${this.rank}`, { bytes, info });
    const h: HeaderOf<'gather'> = { t: 'gather', group: this.group, round: r, rank: this.rank, world: this.world, bytes: bytes.byteLength, info: encodeInfo(info) };
    if (this.node.transport.kind === 'tabs') await this.node.say(null, { h, p: bytes }); // one post reaches every tab
    else if (this.route === 'via-rank0' && this.rank !== 0) await this.node.say(this.ranks[0], { h, p: bytes });
    else for (const [k, id] of this.ranks.entries()) if (k !== this.rank) await this.node.say(id, { h, p: bytes });
    return this.collect(r, '', this.ranks.map((_, k) => k));
  }

  /**
   * Rank 0 gets every rank's contribution to the next round (in rank order, its own first) and
   * `combine`s them into one result, which it sends to every other rank; every rank returns that
   * same result (ranks ≠ 0 never call `combine`). Any route: only rank 0 talks to the others. When
   * `combine` throws (a rank sent gradients of another model, or NaN), rank 0 tells every rank why
   * and all of them throw it at once, instead of the others waiting out the timeout.
   */
  async reduceAtRank0(bytes: Uint8Array, info: unknown, combine: (all: Contribution[]) => Contribution): Promise<Contribution> {
    const r = this.round++;
    const header = (b: Uint8Array, i: unknown): HeaderOf<'gather'> => ({ t: 'gather', group: this.reduceGroup, round: r, rank: this.rank, world: this.world, bytes: b.byteLength, info: encodeInfo(i) });
    if (this.rank !== 0) {
      await this.node.say(this.ranks[0], { h: header(bytes, info), p: bytes });
      const [sent] = await this.collect(r, 'reduce:', [0]);
      const got = sent.info as { result?: unknown; failed?: unknown } | null;
      if (typeof got?.failed === 'string') throw new Error(`collective '${this.group}': rank 0 could not combine round ${r}: ${got.failed}`);
      if (!got || !('result' in got)) throw new Error(`collective '${this.group}': rank 0 sent round ${r}'s result without its side-information`);
      return { bytes: sent.bytes, info: got.result };
    }
    this.inbox.set(`reduce:${r}:0`, { bytes, info });
    const all = await this.collect(r, 'reduce:', this.ranks.map((_, k) => k));
    let result: Contribution;
    try {
      result = combine(all);
    } catch (e) {
      const h = header(new Uint8Array(0), { failed: (e as Error).message });
      for (const [k, id] of this.ranks.entries()) if (k !== 0) await this.node.say(id, { h }).catch(() => {});
      throw e;
    }
    const h = header(result.bytes, { result: result.info });
    for (const [k, id] of this.ranks.entries()) if (k !== 0) await this.node.say(id, { h, p: result.bytes });
    return result;
  }

  /** Waits for round r's contributions of `from` (rank numbers) under `prefix`, takes them out of the inbox. */
  private async collect(r: number, prefix: string, from: readonly number[]): Promise<Contribution[]> {
    const deadline = performance.now() + this.timeoutMs;
    for (;;) {
      if (this.failure) throw this.failure;
      const missing = from.find((k) => !this.inbox.has(`${prefix}${r}:${k}`));
      if (missing === undefined) break;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`collective '${this.group}': rank ${missing} (${this.ranks[missing]}) sent nothing for round ${r} within ${this.timeoutMs / 1000} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000));
        this.wake = () => (clearTimeout(timer), resolve());
      });
    }
    const out = from.map((k) => this.inbox.get(`${prefix}${r}:${k}`)!);
    for (const k of from) this.inbox.delete(`${prefix}${r}:${k}`);
    return out;
  }
}
