// Data parallel across machines (Node, llvmpipe): two members on the libp2p transport — a
// circuit-relay-v2 node on 127.0.0.1 for the handshake, WebRTC between them — run SFT as 2 ranks of
// one collective, their gradients crossing the WebRTC link each step; losses and weights equal one
// process at the same global batch (≤ 1e-5 relative), both ranks bit-identical.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EncodedDoc } from '../../src/data/packing';
import type { GpuRuntime } from '../../src/gpu/runtime';
import { testRuntime } from '../../src/gpu/testDevice';
import { GpuWeights, initialWeights } from '../../src/model/weights';
import { relativeError } from '../../src/reference/ops/finiteDiff';
import { gradientShard } from '../../src/shard/dataParallel';
import type { Libp2pTransport } from '../../src/shard/libp2pTransport';
import type { SwarmNode } from '../../src/shard/swarmNode';
import { ranksOver } from '../../src/shard/testRanks';
import { ByteTokenizer, encodeConversation } from '../../src/tokenizer';
import { DEFAULT_SFT, type SftConfig, trainSft } from '../../src/train/sft/sft';
import { MICRO_MODEL } from '../../src/train/testing/microModel';
import type { RunningRelay } from './relayNode';
import { startMember, startTestRelay, withMemberLogs } from './relayTesting';

const tok = new ByteTokenizer();
let rt: GpuRuntime;
let relay: RunningRelay | null = null;
const members: Libp2pTransport[] = [];
const nodes: SwarmNode[] = [];
beforeAll(async () => {
  rt = await testRuntime('opengles');
});
afterAll(async () => {
  for (const n of nodes) await n.stop().catch(() => {});
  for (const m of members) await m.close().catch(() => {});
  await relay?.stop().catch(() => {});
});

function doc(user: string, answer: string): EncodedDoc {
  const seq = encodeConversation(tok, [{ role: 'system', content: 'Answer.' }, { role: 'user', content: user }, { role: 'assistant', content: answer }], []);
  return { ids: seq.ids, mask: seq.assistantMask };
}

async function maxWeightError(a: GpuWeights, b: GpuWeights): Promise<number> {
  const [x, y] = [await a.download(), await b.download()];
  return Math.max(...[...y].map(([name, v]) => relativeError(x.get(name)!, v)));
}

const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-12);

describe('data parallel over libp2p (relay on 127.0.0.1, WebRTC between members)', () => {
  it('2 members × 2 rows = 1 process × 4 rows: SFT losses and weights ≤ 1e-5 relative, both ranks the same', async () => {
    // answers of different lengths: the ranks' rows score different numbers of tokens
    const data = { train: Array.from({ length: 12 }, (_, i) => doc(`question ${i}`, 'x'.repeat(1 + ((i * 37) % 41)))), padId: tok.padId };
    const cfg: SftConfig = { ...DEFAULT_SFT, batchSize: 4, seqLen: 96, gradAccumSteps: 1, steps: 3, lr: 1e-2, warmupSteps: 0, pack: false, seed: 9 };
    const init = initialWeights(MICRO_MODEL, 4);
    const one = new GpuWeights(rt, MICRO_MODEL, init);
    const single = await trainSft(rt, one, data, cfg);

    relay = await startTestRelay();
    const addr = relay.addresses[0];
    const logs: string[] = [];
    for (const name of ['a', 'b']) members.push(await startMember(addr, (l) => logs.push(`${name}: ${l}`)));
    await withMemberLogs(logs, () => members[1].connect(members[0].selfId)); // the WebRTC link, set up through the relay
    // generous waits: CI runs this on a loaded 2-core machine
    const { nodes: started, collectives } = await ranksOver(members, 'dp-libp2p', { meetMs: 20_000, collectiveTimeoutMs: 60_000 });
    nodes.push(...started);
    const ws = collectives.map(() => new GpuWeights(rt, MICRO_MODEL, init));
    const shards = collectives.map((c) => gradientShard(rt, c));
    const per = await Promise.all(ws.map((w, r) => trainSft(rt, w, data, cfg, undefined, { shard: shards[r] })));
    let worstLoss = 0;
    for (const [s, want] of single.entries()) {
      for (const r of [0, 1]) {
        worstLoss = Math.max(worstLoss, rel(per[r][s].loss, want.loss));
        expect(rel(per[r][s].loss, want.loss), `step ${s + 1} rank ${r}: ${per[r][s].loss} vs ${want.loss}`).toBeLessThanOrEqual(1e-5);
      }
    }
    const weightError = await maxWeightError(ws[0], one);
    expect(weightError).toBeLessThanOrEqual(1e-5);
    expect(await maxWeightError(ws[1], ws[0])).toBe(0); // identical sums → identical updates
    // the gradients crossed the WebRTC link: each rank received the other's every step
    const parameters = [...init.values()].reduce((a, v) => a + v.length, 0);
    for (const s of shards) expect(s.stats).toEqual({ steps: cfg.steps, bytesSent: cfg.steps * 4 * parameters, bytesReceived: cfg.steps * 4 * parameters });
    expect(logs.filter((l) => /refused|failed/.test(l))).toEqual([]);
    console.log(`SFT DP over libp2p/WebRTC: ${cfg.steps} steps, ${(4 * parameters / 1024).toFixed(0)} KiB of gradients per step and rank; worst relative error of a loss ${worstLoss.toExponential(2)}, of the weights ${weightError.toExponential(2)}`);
    for (const w of [one, ...ws]) w.destroy();
  }, 90_000);
});
