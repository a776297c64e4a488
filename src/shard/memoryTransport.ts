// Members in one process (Node tests): a hub delivers each piece asynchronously and copies payloads,
// as a BroadcastChannel or a socket would, so nothing shares memory by accident. A test can also
// inject raw pieces from a member that does not exist (a hostile or broken peer) and cut members off.
// A hub made with `linked` connects only the pairs it allows (machines through a relay: every joiner
// dials the leader only): a broadcast reaches the linked members, a send to another one throws.
import type { RawMessage } from './framing';
import { BaseTransport } from './transport';

export class MemoryHub {
  readonly members = new Map<string, MemoryTransport>();

  /** `linked(a, b)`: whether a and b have a connection (default: everyone reaches everyone). */
  constructor(readonly linked: (a: string, b: string) => boolean = () => true) {}

  /** A hub where every member is connected to `center` only (the leader of a run across machines). */
  static star(center: string): MemoryHub {
    return new MemoryHub((a, b) => a === center || b === center);
  }

  join(id: string): MemoryTransport {
    if (this.members.has(id)) throw new Error(`memory hub: '${id}' already joined`);
    const t = new MemoryTransport(id, this);
    this.members.set(id, t);
    return t;
  }

  /** Delivers a piece as if `from` had sent it (to one member or everyone but `from`). */
  inject(from: string, to: string | null, piece: RawMessage): void {
    const copy: RawMessage = piece.p ? { h: structuredClone(piece.h), p: piece.p.slice() } : { h: structuredClone(piece.h) };
    if (to !== null && !this.linked(from, to)) throw new Error(`memory hub: ${from} has no connection to ${to}`);
    const targets = to === null ? [...this.members.values()].filter((m) => m.selfId !== from && this.linked(from, m.selfId)) : [this.members.get(to)].filter((m) => m !== undefined);
    for (const t of targets) setTimeout(() => t.deliver(from, copy), 0);
  }

  /** A member vanishes without a word (a closed tab): nobody is told. */
  vanish(id: string): void {
    this.members.get(id)?.silence();
    this.members.delete(id);
  }
}

export class MemoryTransport extends BaseTransport {
  readonly kind = 'memory' as const;
  private silent = false;

  constructor(id: string, private readonly hub: MemoryHub) {
    super(id);
  }

  protected async post(to: string | null, piece: RawMessage): Promise<void> {
    if (!this.silent) this.hub.inject(this.selfId, to, piece);
  }

  /** Called by the hub. */
  deliver(from: string, piece: RawMessage): void {
    if (!this.silent) this.receive(from, piece);
  }

  /** Stops sending and receiving (the member is gone). */
  silence(): void {
    this.silent = true;
  }

  async close(): Promise<void> {
    this.silence();
    this.hub.members.delete(this.selfId);
  }
}
