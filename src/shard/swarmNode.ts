// A member of a swarm: who else is there (authenticated by the join secret), what each one is
// doing (heartbeats), and the gate every message passes. A message is acted on only when it
// parses (protocol.ts: schema and size) and comes from a member that proved the secret; a member
// that sends anything malformed, NaN-filled or oversized is dropped, banned for the run, and logged.
// A member that stops answering is removed after `silenceMs` (its work is re-assigned by whoever
// gave it). Times are this member's own clock only: peers' timestamps are shown, never compared.
// A tab that announced it is frozen (page lifecycle) is kept for `frozenSilenceMs` instead: it
// comes back with its state when Chrome resumes it. A hidden tab gets `hiddenSilenceMs` (≥ 70 s):
// after 5 minutes hidden Chrome runs its timers, heartbeats included, once a minute. A member whose own timers stopped for longer
// than the silence window (it was frozen itself) gives everyone a fresh window before judging.
import { helloProof, newNonce, sameProof } from './auth';
import type { RawMessage } from './framing';
import { DEFAULT_LIMITS, type HeaderOf, type Lifecycle, parseSwarmMessage, type PayloadLimits, SWARM_PROTOCOL_VERSION, type SwarmHeader, type SwarmMessage, type SwarmRole } from './protocol';
import type { SwarmTransport } from './transport';

export interface MemberStatus {
  role: SwarmRole;
  /** Newest weights version held (−1: none). */
  version: number;
  rolloutsPerSec: number;
  busy: boolean;
  visible: boolean;
  /** Page lifecycle (default 'active': Node members and pages without the events). */
  lifecycle?: Lifecycle;
  stage: number;
  step: number;
}

export interface MemberInfo extends MemberStatus {
  id: string;
  lifecycle: Lifecycle;
  /** This member's clock (ms) when it was last heard from. */
  lastSeen: number;
  /** The member's own clock at its last heartbeat (shown as its skew; never used for decisions). */
  theirClock: number | null;
  joinedAt: number;
}

export type MessageKind = Exclude<SwarmHeader['t'], 'hello' | 'refused' | 'heartbeat' | 'bye'>;

export interface SwarmNodeOptions {
  transport: SwarmTransport;
  runId: string;
  secret: string;
  /** What this member says about itself in heartbeats (read at each one). */
  status: () => MemberStatus;
  limits?: PayloadLimits;
  heartbeatMs?: number;
  /** A member not heard from for this long is removed (default 10 s; hidden tabs get 1 timer per second). */
  silenceMs?: number;
  /** A member that announced it is frozen is removed only after this long (default 10 min). */
  frozenSilenceMs?: number;
  /** A member that announced it is hidden (throttled timers) is removed after this long (default 70 s, never less than silenceMs). */
  hiddenSilenceMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

export class SwarmNode {
  readonly members = new Map<string, MemberInfo>();
  /** Members dropped for misbehaving, with why: never heard again this run. */
  readonly banned = new Map<string, string>();
  private readonly handlers = new Map<MessageKind, ((from: string, msg: SwarmMessage) => void)[]>();
  private readonly joinHandlers: ((id: string) => void)[] = [];
  private readonly leaveHandlers: ((id: string, why: string) => void)[] = [];
  private readonly refusedHandlers: ((reason: string) => void)[] = [];
  private readonly lifecycleHandlers: ((id: string, now: Lifecycle, before: Lifecycle) => void)[] = [];
  private lastTick: number | null = null;
  private readonly rehelloAt = new Map<string, number>();
  private readonly chains = new Map<string, Promise<void>>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  limits: PayloadLimits;

  constructor(private readonly o: SwarmNodeOptions) {
    this.now = o.now ?? (() => performance.now());
    this.log = o.log ?? (() => {});
    this.limits = o.limits ?? DEFAULT_LIMITS;
    // One sender's messages are handled in order: a hello's (async) proof check finishes before its next message.
    o.transport.onMessage((from, raw) => {
      const next = (this.chains.get(from) ?? Promise.resolve()).then(() => this.onRaw(from, raw)).catch((e: unknown) => this.log(`handling a message from ${from} failed: ${(e as Error).message}`));
      this.chains.set(from, next);
      void next.then(() => {
        if (this.chains.get(from) === next) this.chains.delete(from);
      });
    });
    o.transport.onFault((from, reason) => this.drop(from, reason));
    o.transport.onDisconnect((id) => this.remove(id, 'disconnected'));
  }

