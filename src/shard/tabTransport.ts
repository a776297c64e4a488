// Tabs of one browser (same origin): one BroadcastChannel per run for messages to everyone, and one
// per tab for messages to it alone, so a 40 MB snapshot meant for one tab is not copied into all.
// A BroadcastChannel copies what is posted (structured clone; a transfer list is not accepted, and
// tabs live in other processes anyway), so payloads travel as 1 MiB fragments of raw bytes, each
// in a buffer of its own (a clone of a view copies the view's whole buffer).
// The sender's id is what the envelope claims: tabs of one origin run the same code, so this is the
// trust boundary of the origin, not of the swarm (machines are authenticated by libp2p's noise).
import type { RawMessage } from './framing';
import { BaseTransport } from './transport';

interface Envelope {
  from: string;
  h: unknown;
  p?: Uint8Array;
}

const channelName = (runId: string, member?: string) => `tabforge-swarm/${runId}${member ? `/${member}` : ''}`;

export class TabTransport extends BaseTransport {
  readonly kind = 'tabs' as const;
  private readonly everyone: BroadcastChannel;
  private readonly mine: BroadcastChannel;
  private readonly direct = new Map<string, BroadcastChannel>();

  constructor(selfId: string, private readonly runId: string) {
    super(selfId);
    this.everyone = new BroadcastChannel(channelName(runId));
    this.mine = new BroadcastChannel(channelName(runId, selfId));
    const onMessage = (e: MessageEvent) => this.onEnvelope(e.data);
    this.everyone.onmessage = onMessage;
    this.mine.onmessage = onMessage;
    const onError = () => this.fault('unknown', 'a message could not be deserialised');
    this.everyone.onmessageerror = onError;
    this.mine.onmessageerror = onError;
  }

  private onEnvelope(data: unknown): void {
    const e = data as Partial<Envelope> | null;
    if (!e || typeof e !== 'object' || typeof e.from !== 'string' || e.from.length === 0 || e.from.length > 96) {
      return this.fault('unknown', 'a message without a valid sender id');
    }
    if (e.from === this.selfId) return; // our own id from another tab: ignore, never act on it
    if (e.p !== undefined && !(e.p instanceof Uint8Array)) return this.fault(e.from, 'payload is not bytes');
    this.receive(e.from, e.p ? { h: e.h, p: e.p } : { h: e.h });
  }

  protected async post(to: string | null, piece: RawMessage): Promise<void> {
    // A structured clone of a view copies its whole buffer: a fragment (a 1 MiB view into a 40 MB
    // snapshot) would post all 40 MB each time, so a view gets a buffer of its own first.
    const p = piece.p && (piece.p.byteOffset !== 0 || piece.p.byteLength !== piece.p.buffer.byteLength) ? piece.p.slice() : piece.p;
    const envelope: Envelope = p ? { from: this.selfId, h: piece.h, p } : { from: this.selfId, h: piece.h };
    if (to === null) return this.everyone.postMessage(envelope);
    let ch = this.direct.get(to);
    if (!ch) this.direct.set(to, (ch = new BroadcastChannel(channelName(this.runId, to))));
    ch.postMessage(envelope);
  }

  override disconnect(id: string): void {
    super.disconnect(id);
    this.direct.get(id)?.close();
    this.direct.delete(id);
  }

  async close(): Promise<void> {
    this.everyone.close();
    this.mine.close();
    for (const ch of this.direct.values()) ch.close();
    this.direct.clear();
  }
}
