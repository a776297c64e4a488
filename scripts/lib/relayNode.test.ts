// The relay (npm run relay) and the libp2p transport in Node: two members reach each other through
// a circuit-relay-v2 node on 127.0.0.1 (WebRTC via node-datachannel), messages arrive whole and in
// order, the relay carries no swarm stream, and a relay that goes away is reported.
import { afterAll, describe, expect, it } from 'vitest';
import type { RawMessage } from '../../src/shard/framing';
import type { Libp2pTransport } from '../../src/shard/libp2pTransport';
import type { SwarmMessage } from '../../src/shard/protocol';
import type { RunningRelay } from './relayNode';
import { startMember, startTestRelay, until, withMemberLogs } from './relayTesting';

describe('relay and libp2p transport (Node)', () => {
  let relay: RunningRelay | null = null;
  const members: Libp2pTransport[] = [];
  afterAll(async () => {
    for (const m of members) await m.close().catch(() => {});
    await relay?.stop().catch(() => {});
  });

  it('two members exchange messages over WebRTC set up through the relay', async () => {
    relay = await startTestRelay();
    const addr = relay.addresses[0];
    expect(addr).toMatch(/^\/ip4\/127\.0\.0\.1\/tcp\/[1-9]\d*\/ws\/p2p\/12D3KooW/);
    const logs: string[] = [];
    const a = await startMember(addr, (l) => logs.push(`a: ${l}`));
    members.push(a);
    const b = await startMember(addr, (l) => logs.push(`b: ${l}`));
    members.push(b);
    expect(a.address()).toContain('/p2p-circuit/webrtc');
    const got: [string, RawMessage][] = [];
    a.onMessage((from, raw) => got.push([from, raw]));
    await withMemberLogs(logs, () => b.connect(a.selfId));
    const msg = (i: number) => ({ h: { t: 'heartbeat', role: 'rollout', version: i, rolloutsPerSec: 0, busy: false, visible: true, sentAt: 0, stage: -1, step: 0 } }) as unknown as SwarmMessage;
    for (let i = 0; i < 3; i++) await b.send(a.selfId, msg(i));
    // a payload bigger than one fragment arrives whole
    const big = new Uint8Array((1 << 20) + 5).map((_, i) => i % 251);
    await b.send(a.selfId, { h: { t: 'weights', version: 9, stage: 0, floats: big.length / 4 }, p: big } as unknown as SwarmMessage);
    await until('four messages at a', () => got.length === 4);
    expect(got.map(([from]) => from)).toEqual([b.selfId, b.selfId, b.selfId, b.selfId]);
    expect(got.slice(0, 3).map(([, r]) => (r.h as { version: number }).version)).toEqual([0, 1, 2]);
    expect(got[3][1].p).toEqual(big);
    // a answers over the same stream
    const back: string[] = [];
    b.onMessage((from) => back.push(from));
    await a.send(b.selfId, msg(7));
    await until('the answer at b', () => back.length === 1);
    expect(back).toEqual([a.selfId]);
    expect(logs.filter((l) => /refused|failed/.test(l))).toEqual([]);
    // the relay going away is reported; the direct link keeps working
    const lost: string[] = [];
    a.onRelayLost((why) => lost.push(why));
    await relay.stop();
    relay = null;
    await until('the relay loss at a', () => lost.length > 0);
    expect(lost[0]).toMatch(/went away/);
    await b.send(a.selfId, msg(8));
    await until('a message after the relay left', () => got.length === 5);
  }, 60_000);
});
