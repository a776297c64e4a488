// One interface for every way members of a swarm reach each other: tabs of one browser
// (BroadcastChannel, tabTransport.ts), machines (js-libp2p over WebRTC, libp2pTransport.ts) and
// memory (Node tests, memoryTransport.ts). A transport moves messages and reassembles fragments;
// it trusts nothing: validation, authentication and dropping misbehaving members are SwarmNode's.
import { fragmentsOf, type RawMessage, Reassembler } from './framing';
import type { SwarmMessage } from './protocol';

export interface TransportStats {
  bytesSent: number;
  bytesReceived: number;
  messagesSent: number;
  messagesReceived: number;
}

export type TransportKind = 'tabs' | 'libp2p' | 'memory';

export interface SwarmTransport {
  /** This member's id (tabs: a random id; libp2p: the peer id, authenticated by noise). */
  readonly selfId: string;
  readonly kind: TransportKind;
  /** Sends to one member; resolves once handed to the channel. */
  send(to: string, msg: SwarmMessage): Promise<void>;
  /** Sends to every member reachable (tabs: one post for all; libp2p: one send per connection). */
  broadcast(msg: SwarmMessage): Promise<void>;
  /** Every whole message (fragments put together), before validation. */
  onMessage(handler: (from: string, raw: RawMessage) => void): void;
  /** Something that is not a message at all (bad fragment, bad frame), with its claimed sender. */
  onFault(handler: (from: string, reason: string) => void): void;
  /** The transport saw a member go (libp2p: its connection closed); tabs cannot tell, heartbeats do. */
  onDisconnect(handler: (id: string) => void): void;
  /** Cuts a member off: its messages are ignored from now on (libp2p also closes its connections). */
  disconnect(id: string): void;
  stats(): TransportStats;
  close(): Promise<void>;
}

/** Fragmenting, reassembly, counters and handler lists: what every transport shares. */
export abstract class BaseTransport implements SwarmTransport {
  abstract readonly kind: TransportKind;
  protected readonly counters: TransportStats = { bytesSent: 0, bytesReceived: 0, messagesSent: 0, messagesReceived: 0 };
  private readonly messageHandlers: ((from: string, raw: RawMessage) => void)[] = [];
  private readonly faultHandlers: ((from: string, reason: string) => void)[] = [];
  private readonly disconnectHandlers: ((id: string) => void)[] = [];
  private readonly reassembler = new Reassembler();
  protected readonly blocked = new Set<string>();
  private nextMsgId = 1;

  constructor(readonly selfId: string) {}

  /** Hands one fragment (or whole small message) to the wire; `to` null = everyone. */
  protected abstract post(to: string | null, piece: RawMessage): Promise<void>;

  async send(to: string, msg: SwarmMessage): Promise<void> {
    for (const piece of fragmentsOf(msg, this.nextMsgId++)) await this.postCounted(to, piece);
  }

  async broadcast(msg: SwarmMessage): Promise<void> {
    for (const piece of fragmentsOf(msg, this.nextMsgId++)) await this.postCounted(null, piece);
  }

  private async postCounted(to: string | null, piece: RawMessage): Promise<void> {
    this.counters.messagesSent++;
    this.counters.bytesSent += piece.p?.byteLength ?? 0;
    await this.post(to, piece);
  }

  /** A piece arrived from `from` (subclasses call this). */
  protected receive(from: string, piece: RawMessage): void {
    if (this.blocked.has(from)) return;
    this.counters.messagesReceived++;
    this.counters.bytesReceived += piece.p?.byteLength ?? 0;
    const r = this.reassembler.push(from, piece);
    if (r === null) return;
    if ('error' in r) return this.fault(from, r.error);
    for (const h of this.messageHandlers) h(from, r.msg);
  }

  protected fault(from: string, reason: string): void {
    for (const h of this.faultHandlers) h(from, reason);
  }

  protected gone(id: string): void {
    this.reassembler.forget(id);
    for (const h of this.disconnectHandlers) h(id);
  }

  onMessage(handler: (from: string, raw: RawMessage) => void): void {
    this.messageHandlers.push(handler);
  }

  onFault(handler: (from: string, reason: string) => void): void {
    this.faultHandlers.push(handler);
  }

  onDisconnect(handler: (id: string) => void): void {
    this.disconnectHandlers.push(handler);
  }

  disconnect(id: string): void {
    this.blocked.add(id);
    this.reassembler.forget(id);
  }

  stats(): TransportStats {
    return { ...this.counters };
  }

  abstract close(): Promise<void>;
}
