// GRPO throughput for the bench table (`grpo throughput sync`, `… async k=1`, `… async k=2`):
// trained tokens (every token run through forward + backward) per wall second, over `steps` GRPO
// steps after one warm-up step, on the routing task set with a fresh model (which samples every
// turn to maxNewTokens: a fixed, worst-case length workload).
// sync = runSyncRl (one weight copy, rollout then train); async = the coordinator with staleness k,
// one rollout actor, through `pool` (default in-process on `rt`: on one device only host work —
// sampling, environments, packing, the loss — can overlap the GPU; a worker pool gives each side
// its own device).
import type { GpuRuntime } from '../../gpu/runtime';
import { type ModelConfig, PRESETS } from '../../model/config';
import { GpuWeights, initialWeights } from '../../model/weights';
import { routingFamily } from '../../envs/functionCalling/family';
import { ByteTokenizer } from '../../tokenizer';
import { grpoConfig } from '../grpo';
import { DEFAULT_GRPO_TRAINER, type GrpoTrainerConfig } from '../grpoTrainer';
import type { RlStepRecord } from '../rlMetrics';
import { type RlLoopConfig, runSyncRl } from '../rlLoop';
import { DEFAULT_ROLLOUT } from '../rollout';
import { runAsyncRl } from './coordinator';
import { type ActorPool, inProcessPool } from './handles';

export interface GrpoBenchOptions {
  mode: 'sync' | 'async';
  /** Staleness bound for async (default 1). */
  k?: number;
  /** Measured steps after the warm-up step (default 3). */
  steps?: number;
  /** Model (default nano). */
  model?: ModelConfig;
  /** Tasks per step (default 2) and samples per task (default 4). */
  tasksPerStep?: number;
  groupSize?: number;
  /** Tokens sampled per episode (default 32). */
  maxNewTokens?: number;
  /** Async only: builds the actor pool (default: in-process on `rt`). */
  pool?: (initial: Map<string, Float32Array>, cfg: RlLoopConfig) => ActorPool | Promise<ActorPool>;
}

export interface GrpoBenchResult {
  mode: 'sync' | 'async';
  k: number;
  /** Tokens run through forward + backward per wall second (the table's value). */
  tokensPerSecond: number;
  /** Tokens sampled by the rollouts per wall second. */
  generatedPerSecond: number;
  /** Wall seconds of the measured steps. */
  seconds: number;
  steps: number;
}

export async function benchGrpoThroughput(rt: GpuRuntime, opts: GrpoBenchOptions): Promise<GrpoBenchResult> {
  const model = opts.model ?? PRESETS.nano;
  const G = opts.groupSize ?? 4;
  const steps = opts.steps ?? 3;
  const maxNew = opts.maxNewTokens ?? 32;
  const maxTotal = 216 + maxNew + 2; // routing prompts are ≤ 214 byte tokens with compact tools
  const trainer: GrpoTrainerConfig = { ...DEFAULT_GRPO_TRAINER, grpo: grpoConfig('default', { groupSize: G }), microBatchRows: 4, seqLen: maxTotal, pack: false, entropyMetric: false };
  const cfg: RlLoopConfig = {
    steps: steps + 1, tasksPerStep: opts.tasksPerStep ?? 2, seed: 1, warmupSteps: 0, minLrRatio: 1,
    rollout: { ...DEFAULT_ROLLOUT, groupSize: G, maxTurns: 1, maxNewTokensPerTurn: maxNew, maxTotalTokens: maxTotal },
    trainer,
  };
  const initial = initialWeights(model, 1);
  const k = opts.mode === 'sync' ? 0 : (opts.k ?? 1);
  // Wall time from the end of the warm-up step (compiles, allocations) to the end of the run.
  let start = 0;
  const onStep = (r: RlStepRecord) => {
    if (r.step === 1) start = performance.now();
  };
  let records: RlStepRecord[];
  if (opts.mode === 'sync') {
    const w = new GpuWeights(rt, model, initial);
    try {
      records = await runSyncRl(rt, w, routingFamily, new ByteTokenizer(), cfg, onStep);
    } finally {
      w.destroy();
    }
  } else {
    const pool = await (opts.pool ?? ((init) => inProcessPool({ rt, spec: { model, family: 'routing', rollout: cfg.rollout, taskSeed: cfg.seed }, trainer, initial: init })))(initial, cfg);
    try {
      records = await runAsyncRl(pool, { ...cfg, staleness: k, rolloutActors: 1, hangTimeoutMs: 30 * 60_000, maxRestarts: 0 }, onStep);
    } finally {
      await pool.close();
    }
  }
  const seconds = (performance.now() - start) / 1000;
  const measured = records.slice(1);
  const sum = (key: string) => measured.reduce((a, r) => a + (r.metrics[key] ?? 0), 0);
  return { mode: opts.mode, k, tokensPerSecond: sum('train/processed_tokens') / seconds, generatedPerSecond: sum('rollout/generated_tokens') / seconds, seconds, steps };
}
