// Machines: the swarm's messages over js-libp2p. Browsers reach a circuit-relay-v2 node over a
// WebSocket, reserve a slot on it, and use the relayed connection only to exchange WebRTC offers;
// the swarm's protocol then runs on the direct WebRTC connection (noise-encrypted, yamux-muxed),
// so the relay never sees a tensor: our stream handler refuses limited (relayed) connections.
// Each frame is one length-prefixed message (framing.ts), at most one fragment plus its header; a
// peer id is what noise authenticated, so a member's id cannot be forged here.
import { circuitRelayTransport } from '@libp2p/circuit-relay-v2';
import { identify } from '@libp2p/identify';
import type { Connection, Libp2p, PrivateKey, Stream } from '@libp2p/interface';
import { noise } from '@libp2p/noise';
import { lpStream, type LengthPrefixedStream } from '@libp2p/utils';
import { webRTC } from '@libp2p/webrtc';
import { webSockets } from '@libp2p/websockets';
import { yamux } from '@libp2p/yamux';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p } from 'libp2p';
import { decodeFrame, encodeFrame, type RawMessage } from './framing';
import { FRAGMENT_BYTES, MAX_HEADER_BYTES, SWARM_PROTOCOL_ID } from './protocol';
import { BaseTransport } from './transport';

/** Largest frame read from a peer: one fragment, its header and the length field. */
const MAX_FRAME_BYTES = FRAGMENT_BYTES + MAX_HEADER_BYTES + 8;

interface Link {
  stream: Stream;
  lp: LengthPrefixedStream<Stream>;
  /** Writes in order, one at a time. */
  writing: Promise<void>;
}

/**
 * One dial (ms), to the relay or a peer, and how many times a peer dial that times out is tried.
 * In Node (node-datachannel) a fresh peer connection is now and then closed during ICE ("remote
 * candidate without ICE transport") while the dial goes on waiting for it, until its budget is spent;
 * the next attempt usually connects within a second. A handshake that is only slow (a loaded machine,
 * a far peer) gets the same budget on every attempt. libp2p's own per-address and inbound-upgrade
 * limits are set to the same budget, so neither side gives up before the other.
 */
export const DIAL_TIMEOUT_MS = 10_000;
export const DIAL_ATTEMPTS = 4;

export interface Libp2pTransportOptions {
  /** The relay's multiaddr (…/ws/p2p/<relay id>): reservations and WebRTC signalling go through it. */
  relay: string;
  /** How long one dial to the relay or a peer may take (ms; default DIAL_TIMEOUT_MS). */
  dialTimeoutMs?: number;
  /** This node's key, hence its peer id (default: a new one). A run's leader keeps its own (leaderIdentity.ts). */
  privateKey?: PrivateKey;
  log?: (line: string) => void;
}

export class Libp2pTransport extends BaseTransport {
  readonly kind = 'libp2p' as const;
  private readonly links = new Map<string, Link>();
  private readonly connecting = new Map<string, Promise<Link>>();
  private relayLost: ((why: string) => void)[] = [];

  private constructor(private readonly node: Libp2p, private readonly o: Libp2pTransportOptions) {
    super(node.peerId.toString());
  }