  get selfId(): string {
    return this.o.transport.selfId;
  }

  get transport(): SwarmTransport {
    return this.o.transport;
  }

  /** Announces this member to everyone reachable and starts heartbeats and the silence sweep. */
  async start(): Promise<void> {
    await this.hello('*', false);
    const every = this.o.heartbeatMs ?? 1000;
    this.timer = setInterval(() => void this.tick(), every);
  }

  /** Introduces this member to one peer (libp2p: after dialling it). */
  hello(to: string, reply: boolean): Promise<void> {
    return this.helloTo(to, reply);
  }

  private async helloTo(to: string, reply: boolean): Promise<void> {
    const nonce = newNonce();
    const proof = await helloProof(this.o.secret, this.o.runId, this.selfId, to, nonce);
    const h: HeaderOf<'hello'> = { t: 'hello', v: SWARM_PROTOCOL_VERSION, run: this.o.runId, to, role: this.o.status().role, nonce, proof, reply };
    await (to === '*' ? this.o.transport.broadcast({ h }) : this.o.transport.send(to, { h })).catch((e: unknown) => this.log(`hello to ${to} failed: ${(e as Error).message}`));
  }

  private async tick(): Promise<void> {
    const t = this.now();
    const silence = this.o.silenceMs ?? 10_000;
    // Our own timers stopped longer than the window (this tab was frozen): we heard nobody, so nobody is judged yet.
    if (this.lastTick !== null && t - this.lastTick > silence) {
      this.log(`this member's timers stopped for ${((t - this.lastTick) / 1000).toFixed(1)} s (frozen or suspended): every member gets a fresh silence window`);
      for (const m of this.members.values()) m.lastSeen = Math.max(m.lastSeen, t);
    }
    this.lastTick = t;
    for (const m of [...this.members.values()]) {
      const limit = m.lifecycle === 'frozen' ? (this.o.frozenSilenceMs ?? 600_000) : m.lifecycle === 'hidden' ? Math.max(silence, this.o.hiddenSilenceMs ?? 70_000) : silence;
      if (t - m.lastSeen > limit) this.remove(m.id, `silent for ${((t - m.lastSeen) / 1000).toFixed(1)} s${m.lifecycle === 'active' ? '' : ` after it said it was ${m.lifecycle}`}`);
    }
    await this.beat();
  }

  /** Sends a heartbeat now (the page calls it on visibilitychange / freeze / resume, before the tab stops). */
  async beat(): Promise<void> {
    const { lifecycle = 'active', ...s } = this.o.status();
    const h: HeaderOf<'heartbeat'> = { t: 'heartbeat', ...s, lifecycle, sentAt: Date.now() };
    await this.o.transport.broadcast({ h }).catch((e: unknown) => this.log(`heartbeat failed: ${(e as Error).message}`));
  }

  /** Sends to one member (or everyone: null). */
  async say(to: string | null, msg: SwarmMessage): Promise<void> {
    if (to === null) await this.o.transport.broadcast(msg);
    else await this.o.transport.send(to, msg);
  }

  on<K extends MessageKind>(kind: K, handler: (from: string, msg: SwarmMessage<HeaderOf<K>>) => void): void {
    const list = this.handlers.get(kind) ?? [];
    list.push(handler as (from: string, msg: SwarmMessage) => void);
    this.handlers.set(kind, list);
  }

  onJoin(handler: (id: string) => void): void {
    this.joinHandlers.push(handler);
  }

  onLeave(handler: (id: string, why: string) => void): void {
    this.leaveHandlers.push(handler);
  }

  /** A member's announced page lifecycle changed (frozen: give its work to others; back: it may work again). */
  onLifecycle(handler: (id: string, now: Lifecycle, before: Lifecycle) => void): void {
    this.lifecycleHandlers.push(handler);
  }

