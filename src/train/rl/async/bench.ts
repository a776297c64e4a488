// GRPO throughput for the bench table (`grpo throughput sync`, `… async k=1`, `… async k=2`):
// trained tokens (Σ length of the trained episodes, 'train/episode_tokens') per wall second, over
// `steps` GRPO steps after one warm-up step, on the routing task set with a fresh model (which
// samples every turn to maxNewTokens: a fixed, worst-case length workload). The trainer holds each
// group's prompt once per row, as the routing recipe does (sharePrefix), so a step's rollout and
// training take similar time; the unit counts episode tokens either way, so rows stay comparable.
// sync = runSyncRl (one weight copy, rollout then train); async = the coordinator with staleness k,
// one rollout actor, through `pool` (default in-process on `rt`: on one device only host work —
// sampling, environments, packing, the loss — can overlap the GPU; a worker pool gives each side
// its own device).
//
// Warm-up, so both modes time the same steady state: sync times steps 2…N+1 of one run (step 1
// compiles and allocates). Async first plays a one-step coordinator run on the same actors (both
// devices compile), then a second run whose step 1 fills the pipeline; it times steps 2…N+1 of
// that run. Without the first run the trainer's slow first step would let the rollout actor bank
// k batches before the clock starts, flattering async.
import type { GpuRuntime } from '../../../gpu/runtime';
import { type ModelConfig, PRESETS } from '../../../model/config';
import { GpuWeights, initialWeights } from '../../../model/weights';
import { routingFamily } from '../../../envs/functionCalling/family';
import { ByteTokenizer } from '../../../tokenizer';
import { grpoConfig } from '../grpo';
import { DEFAULT_GRPO_TRAINER, type GrpoTrainerConfig } from '../grpoTrainer';
import type { RlStepRecord } from '../rlMetrics';
import { type RlLoopConfig, runSyncRl } from '../rlLoop';
import { DEFAULT_ROLLOUT } from '../rollout';
import { type AsyncRlConfig, runAsyncRl } from './coordinator';
import { type ActorPool, inProcessPool, type RolloutHandle } from './handles';

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
  /** Async only: a rollout job running longer than this is a hang and fails the run (default 30 min). */
  hangTimeoutMs?: number;
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
  /** Mean seconds per measured step spent producing rollouts and training (each side's own clock). */
  rolloutSecondsPerStep: number;
  trainSecondsPerStep: number;
  /** Wall seconds of the whole call: warm-up, pool start and teardown included. */
  totalSeconds: number;
}

/**
 * Rollout actors that outlive a coordinator run: createRollout(i) hands back actor i (queueing
 * `weights`) and terminate() leaves it running until close(), so a warm-up run's compiled
 * pipelines serve the timed run. Only for runs with maxRestarts = 0 (a failed actor ends the run).
 */
function keepRollouts(pool: ActorPool): ActorPool {
  const kept = new Map<number, RolloutHandle>();
  return {
    trainer: pool.trainer,
    async createRollout(index, weights) {
      let h = kept.get(index);
      if (h) await h.setWeights(weights);
      else kept.set(index, (h = await pool.createRollout(index, weights)));
      const inner = h;
      return { setWeights: (p) => inner.setWeights(p), rollout: (job) => inner.rollout(job), terminate: async () => {} };
    },
    close: () => pool.close(),
  };
}

export async function benchGrpoThroughput(rt: GpuRuntime, opts: GrpoBenchOptions): Promise<GrpoBenchResult> {
  const tCall = performance.now();
  const model = opts.model ?? PRESETS.nano;
  const G = opts.groupSize ?? 4;
  const steps = opts.steps ?? 3;
  const maxNew = opts.maxNewTokens ?? 32;
  const maxTotal = 216 + maxNew + 2; // routing prompts are ≤ 214 byte tokens with compact tools
  // a row holds a group: the prompt once, then G branches of ≤ maxNew + 1 tokens
  const rowLength = maxTotal + (G - 1) * (maxNew + 1);
  const trainer: GrpoTrainerConfig = {
    ...DEFAULT_GRPO_TRAINER, grpo: grpoConfig('default', { groupSize: G }), microBatchRows: 2, seqLen: rowLength, pack: false, sharePrefix: true, entropyMetric: false,
  };
  const cfg: RlLoopConfig = {
    steps: steps + 1, tasksPerStep: opts.tasksPerStep ?? 2, seed: 1, warmupSteps: 0, minLrRatio: 1,
    rollout: { ...DEFAULT_ROLLOUT, groupSize: G, maxTurns: 1, maxNewTokensPerTurn: maxNew, maxTotalTokens: maxTotal },
    trainer,
  };
  const initial = initialWeights(model, 1);
  const k = opts.mode === 'sync' ? 0 : (opts.k ?? 1);
  // Wall time from the end of the timed run's first step to the end of the run.
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
    const made = await (opts.pool ?? ((init) => inProcessPool({ rt, spec: { model, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }], rollout: cfg.rollout, taskSeed: cfg.seed }, trainer, initial: init })))(initial, cfg);
    const pool = keepRollouts(made);
    const asyncCfg: AsyncRlConfig = { ...cfg, staleness: k, rolloutActors: 1, hangTimeoutMs: opts.hangTimeoutMs ?? 30 * 60_000, maxRestarts: 0 };
    try {
      await runAsyncRl(pool, { ...asyncCfg, steps: 1 }); // warm-up: both devices compile and allocate
      records = await runAsyncRl(pool, asyncCfg, onStep);
    } finally {
      await pool.close();
    }
  }
  const seconds = (performance.now() - start) / 1000;
  const measured = records.slice(1);
  const sum = (key: string) => measured.reduce((a, r) => a + (r.metrics[key] ?? 0), 0);
  return {
    mode: opts.mode, k, steps, seconds,
    tokensPerSecond: sum('train/episode_tokens') / seconds,
    generatedPerSecond: sum('rollout/generated_tokens') / seconds,
    rolloutSecondsPerStep: sum('time/rollout_s') / measured.length,
    trainSecondsPerStep: sum('time/train_s') / measured.length,
    totalSeconds: (performance.now() - tCall) / 1000,
  };
}
