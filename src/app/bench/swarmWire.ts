// The weight-broadcast rows of `npm run bench -- --swarm`, page side (scripts/lib/swarmTabsBench.ts
// drives two pages): one page sends a weights message of `floats` float32 values to the other over
// a swarm transport — tabs (BroadcastChannel, 1 MiB fragments) or libp2p (WebRTC through a local
// relay) — the receiver reassembles it, validates it as SwarmNode does (schema and size) and checks
// every value is finite as RolloutMember does, then answers with a small message; the sender times
// send → answer. The baseline: the same bytes as one BroadcastChannel post, answered on arrival.
import { newMemberId } from '../../shard/auth';
import type { SwarmTransport } from '../../shard/transport';
import { DEFAULT_LIMITS, finiteFloats, floatBytes, parseSwarmMessage } from '../../shard/protocol';
import { TabTransport } from '../../shard/tabTransport';

let transport: SwarmTransport | null = null;
let answered: () => void = () => {};

function listenOn(t: SwarmTransport, floats: number): void {
  t.onMessage((from, raw) => {
    const parsed = parseSwarmMessage(raw, { ...DEFAULT_LIMITS, parameters: floats });
    if (!parsed.ok) throw new Error(`bench receiver: ${parsed.reason}`);
    if (parsed.msg.h.t === 'done') return answered();
    if (parsed.msg.h.t !== 'weights') return;
    finiteFloats(parsed.msg.p!, 'bench weights');
    void t.send(from, { h: { t: 'done', text: `got v${parsed.msg.h.version}` } });
  });
}

async function timeSends(t: SwarmTransport, to: string, floats: number, repeats: number): Promise<number[]> {
  const data = new Float32Array(floats).map((_, i) => Math.sin(i)); // (floats,) finite values
  const ms: number[] = [];
  for (let v = 1; v <= repeats; v++) {
    const back = new Promise<void>((resolve) => (answered = resolve));
    const t0 = performance.now();
    await t.send(to, { h: { t: 'weights', version: v, stage: 0, floats }, p: floatBytes(data) });
    await back;
    ms.push(performance.now() - t0);
  }
  return ms;
}

const api = {
  /** Tabs: this page listens as `id` on run `run`. */
  listenTabs(run: string, id: string, floats: number): void {
    transport = new TabTransport(id, run);
    listenOn(transport, floats);
  },
  /** Tabs: ms per weights message to `to`, answer included. */
  async sendTabs(run: string, to: string, floats: number, repeats: number): Promise<number[]> {
    const t = new TabTransport(newMemberId(), run);
    listenOn(t, floats);
    try {
      return await timeSends(t, to, floats, repeats);
    } finally {
      await t.close();
    }
  },
  /** Baseline: the same bytes as one BroadcastChannel post (structured clone), answered on arrival. */
  listenRaw(run: string): void {
    const ch = new BroadcastChannel(`bench-raw/${run}`);
    ch.onmessage = (e: MessageEvent) => {
      if ((e.data as { bytes?: Uint8Array }).bytes) ch.postMessage({ ack: true });
    };
  },
  async sendRaw(run: string, floats: number, repeats: number): Promise<number[]> {
    const ch = new BroadcastChannel(`bench-raw/${run}`);
    const bytes = floatBytes(new Float32Array(floats).map((_, i) => Math.sin(i)));
    const ms: number[] = [];
    try {
      for (let i = 0; i < repeats; i++) {
        const back = new Promise<void>((resolve) => (ch.onmessage = () => resolve()));
        const t0 = performance.now();
        ch.postMessage({ bytes });
        await back;
        ms.push(performance.now() - t0);
      }
    } finally {
      ch.close();
    }
    return ms;
  },
  /** libp2p: starts a node on the relay and listens; resolves with its peer id. */
  async listenLibp2p(relay: string, floats: number): Promise<string> {
    const { Libp2pTransport } = await import('../../shard/libp2pTransport');
    const t = await Libp2pTransport.start({ relay });
    transport = t;
    listenOn(t, floats);
    return t.selfId;
  },
  /** libp2p: dials `to` (WebRTC, signalled through the relay) and times weights messages to it. */
  async sendLibp2p(relay: string, to: string, floats: number, repeats: number): Promise<number[]> {
    const { Libp2pTransport } = await import('../../shard/libp2pTransport');
    const t = await Libp2pTransport.start({ relay });
    listenOn(t, floats);
    try {
      await t.connect(to);
      return await timeSends(t, to, floats, repeats);
    } finally {
      await t.close();
    }
  },
};

declare global {
  interface Window {
    tabforgeSwarmWire: typeof api;
  }
}
window.tabforgeSwarmWire = api;
