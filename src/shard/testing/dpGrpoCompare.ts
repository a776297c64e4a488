// Test helpers for data-parallel GRPO (dataParallelGrpo*.test.ts): a family whose reward an untrained
// model varies on, the loop config those tests share, the metric and weight comparisons, and "one
// process vs N ranks" — the same run once plain and once over N in-memory ranks.
import { type EnvFamily, weightedReward } from '../../envs/types';
import { type FakeTask, fakeFamily } from '../../eval/fakeFamily';
import type { GpuRuntime } from '../../gpu/runtime';
import { GpuWeights, initialWeights } from '../../model/weights';
import { relativeError } from '../../reference/ops/finiteDiff';
import { ByteTokenizer } from '../../tokenizer';
import { grpoConfig } from '../../train/rl/grpo';
import { DEFAULT_GRPO_TRAINER } from '../../train/rl/grpoTrainer';
import { type RlLoopConfig, type RlResume, runSyncRl } from '../../train/rl/rlLoop';
import type { RlStepRecord } from '../../train/rl/rlMetrics';
import { DEFAULT_ROLLOUT } from '../../train/rl/rollout';
import { MICRO_MODEL } from '../../train/testing/microModel';
import { gradientShard } from '../dataParallel';
import type { SwarmNode } from '../swarmNode';
import { memoryRanks } from '../testRanks';

export const tok = new ByteTokenizer();

/**
 * The fake family's tasks, paid by what the untrained model writes: a reward in [0, 1] that differs
 * between samples of one task (tasks for which `flat` says so pay 0.5 whatever is written: no signal).
 */
export function textScoredFamily(o: { flat?: (index: number) => boolean } = {}): EnvFamily<FakeTask> {
  const base = fakeFamily();
  const weights = { shape: 1 };
  return {
    ...base,
    defaultWeights: weights,
    createEnv() {
      const env = base.createEnv({ maxTurns: 1 });
      let flat = false;
      return {
        family: env.family,
        reset: (task: FakeTask) => {
          flat = o.flat?.(task.index) ?? false;
          return env.reset(task);
        },
        async step(text: string) {
          let h = text.length;
          for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) % 997;
          const shape = flat ? 0.5 : (h % 5) / 4;
          return { messages: [], reward: weightedReward({ shape }, weights), done: true, info: { success: shape === 1 } };
        },
      };
    },
  };
}

export const CFG: RlLoopConfig = {
  steps: 3, tasksPerStep: 4, seed: 21, warmupSteps: 0, minLrRatio: 1,
  rollout: { ...DEFAULT_ROLLOUT, groupSize: 3, maxTurns: 1, maxNewTokensPerTurn: 10, maxTotalTokens: 200 },
  trainer: { ...DEFAULT_GRPO_TRAINER, grpo: grpoConfig('default', { groupSize: 3, klCoef: 0.05, entropyCoef: 0.01 }), microBatchRows: 2, seqLen: 200, lr: 1e-2 },
};

export const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-12);
/** Wall-clock figures differ from run to run; everything else must match. */
export const timed = (k: string) => k.startsWith('time/') || k.endsWith('tokens_per_s');
// On-policy (ratio 1) these are 0 in exact arithmetic — every group's advantages sum to 0 — so what
// is left is float32 noise (~1e-8) and a relative comparison means nothing: they are compared
// absolutely. The entropy bonus and the KL term keep `loss` itself well away from 0.
export const VANISHING = new Set(['pg_loss', 'approx_kl']);
export const metricError = (k: string, a: number, b: number) => (VANISHING.has(k) ? Math.abs(a - b) : rel(a, b));

export async function maxWeightError(a: GpuWeights, b: GpuWeights): Promise<number> {
  const [x, y] = [await a.download(), await b.download()];
  return Math.max(...[...y].map(([name, v]) => relativeError(x.get(name)!, v)));
}

/** The worst relative error of any compared metric of `per` (records per rank) against `single`. */
export function worst(single: readonly RlStepRecord[], per: readonly (readonly RlStepRecord[])[]): number {
  let m = 0;
  for (const [s, want] of single.entries()) for (const r of per) for (const [k, v] of Object.entries(want.metrics)) if (!timed(k) && !VANISHING.has(k)) m = Math.max(m, rel(r[s].metrics[k], v));
  return m;
}

/** Each rank's records and weights (in rank order) of one run over in-memory ranks. */
export interface RanksRun {
  per: RlStepRecord[][];
  ws: GpuWeights[];
  /** Frees the weights and stops the ranks' nodes. */
  close(): Promise<void>;
}

/**
 * One GRPO run over `world` in-memory ranks, every rank starting from `init`; `rankResume(r)` adds
 * to rank r's resume options (onRollouts, a checkpoint's from/restore, …; its shard is set here).
 */
export async function runRanks(rt: GpuRuntime, family: EnvFamily<FakeTask>, cfg: RlLoopConfig, world: number, init: Map<string, Float32Array>, rankResume?: (rank: number) => RlResume): Promise<RanksRun> {
  const { nodes, collectives } = await memoryRanks(world, 'dp-grpo-test');
  const ws = collectives.map(() => new GpuWeights(rt, MICRO_MODEL, init));
  const per = await Promise.all(ws.map((w, r) => runSyncRl(rt, w, family, tok, cfg, undefined, undefined, { ...rankResume?.(r), shard: gradientShard(rt, collectives[r]) })));
  return { per, ws, close: () => closeAll(ws, nodes) };
}

export interface OneVsRanks extends RanksRun {
  /** The one process's records and weights. */
  single: RlStepRecord[];
  one: GpuWeights;
}

/** The same GRPO run (weights seeded `initSeed`) in one process and over `world` in-memory ranks (runRanks). */
export async function oneVsRanks(rt: GpuRuntime, family: EnvFamily<FakeTask>, cfg: RlLoopConfig, world: number, o: { initSeed?: number; rankResume?: (rank: number) => RlResume } = {}): Promise<OneVsRanks> {
  const init = initialWeights(MICRO_MODEL, o.initSeed ?? 8);
  const one = new GpuWeights(rt, MICRO_MODEL, init);
  const single = await runSyncRl(rt, one, family, tok, cfg);
  const ranks = await runRanks(rt, family, cfg, world, init, o.rankResume);
  return { ...ranks, single, one, close: () => closeAll([one], []).then(ranks.close) };
}

async function closeAll(weights: readonly GpuWeights[], nodes: readonly SwarmNode[]): Promise<void> {
  for (const w of weights) w.destroy();
  for (const n of nodes) await n.stop();
}
