// Test helper: `world` swarm members on one in-memory hub, joined, each with a collective (the
// data-parallel tests' ranks without tabs or a network).
import { Collective } from './collective';
import { MemoryHub } from './memoryTransport';
import { type MemberStatus, SwarmNode } from './swarmNode';

const status = (): MemberStatus => ({ role: 'rank', version: -1, rolloutsPerSec: 0, busy: false, visible: true, stage: -1, step: 0 });

/** World ranks on a memory hub, joined and with a collective each (named `collectiveName`). */
export async function memoryRanks(world: number, collectiveName: string): Promise<{ nodes: SwarmNode[]; collectives: Collective[] }> {
  const hub = new MemoryHub();
  const ids = Array.from({ length: world }, (_, r) => `rank-${r}`);
  const nodes = ids.map((id) => new SwarmNode({ transport: hub.join(id), runId: 'dp', secret: 's', status, heartbeatMs: 50, silenceMs: 60_000 }));
  for (const n of nodes) await n.start();
  for (let t = 0; nodes.some((n) => n.members.size < world - 1); t++) {
    if (t > 300) throw new Error('ranks did not meet');
    await new Promise((r) => setTimeout(r, 10));
  }
  return { nodes, collectives: nodes.map((n, r) => new Collective(n, collectiveName, r, ids, 30_000)) };
}