  /** Another member refused this one (wrong secret, other version): `reason` is for the person. */
  onRefused(handler: (reason: string) => void): void {
    this.refusedHandlers.push(handler);
  }

  /** Drops a member for good this run (malformed, hostile or lying), logging why. */
  drop(id: string, reason: string): void {
    if (this.banned.has(id)) return;
    this.banned.set(id, reason);
    this.log(`dropped ${id}: ${reason}`);
    this.o.transport.disconnect(id);
    this.remove(id, `dropped: ${reason}`);
  }

  private remove(id: string, why: string): void {
    if (!this.members.delete(id)) return;
    this.log(`${id} left (${why})`);
    for (const h of this.leaveHandlers) h(id, why);
  }

  private async onRaw(from: string, raw: RawMessage): Promise<void> {
    if (this.banned.has(from)) return;
    const parsed = parseSwarmMessage(raw, this.limits);
    if (!parsed.ok) return this.drop(from, parsed.reason);
    const { h } = parsed.msg;
    if (h.t === 'hello') return this.onHello(from, h);
    if (h.t === 'refused') {
      this.log(`refused by ${from}: ${h.reason}`);
      for (const f of this.refusedHandlers) f(h.reason);
      return;
    }
    const m = this.members.get(from);
    if (!m) {
      // Not (or no longer) a member: ask it to introduce itself, at most every 2 s; never act on it.
      const last = this.rehelloAt.get(from) ?? -Infinity;
      if (this.now() - last > 2000) {
        this.rehelloAt.set(from, this.now());
        void this.helloTo(from, false);
      }
      return;
    }
    m.lastSeen = this.now();
    if (h.t === 'heartbeat') {
      const before = m.lifecycle;
      Object.assign(m, { role: h.role, version: h.version, rolloutsPerSec: h.rolloutsPerSec, busy: h.busy, visible: h.visible, lifecycle: h.lifecycle, stage: h.stage, step: h.step, theirClock: h.sentAt });
      if (before !== h.lifecycle) {
        this.log(`${from} is ${h.lifecycle} (was ${before})`);
        for (const f of this.lifecycleHandlers) f(from, h.lifecycle, before);
      }
      return;
    }
    if (h.t === 'bye') return this.remove(from, `said bye: ${h.reason}`);
    for (const f of this.handlers.get(h.t) ?? []) f(from, parsed.msg);
  }

  private async onHello(from: string, h: HeaderOf<'hello'>): Promise<void> {
    const refuse = async (reason: string) => {
      this.log(`refused ${from}: ${reason}`);
      await this.o.transport.send(from, { h: { t: 'refused', reason } }).catch(() => {});
      this.drop(from, reason);
    };
    if (h.v !== SWARM_PROTOCOL_VERSION) return refuse(`this run speaks swarm protocol ${SWARM_PROTOCOL_VERSION}, the joining page ${h.v}: reload both pages with the same version of TabForge`);
    if (h.run !== this.o.runId) return refuse(`the link is for run ${h.run}, this is run ${this.o.runId}`);
    if (h.to !== this.selfId && (h.to !== '*' || this.o.transport.kind === 'libp2p')) return; // meant for someone else
    const expected = await helloProof(this.o.secret, h.run, from, h.to, h.nonce);
    if (!sameProof(expected, h.proof)) return refuse('wrong join secret: this link does not carry the secret of this run; ask the person who started the run for a fresh "join this run" link');
    // Our answer goes out before the member is listed: nothing else may reach it before it knows us.
    if (!h.reply) await this.helloTo(from, true);
    const known = this.members.get(from);
    const t = this.now();
    if (known) known.lastSeen = t;
    else {
      this.members.set(from, { id: from, role: h.role, version: -1, rolloutsPerSec: 0, busy: false, visible: true, lifecycle: 'active', stage: -1, step: 0, lastSeen: t, theirClock: null, joinedAt: t });
      this.log(`${from} joined as ${h.role}`);
    }
    if (!known) for (const f of this.joinHandlers) f(from);
  }

  /** Says bye to everyone and stops. */
  async stop(reason = 'left'): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.o.transport.broadcast({ h: { t: 'bye', reason } }).catch(() => {});
  }
}
