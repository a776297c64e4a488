// The collective's via-rank0 route (data parallel across machines: every joiner is connected to the
// leader only). On a star-shaped memory hub — a send between two ranks ≠ 0 throws, as a libp2p page
// has no connection to dial there — 4 ranks all-gather 3 rounds and every rank gets every rank's
// bytes and info in rank order; the direct route on the same hub fails (the contrast that shows the
// hub enforces the shape); rank 0 refuses a contribution whose sender claims another rank. And
// reduceAtRank0 (the gradients across machines): every rank gets rank 0's one result, rank 0 sends
// W − 1 payloads a round; a result from anyone but rank 0 is refused; when rank 0 cannot combine,
// every rank fails at once with its reason.
import { describe, expect, it } from 'vitest';
import { Collective, type CollectiveRoute } from './collective';
import { MemoryHub } from './memoryTransport';
import { type MemberStatus, SwarmNode } from './swarmNode';

const status = (): MemberStatus => ({ role: 'rank', version: -1, rolloutsPerSec: 0, busy: false, visible: true, stage: -1, step: 0 });

async function starRanks(world: number, route: CollectiveRoute) {
  const hub = MemoryHub.star('rank-0');
  const nodes = Array.from({ length: world }, (_, r) => new SwarmNode({ transport: hub.join(`rank-${r}`), runId: 'dp', secret: 's', status, heartbeatMs: 50, silenceMs: 60_000 }));
  for (const n of nodes) await n.start();
  const t0 = performance.now();
  // the leader meets everyone, a joiner only the leader
  while (nodes[0].members.size < world - 1 || nodes.slice(1).some((n) => n.members.size < 1)) {
    if (performance.now() - t0 > 3000) throw new Error('ranks did not meet');
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(nodes.slice(1).map((n) => n.members.size)).toEqual(Array(world - 1).fill(1));
  const ids = nodes.map((n) => n.selfId);
  return { hub, nodes, collectives: nodes.map((n, r) => new Collective(n, 'grads', r, ids, 5_000, route)) };
}

/** Rank r's bytes for a round: distinct per rank and round. */
const bytesOf = (r: number, round: number) => new Uint8Array([r, round, 100 + r * 10 + round]);

describe('collective via rank 0 (star of connections)', () => {
  it('4 ranks, 3 rounds: every rank gets every contribution, in rank order, with nothing sent between ranks ≠ 0', async () => {
    const { nodes, collectives } = await starRanks(4, 'via-rank0');
    for (let round = 0; round < 3; round++) {
      const got = await Promise.all(collectives.map((c, r) => c.allGather(bytesOf(r, round), { rank: r, round })));
      for (const all of got) {
        expect(all.map((c) => [...c.bytes])).toEqual([0, 1, 2, 3].map((r) => [...bytesOf(r, round)]));
        expect(all.map((c) => c.info)).toEqual([0, 1, 2, 3].map((r) => ({ rank: r, round })));
      }
    }
    // payloads: rank 0 sends its own to 3 and forwards each of 3 others to 2 (9 a round); the others send 1
    const payloads = nodes.map((n) => n.transport.stats().bytesSent);
    expect(payloads[1]).toBeLessThan(payloads[0]);
    for (const n of nodes) await n.stop();
  });

  it('the direct route on the same connections fails: a joiner cannot reach the other joiners', async () => {
    const { nodes, collectives } = await starRanks(3, 'direct');
    await expect(collectives[1].allGather(bytesOf(1, 0), null)).rejects.toThrow(/rank-1 has no connection to rank-2/);
    for (const n of nodes) await n.stop();
  });

  it('rank 0 refuses a contribution whose sender claims another rank, and nothing of it is forwarded', async () => {
    const { hub, nodes, collectives } = await starRanks(3, 'via-rank0');
    // rank 1 claims to be rank 2
    hub.inject('rank-1', 'rank-0', { h: { t: 'gather', group: 'grads', round: 0, rank: 2, world: 3, bytes: 3, info: 'null' }, p: bytesOf(2, 0) });
    await expect(collectives[0].allGather(bytesOf(0, 0), null)).rejects.toThrow(/claims rank 2, which is rank-2/);
    expect(nodes[0].banned.get('rank-1')).toMatch(/claims rank 2/);
    await new Promise((r) => setTimeout(r, 50));
    expect(nodes[2].transport.stats().bytesReceived).toBe(3); // rank 0's own 3 bytes, not the forged 3 on top
    for (const n of nodes) await n.stop();
  });
});

describe('reduce at rank 0 (the gradients across machines)', () => {
  /** Adds the ranks' bytes element-wise, in rank order, and lists their infos. */
  const add = (all: { bytes: Uint8Array; info: unknown }[]) => ({ bytes: all.reduce((s, c) => s.map((v, i) => v + c.bytes[i]), new Uint8Array(3)), info: all.map((c) => c.info) });

  it('4 ranks, 3 rounds: every rank gets rank 0’s one result; rank 0 sends W − 1 payloads a round, a joiner 1', async () => {
    const { nodes, collectives } = await starRanks(4, 'via-rank0');
    const sent0 = nodes.map((n) => n.transport.stats().bytesSent);
    for (let round = 0; round < 3; round++) {
      const got = await Promise.all(collectives.map((c, r) => c.reduceAtRank0(bytesOf(r, round), { rank: r }, add)));
      const want = [0, 1, 2, 3].reduce((s, r) => s.map((v, i) => v + bytesOf(r, round)[i]), new Uint8Array(3));
      for (const res of got) {
        expect([...res.bytes]).toEqual([...want]);
        expect(res.info).toEqual([0, 1, 2, 3].map((r) => ({ rank: r })));
      }
    }
    // payload bytes (3 a payload) in 3 rounds: rank 0 sent its result to 3 joiners a round (W − 1, where
    // allGather's forwarding sends (W − 1)² = 9), each joiner its own 3 bytes
    expect(nodes.map((n, r) => n.transport.stats().bytesSent - sent0[r])).toEqual([27, 9, 9, 9]);
    for (const n of nodes) await n.stop();
  });

  it('when rank 0 cannot combine, every rank fails at once with its reason (not after the timeout)', async () => {
    const { nodes, collectives } = await starRanks(3, 'via-rank0');
    const strict = (all: { bytes: Uint8Array; info: unknown }[]) => {
      const bad = all.findIndex((c) => c.bytes.length !== 3);
      if (bad >= 0) throw new Error(`rank ${bad} sent ${all[bad].bytes.length} bytes, expected 3`);
      return add(all);
    };
    const t0 = performance.now();
    const outcomes = await Promise.allSettled(collectives.map((c, r) => c.reduceAtRank0(r === 2 ? new Uint8Array(4) : bytesOf(r, 0), null, strict)));
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'resolved'))).toEqual([
      'Error: rank 2 sent 4 bytes, expected 3',
      "Error: collective 'grads': rank 0 could not combine round 0: rank 2 sent 4 bytes, expected 3",
      "Error: collective 'grads': rank 0 could not combine round 0: rank 2 sent 4 bytes, expected 3",
    ]);
    expect(performance.now() - t0).toBeLessThan(2_000); // the collective's timeout is 5 s
    for (const n of nodes) await n.stop();
  });

  it('a joiner refuses a result that does not come from rank 0, and rank 0 a contribution claiming rank 0', async () => {
    // a full mesh, so that a joiner can reach another at all (on the star the hub itself refuses)
    const hub = new MemoryHub();
    const nodes = [0, 1, 2].map((r) => new SwarmNode({ transport: hub.join(`rank-${r}`), runId: 'dp', secret: 's', status, heartbeatMs: 50, silenceMs: 60_000 }));
    for (const n of nodes) await n.start();
    while (nodes.some((n) => n.members.size < 2)) await new Promise((r) => setTimeout(r, 10));
    const ids = nodes.map((n) => n.selfId);
    const collectives = nodes.map((n, r) => new Collective(n, 'grads', r, ids, 5_000, 'via-rank0'));
    hub.inject('rank-1', 'rank-2', { h: { t: 'gather', group: 'grads:reduce', round: 0, rank: 0, world: 3, bytes: 3, info: 'null' }, p: bytesOf(0, 0) });
    await expect(collectives[2].reduceAtRank0(bytesOf(2, 0), null, add)).rejects.toThrow(/sent a result in rank 0's place/);
    hub.inject('rank-1', 'rank-0', { h: { t: 'gather', group: 'grads:reduce', round: 0, rank: 0, world: 3, bytes: 3, info: 'null' }, p: bytesOf(0, 0) });
    await expect(collectives[0].reduceAtRank0(bytesOf(0, 0), null, add)).rejects.toThrow(/claims rank 0, which is rank-0/);
    for (const n of nodes) await n.stop();
  });
});