  /** Starts a browser node, reserves a slot on the relay and waits for this node's WebRTC address. */
  static async start(o: Libp2pTransportOptions): Promise<Libp2pTransport> {
    const timeout = o.dialTimeoutMs ?? DIAL_TIMEOUT_MS;
    const node = await createLibp2p({
      ...(o.privateKey ? { privateKey: o.privateKey } : {}),
      connectionManager: { dialTimeout: timeout, addressDialTimeout: timeout, inboundUpgradeTimeout: timeout },
      addresses: { listen: ['/p2p-circuit', '/webrtc'] },
      transports: [webSockets(), webRTC(), circuitRelayTransport()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      connectionGater: { denyDialMultiaddr: () => false }, // the relay is on 127.0.0.1 in tests and on a LAN for some users
      services: { identify: identify() },
    });
    const t = new Libp2pTransport(node, o);
    await node.handle(SWARM_PROTOCOL_ID, (stream, connection) => t.accept(stream, connection), { maxInboundStreams: 4 });
    node.addEventListener('peer:disconnect', (e) => {
      const id = e.detail.toString();
      if (id === t.relayId) return t.relayLost.forEach((f) => f(`the relay ${id} went away`));
      t.dropLink(id);
      t.gone(id);
    });
    try {
      await node.dial(multiaddr(o.relay), { signal: AbortSignal.timeout(timeout) });
    } catch (e) {
      await node.stop();
      throw new Error(`could not reach the relay ${o.relay} (${(e as Error).message}): is \`npm run relay\` running there, and is the address in the link right?`);
    }
    const t0 = performance.now();
    const reservationMs = Math.max(timeout, 15_000); // the reservation and the WebRTC listener after the dial
    while (!t.address()) {
      if (performance.now() - t0 > reservationMs) {
        await node.stop();
        throw new Error(`the relay ${o.relay} gave this page no reservation within ${reservationMs / 1000} s`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return t;
  }

  get relayId(): string {
    return this.o.relay.split('/p2p/').pop()!;
  }

  /** This node's dialable address (…/p2p-circuit/webrtc/p2p/<id>), once the relay gave a reservation. */
  address(): string | null {
    return this.node.getMultiaddrs().map(String).find((a) => a.includes('/p2p-circuit/webrtc')) ?? null;
  }

  /** The relay went away (members already connected keep talking over WebRTC; new ones cannot join). */
  onRelayLost(f: (why: string) => void): void {
    this.relayLost.push(f);
  }

  /** Opens the swarm stream to a peer through the relay (WebRTC), e.g. the leader named by the link. */
  async connect(peerId: string): Promise<void> {
    await this.link(peerId);
  }

  private async link(peerId: string): Promise<Link> {
    const have = this.links.get(peerId);
    if (have) return have;
    let pending = this.connecting.get(peerId);
    if (!pending) {
      const addr = multiaddr(`${this.o.relay}/p2p-circuit/webrtc/p2p/${peerId}`);
      pending = this.dialSwarm(peerId, addr)
        .then((stream) => this.attach(peerId, stream))
        .finally(() => this.connecting.delete(peerId));
      this.connecting.set(peerId, pending);
    }
    return pending;
  }

  /**
   * The swarm stream to a peer over a WebRTC connection set up through the relay. A handshake that
   * times out inside libp2p (SDP exchange, ICE, data channel opening) is tried again, up to
   * DIAL_ATTEMPTS in all (see DIAL_TIMEOUT_MS); anything else fails at once.
   */
  private async dialSwarm(peerId: string, addr: ReturnType<typeof multiaddr>): Promise<Stream> {
    const budget = this.o.dialTimeoutMs ?? DIAL_TIMEOUT_MS;
    for (let i = 1; ; i++) {
      try {
        return await this.node.dialProtocol(addr, SWARM_PROTOCOL_ID, { signal: AbortSignal.timeout(budget) });
      } catch (e) {
        const timedOut = (e as Error).name === 'TimeoutError' || (e as Error).name === 'AbortError';
        if (!timedOut) throw e;
        if (i >= DIAL_ATTEMPTS) throw new Error(`no connection to ${peerId}: ${DIAL_ATTEMPTS} attempts of ${budget / 1000} s timed out (${(e as Error).message}); is that page still open, and can this network carry WebRTC?`);
        this.o.log?.(`the connection to ${peerId} timed out (${(e as Error).message}); trying again (${i + 1} of ${DIAL_ATTEMPTS})`);
      }
    }
  }

  private accept(stream: Stream, connection: Connection): void {
    const id = connection.remotePeer.toString();
    if (connection.limits) {
      this.o.log?.(`refused a swarm stream from ${id} over a relayed connection (tensors never cross the relay)`);
      stream.abort(new Error('the swarm protocol runs on direct connections only'));
      return;
    }
    this.attach(id, stream);
  }

  private attach(id: string, stream: Stream): Link {
    this.dropLink(id); // a newer stream replaces an older one
    const link: Link = { stream, lp: lpStream(stream, { maxDataLength: MAX_FRAME_BYTES }), writing: Promise.resolve() };
    this.links.set(id, link);
    void this.readLoop(id, link);
    return link;
  }

  private async readLoop(id: string, link: Link): Promise<void> {
    try {
      for (;;) {
        const frame = await link.lp.read();
        let raw: RawMessage;
        try {
          raw = decodeFrame(frame.subarray());
        } catch (e) {
          this.fault(id, (e as Error).message);
          break;
        }
        this.receive(id, raw);
      }
    } catch (e) {
      // a closed stream ends the loop; an oversized frame is a fault of the sender
      const msg = (e as Error).message ?? String(e);
      if (/length|too long|exceed/i.test(msg)) this.fault(id, `sent a frame over ${MAX_FRAME_BYTES} bytes`);
    }
    if (this.links.get(id) === link) this.links.delete(id);
  }

  private dropLink(id: string): void {
    const l = this.links.get(id);
    if (!l) return;
    this.links.delete(id);
    l.stream.abort(new Error('replaced or closed'));
  }

  protected async post(to: string | null, piece: RawMessage): Promise<void> {
    const frame = encodeFrame(piece);
    const targets = to === null ? [...this.links.keys()] : [to];
    for (const id of targets) {
      if (this.blocked.has(id)) continue;
      const link = await this.link(id);
      link.writing = link.writing.then(() => link.lp.write(frame)).catch((e: unknown) => {
        this.o.log?.(`sending to ${id} failed: ${(e as Error).message}`);
        this.dropLink(id);
      });
      await link.writing;
    }
  }

  override disconnect(id: string): void {
    super.disconnect(id);
    this.dropLink(id);
    void this.node.hangUp(multiaddr(`/p2p/${id}`)).catch(() => {});
  }

  /** Peers with an open swarm stream. */
  peers(): string[] {
    return [...this.links.keys()];
  }

  async close(): Promise<void> {
    for (const id of [...this.links.keys()]) this.dropLink(id);
    await this.node.stop();
  }
}
