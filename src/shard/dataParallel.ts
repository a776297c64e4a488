// Data-parallel training over a swarm: the GradientShard the SFT loop (trainSft's resume.shard)
// and the GRPO trainer (GrpoTrainer.step's shard) call once per optimizer step. Gradients leave the
// GPU as one float32 vector in parameter order, every rank's vector is gathered (collective.ts) and
// summed in rank order on the host, and the sum goes back into the GPU gradients before AdamW: every
// rank applies the same update to the same weights, so no weights are ever broadcast.
// Bytes per step and rank: 4 × parameters sent (tabs: one BroadcastChannel post reaches all ranks;
// libp2p: one copy per other rank) and as much received from each other rank, plus the step's JSON
// side-information (metrics), which rides at the payload's end (headers are capped at 16 KiB).
// Across machines (the collective's via-rank0 route: joiners reach rank 0 only) the gradients are
// reduced at rank 0 instead: each joiner sends its vector to rank 0 and gets the sum back (4 × P
// each way), rank 0 receives W − 1 vectors and sends the sum W − 1 times — not the (W − 1)² copies
// forwarding every vector would cost. The sum is the same rank-order float32 sum, so the weights
// are the same bits either way.
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuWeights } from '../model/weights';
import type { GradientShard } from '../train/optimizerState';
import { type Collective, type Contribution, decodeInfo, encodeInfo } from './collective';
import { finiteFloats, floatBytes } from './protocol';

export interface GradientShardStats {
  /** Gradient bytes this rank sent and received so far (payloads only). */
  bytesSent: number;
  bytesReceived: number;
  steps: number;
}

export function gradientShard(rt: GpuRuntime, collective: Collective): GradientShard & { stats: GradientShardStats } {
  const stats: GradientShardStats = { bytesSent: 0, bytesReceived: 0, steps: 0 };
  return {
    rank: collective.rank,
    world: collective.world,
    stats,
    async allReduce(w: GpuWeights, info: unknown): Promise<unknown[]> {
      const names = w.trainableNames();
      const grads = await w.downloadGrads();
      const total = names.reduce((a, n) => a + grads.get(n)!.length, 0);
      const json = encoder.encode(encodeInfo(info));
      const mine = new Float32Array(total + Math.ceil(json.byteLength / 4)); // gradients, then the info's JSON
      let at = 0;
      for (const n of names) {
        mine.set(grads.get(n)!, at);
        at += grads.get(n)!.length;
      }
      new Uint8Array(mine.buffer, 4 * total).set(json);
      const bytes = floatBytes(mine);
      const meta = { json: json.byteLength };
      let sum: Float32Array;
      let infos: unknown[];
      if (collective.route === 'via-rank0') {
        const result = await collective.reduceAtRank0(bytes, meta, (all) => packSum(sumInRankOrder(all, total)));
        ({ sum, infos } = unpackSum(result, total, collective.world));
        const others = collective.rank === 0 ? collective.world - 1 : 1;
        stats.bytesSent += others * 4 * total;
        stats.bytesReceived += others * 4 * total;
      } else {
        ({ sum, infos } = sumInRankOrder(await collective.allGather(bytes, meta), total));
        stats.bytesSent += 4 * total;
        stats.bytesReceived += (collective.world - 1) * 4 * total;
      }
      stats.steps++;
      at = 0;
      for (const n of names) {
        const len = grads.get(n)!.length;
        rt.write(w.grad(n), sum.subarray(at, at + len));
        at += len;
      }
      return infos;
    },
    async gather(what: string, info: unknown): Promise<unknown[]> {
      const all = await collective.allGather(encoder.encode(encodeInfo({ what, info })), { json: -1 });
      return all.map((c, rank) => {
        const got = splitJson(c, rank, 0).info as { what?: unknown; info?: unknown } | null;
        if (got?.what !== what) throw new Error(`data parallel: rank ${rank} sent ${JSON.stringify(got?.what ?? null)} where this rank (${collective.rank}) gathers '${what}': the ranks are out of step`);
        return got.info;
      });
    },
  };
}

/** Every rank's gradients (`total` floats, then its JSON) added up in rank order, with the JSONs. */
function sumInRankOrder(all: Contribution[], total: number): { sum: Float32Array; infos: unknown[] } {
  const sum = new Float32Array(total); // float32 adds in rank order: the same bits on every rank
  const infos: unknown[] = [];
  for (const [rank, c] of all.entries()) {
    const { bytes, info } = splitJson(c, rank, 4 * total);
    if (bytes.byteLength !== 4 * total) throw new Error(`data parallel: rank ${rank} sent ${bytes.byteLength} gradient bytes, expected ${4 * total} (another model?)`);
    const g = finiteFloats(bytes, `data parallel: rank ${rank}'s gradients`);
    for (let i = 0; i < total; i++) sum[i] += g[i];
    infos.push(info);
  }
  return { sum, infos };
}

/** Rank 0's result of a reduce: the sum, then every rank's JSON as one array. */
function packSum({ sum, infos }: { sum: Float32Array; infos: unknown[] }): Contribution {
  const json = encoder.encode(encodeInfo(infos));
  const out = new Float32Array(sum.length + Math.ceil(json.byteLength / 4));
  out.set(sum);
  new Uint8Array(out.buffer, 4 * sum.length).set(json);
  return { bytes: floatBytes(out), info: { json: json.byteLength } };
}

function unpackSum(result: Contribution, total: number, world: number): { sum: Float32Array; infos: unknown[] } {
  const { bytes, info } = splitJson(result, 0, 4 * total);
  if (bytes.byteLength !== 4 * total) throw new Error(`data parallel: rank 0 sent a sum of ${bytes.byteLength} bytes, expected ${4 * total} (another model?)`);
  if (!Array.isArray(info) || info.length !== world) throw new Error(`data parallel: rank 0 sent side-information for ${Array.isArray(info) ? info.length : 'no'} ranks, the group has ${world}`);
  return { sum: finiteFloats(bytes, "data parallel: rank 0's summed gradients"), infos: info };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * A contribution's JSON side-information travels in its payload (the header is capped at 16 KiB:
 * a step's per-micro-batch metrics or episode summaries can be more): `json` bytes of UTF-8 from
 * byte `from` (gradients before it, padded to 4 bytes), or the whole payload when json is −1.
 */
function splitJson(c: Contribution, rank: number, from: number): { bytes: Uint8Array; info: unknown } {
  const n = (c.info as { json?: unknown } | null)?.json;
  const len = n === -1 ? c.bytes.byteLength - from : n;
  if (typeof len !== 'number' || !Number.isInteger(len) || len < 0 || from + len > c.bytes.byteLength) {
    throw new Error(`data parallel: rank ${rank} sent side-information of ${String(n)} bytes in a payload of ${c.bytes.byteLength}`);
  }
  const padded = n === -1 ? len : 4 * Math.ceil(len / 4);
  let info: unknown;
  try {
    info = decodeInfo(decoder.decode(c.bytes.subarray(c.bytes.byteLength - padded, c.bytes.byteLength - padded + len)));
  } catch {
    throw new Error(`data parallel: rank ${rank} sent side-information that is not JSON`);
  }
  return { bytes: c.bytes.subarray(0, c.bytes.byteLength - padded), info };
}
