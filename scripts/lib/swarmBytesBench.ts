// The bytes-per-step rows of `npm run bench -- --swarm`, in Node: two ranks train the nano preset
// (SFT, Node WebGPU) over a memory hub whose transports count every frame they send as it would go
// on the wire (framing.ts encodeFrame: length, JSON header, payload; fragments of 1 MiB each), for
// plain data parallel (float32 gradients every step), DiLoCo (float32 deltas every H steps) and
// DiLoCo with int8 deltas. Bytes are summed from the real collective messages, then divided by the
// steps taken: rank 0's frames per optimizer step (tabs: one post reaches every tab; libp2p: one
// copy per other rank, so × (world − 1)). Plus plain data parallel over 3 machines on a star of
// connections (as across machines: gradients reduced at rank 0, which sends the sum back): rank 0's
// upload and a joiner's.
import type { BenchResult } from '../../src/app/bench/registry';
import type { EncodedDoc } from '../../src/data/packing';
import type { GpuRuntime } from '../../src/gpu/runtime';
import { testRuntime } from '../../src/gpu/testDevice';
import { PRESETS } from '../../src/model/config';
import { countParameters } from '../../src/model/parameters';
import { GpuWeights, initialWeights } from '../../src/model/weights';
import { Collective } from '../../src/shard/collective';
import { gradientShard } from '../../src/shard/dataParallel';
import { bytesPerStep, DEFAULT_DILOCO, DilocoOuter } from '../../src/shard/diloco';
import { encodeFrame, type RawMessage } from '../../src/shard/framing';
import { MemoryHub, MemoryTransport } from '../../src/shard/memoryTransport';
import { SwarmNode } from '../../src/shard/swarmNode';
import { ByteTokenizer, encodeConversation } from '../../src/tokenizer';
import { DEFAULT_SFT, type SftConfig, trainSft } from '../../src/train/sft/sft';

/** A memory transport that adds up the wire size of every collective frame it sends. */
class CountingTransport extends MemoryTransport {
  collectiveBytes = 0;
  frames = 0;

  protected override async post(to: string | null, piece: RawMessage): Promise<void> {
    const t = (piece.h as { t?: string }).t;
    if (t === 'gather' || t === 'frag') {
      this.collectiveBytes += encodeFrame(piece).byteLength;
      this.frames++;
    }
    return super.post(to, piece);
  }
}

export type WireMode = 'data-parallel' | 'diloco' | 'diloco-int8' | 'data-parallel-3-via-rank0';

export interface WireMeasurement {
  mode: WireMode;
  steps: number;
  innerSteps: number;
  parameters: number;
  /** Frame bytes rank 0 sent per optimizer step. */
  bytesPerStep: number;
  /** Frame bytes rank 1 sent per optimizer step. */
  joinerBytesPerStep: number;
  /** What diloco.ts's formula says (payload only). */
  formula: number;
  frames: number;
}

const tok = new ByteTokenizer();
const DOCS: EncodedDoc[] = Array.from({ length: 16 }, (_, i) => {
  const s = encodeConversation(tok, [{ role: 'user', content: `route ${i}` }, { role: 'assistant', content: `tool_${i % 4}` }], []);
  return { ids: s.ids, mask: s.assistantMask };
});

