// DiLoCo's outer step (llvmpipe, two ranks on a memory hub): with η = 1 and μ = 0 it is plain
// averaging of the ranks' weights; int8 deltas stay within half a quantisation step; an SFT run
// with H local steps sends 4·P/H (float32) or ≈ 1.016·P/H (int8) bytes per step and rank.
import { beforeAll, describe, expect, it } from 'vitest';
import type { EncodedDoc } from '../data/packing';
import type { GpuRuntime } from '../gpu/runtime';
import { testRuntime } from '../gpu/testDevice';
import { countParameters } from '../model/parameters';
import { GpuWeights, initialWeights } from '../model/weights';
import { ByteTokenizer, encodeConversation } from '../tokenizer';
import { DEFAULT_SFT, trainSft } from '../train/sft/sft';
import { MICRO_MODEL } from '../train/testing/microModel';
import { Collective } from './collective';
import { bytesPerStep, DilocoOuter, dequantizeInt8, INT8_BLOCK, quantizeInt8 } from './diloco';
import { MemoryHub } from './memoryTransport';
import { SwarmNode } from './swarmNode';

let rt: GpuRuntime;
beforeAll(async () => {
  rt = await testRuntime('opengles');
});

async function pair(): Promise<{ nodes: SwarmNode[]; collectives: Collective[] }> {
  const hub = new MemoryHub();
  const ids = ['r0', 'r1'];
  const status = () => ({ role: 'rank' as const, version: -1, rolloutsPerSec: 0, busy: false, visible: true, stage: -1, step: 0 });
  const nodes = ids.map((id) => new SwarmNode({ transport: hub.join(id), runId: 'diloco', secret: 's', status, heartbeatMs: 50, silenceMs: 60_000 }));
  for (const n of nodes) await n.start();
  while (nodes.some((n) => n.members.size < 1)) await new Promise((r) => setTimeout(r, 10));
  return { nodes, collectives: nodes.map((n, r) => new Collective(n, 'diloco', r, ids, 30_000)) };
}

describe('DiLoCo', () => {
  it('int8 deltas: within half a step of each block\'s scale; sizes as documented', () => {
    const x = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(i) * (i < 256 ? 1e-4 : 3));
    x[700] = 0;
    const q = quantizeInt8(x);
    expect(q.byteLength).toBe(4 * Math.ceil(1000 / INT8_BLOCK) + 1000);
    const back = dequantizeInt8(q, 1000);
    for (let i = 0; i < x.length; i++) {
      const block = x.subarray(Math.floor(i / INT8_BLOCK) * INT8_BLOCK, (Math.floor(i / INT8_BLOCK) + 1) * INT8_BLOCK);
      const scale = Math.max(...block.map(Math.abs)) / 127;
      expect(Math.abs(back[i] - x[i])).toBeLessThanOrEqual(scale / 2 + 1e-12);
    }
    expect(quantizeInt8(new Float32Array(300)).subarray(0, 8)).toEqual(new Uint8Array(8)); // all-zero blocks: scale 0
    expect(() => dequantizeInt8(q, 999)).toThrow(/bytes for 999 values/);
    const nanScale = q.slice();
    new Float32Array(nanScale.buffer, 0, 1)[0] = Number.NaN;
    expect(() => dequantizeInt8(nanScale, 1000)).toThrow(/scales: value 0 is NaN/);
    expect(bytesPerStep(1_000_000, 'data-parallel')).toBe(4_000_000);
    expect(bytesPerStep(1_000_000, 'diloco', 8)).toBe(500_000);
    expect(bytesPerStep(1_000_000, 'diloco-int8', 8)).toBeCloseTo((1_000_000 + 4 * 3907) / 8, 6);
  });

  it('η = 1, μ = 0: every rank ends with the mean of the ranks\' weights (float32 and int8)', async () => {
    for (const quantize of ['none', 'int8'] as const) {
      const { nodes, collectives } = await pair();
      const start = initialWeights(MICRO_MODEL, 1);
      const locals = [initialWeights(MICRO_MODEL, 2), initialWeights(MICRO_MODEL, 3)];
      const ws = locals.map((v) => new GpuWeights(rt, MICRO_MODEL, v));
      const outers = [0, 1].map(() => new DilocoOuter({ innerSteps: 1, outerLr: 1, outerMomentum: 0, quantize }, start));
      await Promise.all(ws.map((w, r) => outers[r].sync(rt, w, collectives[r])));
      const [a, b] = [await ws[0].download(), await ws[1].download()];
      for (const [name, s] of start) {
        expect(a.get(name)).toEqual(b.get(name)); // identical on both ranks
        const want = locals[0].get(name)!.map((v, i) => (v + locals[1].get(name)![i]) / 2);
        // int8: each delta off by ≤ half a step of its block's scale (|Δ| ≤ ~0.1 here)
        const tol = quantize === 'int8' ? 0.2 / 127 : 1e-6;
        const got = a.get(name)!;
        for (let i = 0; i < s.length; i++) expect(Math.abs(got[i] - want[i]), `${name}[${i}]`).toBeLessThanOrEqual(tol);
      }
      const P = countParameters(MICRO_MODEL);
      expect(outers[0].stats.bytesSent).toBe(quantize === 'int8' ? 4 * Math.ceil(P / INT8_BLOCK) + P : 4 * P);
      for (const w of ws) w.destroy();
      for (const n of nodes) await n.stop();
    }
  }, 120_000);

  it('SFT with H = 4 local steps: the ranks agree after each outer step, loss goes down, bytes = 4·P per 4 steps', async () => {
    const tok = new ByteTokenizer();
    const docs: EncodedDoc[] = Array.from({ length: 16 }, (_, i) => {
      const s = encodeConversation(tok, [{ role: 'user', content: `say ${i % 4}` }, { role: 'assistant', content: `${i % 4}${i % 4}${i % 4}` }], []);
      return { ids: s.ids, mask: s.assistantMask };
    });
    const { nodes, collectives } = await pair();
    const start = initialWeights(MICRO_MODEL, 5);
    const ws = [0, 1].map(() => new GpuWeights(rt, MICRO_MODEL, start));
    const outers = [0, 1].map(() => new DilocoOuter({ innerSteps: 4, outerLr: 0.7, outerMomentum: 0.9, quantize: 'none' }, start));
    const cfg = { ...DEFAULT_SFT, batchSize: 4, seqLen: 64, steps: 8, lr: 1e-2, warmupSteps: 0, pack: false, seed: 3 };
    const histories = await Promise.all(ws.map((w, r) => trainSft(rt, w, { train: docs, padId: tok.padId }, cfg, undefined, { shard: { rank: r, world: 2 }, afterStep: outers[r].afterStep(rt, collectives[r]) })));
    const [a, b] = [await ws[0].download(), await ws[1].download()];
    for (const [name, v] of a) expect(b.get(name), name).toEqual(v);
    for (const h of histories) expect(h.at(-1)!.loss).toBeLessThan(h[0].loss);
    expect(outers[0].stats.outerSteps).toBe(2);
    expect(outers[0].stats.bytesSent).toBe(2 * 4 * countParameters(MICRO_MODEL)); // = bytesPerStep('diloco', 4) × 8 steps
    for (const w of ws) w.destroy();
    for (const n of nodes) await n.stop();
  }, 120_000);
});
