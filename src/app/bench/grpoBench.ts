// GRPO throughput rows: `grpo throughput sync`, `… async k=1`, `… async k=2` (trained tokens per
// wall second; see src/train/rl/async/bench.ts for what is timed) and the derived speed-up rows.
// sync runs runSyncRl on the page's device. async runs the coordinator through the Comlink worker
// pool: the trainer and the rollout actor each in a Web Worker with its own GPUDevice on the same
// browser adapter, so rollout and training can really overlap. If the pool cannot start here the
// async rows are null with the reason: there is no fallback to the one-device in-process pool.
import { describeContext } from '../../gpu/device';
import type { GpuRuntime } from '../../gpu/runtime';
import { type ModelConfig, PRESETS } from '../../model/config';
import { adapterKind } from '../../ops/matmul';
import { benchGrpoThroughput, type GrpoBenchResult } from '../../train/rl/async/bench';
import type { ActorPool } from '../../train/rl/async/handles';
import type { RlLoopConfig } from '../../train/rl/rlLoop';
import { canShareMemory } from '../../train/rl/async/weights';
import { workerPool } from '../../workers/workerPool';
import { type BenchCase, registerBench } from './registry';
import { describeWorkload, GRPO_VARIANTS, type GrpoOutcome, type GrpoVariant, type GrpoWorkload, grpoRowName, grpoWorkload, speedUp, speedUpNote, speedUpRowName } from './grpoRows';

/** A whole row (warm-up, pool start, timed steps) that takes longer than this is reported as hung. */
const ROW_TIMEOUT_MS = 6 * 60_000;

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Outcomes of this page run's measured rows, by row name, for the speed-up rows. */
const outcomes = new Map<string, GrpoOutcome>();
const notes = new Map<string, string>();

/** The Comlink worker pool; a trainer or rollout worker that cannot start fails the row with the reason. */
async function startWorkerPool(rt: GpuRuntime, model: ModelConfig, initial: Map<string, Float32Array>, cfg: RlLoopConfig): Promise<ActorPool> {
  const level = rt.ctx.featureLevel;
  const cannot = (who: string, e: unknown) => new Error(`the ${who} worker could not start on this adapter (featureLevel '${level}'): ${message(e)}; no fallback to the one-device pool`);
  if (typeof Worker === 'undefined') throw new Error('this page has no Web Workers, so the async rows cannot run (no fallback to one device)');
  let pool: ActorPool;
  try {
    pool = await workerPool({ spec: { model, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }], rollout: cfg.rollout, taskSeed: cfg.seed }, trainer: cfg.trainer, initial, featureLevel: level });
  } catch (e) {
    throw cannot('trainer', e);
  }
  return {
    ...pool,
    createRollout: (index, weights) => pool.createRollout(index, weights).catch((e: unknown) => Promise.reject(cannot('rollout', e))),
  };
}

async function measure(rt: GpuRuntime, v: GrpoVariant, w: GrpoWorkload): Promise<GrpoBenchResult> {
  let pool: ActorPool | null = null;
  const run = benchGrpoThroughput(rt, {
    mode: v.mode, k: v.mode === 'async' ? v.k : 0, steps: w.steps, model: PRESETS[w.preset], tasksPerStep: w.tasksPerStep, groupSize: w.groupSize, maxNewTokens: w.maxNewTokens,
    hangTimeoutMs: ROW_TIMEOUT_MS,
    pool: v.mode === 'async' ? async (initial, cfg) => (pool = await startWorkerPool(rt, PRESETS[w.preset], initial, cfg)) : undefined,
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${grpoRowName(v)} did not finish within ${ROW_TIMEOUT_MS / 1000} s (a worker that died without an error?)`)), ROW_TIMEOUT_MS);
  });
  try {
    return await Promise.race([run, timeout]);
  } catch (e) {
    void (pool as ActorPool | null)?.close(); // terminates the workers of a hung run
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

function measuredRow(v: GrpoVariant): BenchCase {
  const name = grpoRowName(v);
  return {
    name,
    unit: 'tokens/s',
    once: true,
    async run(rt, { quick }) {
      const w = grpoWorkload(quick, adapterKind(rt.ctx));
      outcomes.delete(name);
      notes.delete(name);
      const where = v.mode === 'sync'
        ? `one device on the page thread (${describeContext(rt.ctx)})`
        : `trainer worker + rollout worker, each its own device at featureLevel '${rt.ctx.featureLevel}' on the page's adapter (${describeContext(rt.ctx)}); weights ${canShareMemory() ? 'in a SharedArrayBuffer' : 'transferred per worker'}`;
      try {
        const r = await measure(rt, v, w);
        outcomes.set(name, { tokensPerSecond: r.tokensPerSecond, rolloutSecondsPerStep: r.rolloutSecondsPerStep, trainSecondsPerStep: r.trainSecondsPerStep });
        notes.set(name, `${where}; ${describeWorkload(w)}: ${r.seconds.toFixed(1)} s timed, rollout ${r.rolloutSecondsPerStep.toFixed(2)} s + train ${r.trainSecondsPerStep.toFixed(2)} s per step (each side's clock), ${r.generatedPerSecond.toFixed(1)} sampled tokens/s; row ${r.totalSeconds.toFixed(0)} s in all`);
        return r.tokensPerSecond;
      } catch (e) {
        outcomes.set(name, { error: message(e) });
        notes.set(name, where);
        throw e;
      }
    },
    note: () => notes.get(name),
  };
}

function speedUpRow(k: number): BenchCase {
  let note: string | undefined;
  return {
    name: speedUpRowName(k),
    unit: '×',
    once: true,
    async run() {
      note = undefined;
      const sync = outcomes.get(grpoRowName({ mode: 'sync' }));
      const ratio = speedUp(sync, outcomes.get(grpoRowName({ mode: 'async', k })), k);
      note = speedUpNote(ratio, sync);
      return ratio;
    },
    note: () => note,
  };
}

registerBench(...GRPO_VARIANTS.map(measuredRow), ...GRPO_VARIANTS.flatMap((v) => (v.mode === 'async' ? [speedUpRow(v.k)] : [])));