async function measure(rt: GpuRuntime, mode: WireMode, innerSteps: number): Promise<WireMeasurement> {
  const model = PRESETS.nano;
  const star = mode === 'data-parallel-3-via-rank0';
  const hub = star ? MemoryHub.star('rank-0') : new MemoryHub();
  const ids = star ? ['rank-0', 'rank-1', 'rank-2'] : ['rank-0', 'rank-1'];
  const transports = ids.map((id) => {
    const t = new CountingTransport(id, hub);
    hub.members.set(id, t);
    return t;
  });
  const status = () => ({ role: 'rank' as const, version: -1, rolloutsPerSec: 0, busy: false, visible: true, stage: -1, step: 0 });
  const nodes = transports.map((t) => new SwarmNode({ transport: t, runId: 'bench', secret: 'bench', status, heartbeatMs: 1000, silenceMs: 600_000 }));
  for (const n of nodes) await n.start();
  while (nodes[0].members.size < ids.length - 1 || nodes.some((n) => n.members.size < 1)) await new Promise((r) => setTimeout(r, 10));
  const collectives = nodes.map((n, r) => new Collective(n, `bench-${mode}`, r, ids, 600_000, star ? 'via-rank0' : 'direct'));
  const start = initialWeights(model, 1);
  const ws = ids.map(() => new GpuWeights(rt, model, start));
  const steps = mode === 'data-parallel' || star ? 2 : innerSteps;
  const cfg: SftConfig = { ...DEFAULT_SFT, batchSize: 2, seqLen: 64, steps, lr: 1e-3, warmupSteps: 0, pack: false, seed: 1 };
  const data = { train: DOCS, padId: tok.padId };
  try {
    if (mode === 'data-parallel' || star) {
      await Promise.all(ws.map((w, r) => trainSft(rt, w, data, { ...cfg, batchSize: 2 * ids.length }, undefined, { shard: gradientShard(rt, collectives[r]) })));
    } else {
      const outers = ids.map(() => new DilocoOuter({ ...DEFAULT_DILOCO, innerSteps, quantize: mode === 'diloco-int8' ? 'int8' : 'none' }, start));
      await Promise.all(ws.map((w, r) => trainSft(rt, w, data, cfg, undefined, { shard: { rank: r, world: 2 }, afterStep: outers[r].afterStep(rt, collectives[r]) })));
    }
  } finally {
    for (const w of ws) w.destroy();
    for (const n of nodes) await n.stop();
  }
  const P = countParameters(model);
  // via rank 0 at world 3: rank 0 sends the sum to the 2 joiners (W − 1), a joiner sends its own gradient to rank 0
  const formula = star ? 2 * bytesPerStep(P, 'data-parallel', innerSteps) : bytesPerStep(P, mode, innerSteps);
  return { mode, steps, innerSteps, parameters: P, bytesPerStep: transports[0].collectiveBytes / steps, joinerBytesPerStep: transports[1].collectiveBytes / steps, formula, frames: transports[0].frames };
}

/** The three modes on nano (H = DEFAULT_DILOCO.innerSteps), as bench rows with the ratio to data parallel. */
export async function swarmBytesRows(): Promise<BenchResult[]> {
  const rt = await testRuntime('opengles');
  const H = DEFAULT_DILOCO.innerSteps;
  const ms: WireMeasurement[] = [];
  for (const mode of ['data-parallel', 'diloco', 'diloco-int8', 'data-parallel-3-via-rank0'] as const) ms.push(await measure(rt, mode, H));
  rt.destroy();
  const dp = ms[0].bytesPerStep;
  const names: Record<WireMode, string> = {
    'data-parallel': 'swarm bytes/step data parallel f32 grads',
    diloco: `swarm bytes/step diloco H=${H} f32 deltas`,
    'diloco-int8': `swarm bytes/step diloco H=${H} int8 deltas`,
    'data-parallel-3-via-rank0': 'swarm bytes/step data parallel f32 grads, 3 machines via rank 0 (rank 0)',
  };
  const rows: BenchResult[] = ms.map((m) => ({
    name: names[m.mode], unit: 'MB', value: m.bytesPerStep / 1e6, peers: { 'tfjs-webgpu': null, 'ort-webgpu': null }, samples: 1,
    note: `${(m.bytesPerStep / m.parameters).toFixed(3)} B/parameter/step; ${(m.bytesPerStep / dp).toFixed(4)}× data parallel; nano ${(m.parameters / 1e6).toFixed(2)} M params, rank 0 of ${m.mode === 'data-parallel-3-via-rank0' ? 3 : 2}, ${m.frames} frames in ${m.steps} steps (headers and fragments included: ${(m.bytesPerStep / m.formula).toFixed(5)}× the payload formula)`,
  }));
  const star = ms[3];
  rows.push({
    name: 'swarm bytes/step data parallel f32 grads, 3 machines via rank 0 (a joiner)', unit: 'MB', value: star.joinerBytesPerStep / 1e6, peers: { 'tfjs-webgpu': null, 'ort-webgpu': null }, samples: 1,
    note: `${(star.joinerBytesPerStep / star.parameters).toFixed(3)} B/parameter/step: its own gradient to rank 0 only; rank 0 uploads ${(star.bytesPerStep / star.joinerBytesPerStep).toFixed(2)}× that (the sum to W − 1 = 2 joiners; forwarding every gradient would be (W − 1)² = 4 copies)`,
  });
  for (const m of ms.slice(1, 3)) {
    rows.push({ name: `swarm bytes ratio ${names[m.mode].replace('swarm bytes/step ', '')} / data parallel`, unit: '×', value: m.bytesPerStep / dp, peers: { 'tfjs-webgpu': null, 'ort-webgpu': null }, samples: 1 });
  }
  return rows;
}
