// Test helper: swarm members, joined, each with a collective — the data-parallel tests' ranks, on an
// in-memory hub (memoryRanks) or on any transports (ranksOver: libp2p in scripts/lib's relay tests).
import { Collective } from './collective';
import { MemoryHub } from './memoryTransport';
import { type MemberStatus, SwarmNode } from './swarmNode';
import type { SwarmTransport } from './transport';

const status = (): MemberStatus => ({ role: 'rank', version: -1, rolloutsPerSec: 0, busy: false, visible: true, stage: -1, step: 0 });

/** World ranks on a memory hub, joined and with a collective each (named `collectiveName`). */
export function memoryRanks(world: number, collectiveName: string): Promise<{ nodes: SwarmNode[]; collectives: Collective[] }> {
  const hub = new MemoryHub();
  return ranksOver(Array.from({ length: world }, (_, r) => hub.join(`rank-${r}`)), collectiveName);
}

/** One rank per transport (rank r: transports[r]), started, joined (within `meetMs`) and with a collective each. */
export async function ranksOver(transports: readonly SwarmTransport[], collectiveName: string, o: { meetMs?: number; collectiveTimeoutMs?: number } = {}): Promise<{ nodes: SwarmNode[]; collectives: Collective[] }> {
  const world = transports.length;
  const nodes = transports.map((transport) => new SwarmNode({ transport, runId: 'dp', secret: 's', status, heartbeatMs: 50, silenceMs: 60_000 }));
  for (const n of nodes) await n.start();
  const t0 = performance.now();
  while (nodes.some((n) => n.members.size < world - 1)) {
    if (performance.now() - t0 > (o.meetMs ?? 3000)) throw new Error(`ranks did not meet within ${o.meetMs ?? 3000} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const ids = nodes.map((n) => n.selfId);
  return { nodes, collectives: nodes.map((n, r) => new Collective(n, collectiveName, r, ids, o.collectiveTimeoutMs ?? 30_000)) };
}
