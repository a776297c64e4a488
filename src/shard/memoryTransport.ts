// Members in one process (Node tests): a hub delivers each piece asynchronously and copies payloads,
// as a BroadcastChannel or a socket would, so nothing shares memory by accident. A test can also
// inject raw pieces from a member that does not exist (a hostile or broken peer) and cut members off.
import type { RawMessage } from './framing';
import { BaseTransport } from './transport';

export class MemoryHub {
  readonly members = new Map<string, MemoryTransport>();

  join(id: string): MemoryTransport {
    if (this.members.has(id)) throw new Error(`memory hub: '${id}' already joined`);
    const t = new MemoryTransport(id, this);
    this.members.set(id, t);
    return t;
  }

  /** Delivers a piece as if `from` had sent it (to one member or everyone but `from`). */
  inject(from: string, to: string | null, piece: RawMessage): void {
    const copy: RawMessage = piece.p ? { h: structuredClone(piece.h), p: piece.p.slice() } : { h: structuredClone(piece.h) };
    const targets = to === null ? [...this.members.values()].filter((m) => m.selfId !== from) : [this.members.get(to)].filter((m) => m !== undefined);
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
