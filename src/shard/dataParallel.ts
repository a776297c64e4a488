// Data-parallel training over a swarm: the GradientShard the SFT loop (trainSft's resume.shard)
// and the GRPO trainer (GrpoTrainer.step's shard) call once per optimizer step. Gradients leave the
// GPU as one float32 vector in parameter order, every rank's vector is gathered (collective.ts) and
// summed in rank order on the host, and the sum goes back into the GPU gradients before AdamW: every
// rank applies the same update to the same weights, so no weights are ever broadcast.
// Bytes per step and rank: 4 × parameters sent (tabs: one BroadcastChannel post reaches all ranks;
// libp2p: one copy per other rank) and as much received from each other rank.
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuWeights } from '../model/weights';
import type { GradientShard } from '../train/optimizerState';
import type { Collective } from './collective';
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
      const mine = new Float32Array(total);
      let at = 0;
      for (const n of names) {
        mine.set(grads.get(n)!, at);
        at += grads.get(n)!.length;
      }
      const all = await collective.allGather(floatBytes(mine), info);
      const sum = new Float32Array(total); // float32 adds in rank order: the same bits on every rank
      for (const [rank, c] of all.entries()) {
        if (c.bytes.byteLength !== 4 * total) throw new Error(`data parallel: rank ${rank} sent ${c.bytes.byteLength} gradient bytes, expected ${4 * total} (another model?)`);
        const g = finiteFloats(c.bytes, `data parallel: rank ${rank}'s gradients`);
        for (let i = 0; i < total; i++) sum[i] += g[i];
        if (rank !== collective.rank) stats.bytesReceived += c.bytes.byteLength;
      }
      stats.bytesSent += 4 * total;
      stats.steps++;
      at = 0;
      for (const n of names) {
        const len = grads.get(n)!.length;
        rt.write(w.grad(n), sum.subarray(at, at + len));
        at += len;
      }
      return all.map((c) => c.info);
    },
    async gather(what: string, info: unknown): Promise<unknown[]> {
      const all = await collective.allGather(new Uint8Array(0), { what, info });
      return all.map((c, rank) => {
        const got = c.info as { what?: unknown; info?: unknown } | null;
        if (got?.what !== what) throw new Error(`data parallel: rank ${rank} sent ${JSON.stringify(got?.what ?? null)} where this rank (${collective.rank}) gathers '${what}': the ranks are out of step`);
        return got.info;
      });
    },
  };
}
