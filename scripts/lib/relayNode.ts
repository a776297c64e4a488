// The swarm's relay: a js-libp2p node with a circuit-relay-v2 server on a WebSocket listener.
// Browsers reserve a slot on it and exchange WebRTC offers through it; the swarm's own stream then
// runs on the direct WebRTC connection, so the relay forwards signalling only, never a tensor
// (its relayed connections are also capped in time and bytes by circuit relay v2's defaults).
import { polyfillPromiseWithResolvers } from './promisePolyfill';

export interface RelayOptions {
  host: string;
  port: number;
  /** Reservations the relay holds at once (default 128). */
  maxReservations?: number;
}

export interface RunningRelay {
  /** Multiaddrs to put in a swarm link (…/ws/p2p/<relay id>). */
  addresses: string[];
  peerId: string;
  /** Connections open now (browsers holding reservations). */
  connections(): number;
  stop(): Promise<void>;
}

export async function startRelay(o: RelayOptions): Promise<RunningRelay> {
  polyfillPromiseWithResolvers(); // libp2p 3 uses Promise.withResolvers (Node ≥ 22); the project runs on Node 20
  const [{ createLibp2p }, { webSockets }, { noise }, { yamux }, { identify }, { circuitRelayServer }] = await Promise.all([
    import('libp2p'), import('@libp2p/websockets'), import('@libp2p/noise'), import('@libp2p/yamux'), import('@libp2p/identify'), import('@libp2p/circuit-relay-v2'),
  ]);
  const node = await createLibp2p({
    addresses: { listen: [`/ip4/${o.host}/tcp/${o.port}/ws`] },
    transports: [webSockets()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    connectionGater: { denyDialMultiaddr: () => false },
    services: { identify: identify(), relay: circuitRelayServer({ reservations: { maxReservations: o.maxReservations ?? 128 } }) },
  });
  return {
    addresses: node.getMultiaddrs().map(String),
    peerId: node.peerId.toString(),
    connections: () => node.getConnections().length,
    stop: async () => {
      await node.stop();
    },
  };
}
