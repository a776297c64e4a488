// Asynchronous GRPO: rollout actors produce batches while the trainer trains on earlier ones.
//
// Staleness bound k: batch slot s (meant for trainer step s) may start only once the trainer has
// finished step s − k, and actors pick up the newest published weights before every job, so a
// batch is at most k versions old when trained on. k = 0 is the synchronous loop (generate, then
// train); k = 1 overlaps generating batch s + 1 with training on batch s. A batch that arrives
// later than planned (several actors, restarts) and is more than k versions old is dropped and
// counted (async/stale_dropped_episodes), never trained on.
//
// Failures: a rollout job that throws (a crashed worker) or exceeds hangTimeoutMs (a hung one)
// costs only that job's episodes: the actor is terminated and replaced by a fresh one holding the
// latest weights, the slot's tasks are handed out again, and async/restarts and
// async/lost_episodes say so.
import { mixSeeds } from '../../../util/seeds';
import { buildStepRecord, type RlStepRecord } from '../rlMetrics';
import { checkGroupSizes, type RlLoopConfig } from '../rlLoop';
import { learningRate } from '../../schedule';
import type { RolloutJob, RolloutResult } from './actors';
import type { ActorPool, RolloutHandle } from './handles';
import type { PackedWeights } from './weights';

export interface AsyncRlConfig extends RlLoopConfig {
  /** k: the most trainer versions a trajectory may lag behind the weights it is trained into. */
  staleness: number;
  /** Rollout actors working in parallel. */
  rolloutActors: number;
  /** A rollout job running longer than this is treated as hung (ms). */
  hangTimeoutMs: number;
  /** Give up after this many actor restarts in one run. */
  maxRestarts: number;
  /**
   * Continue a run after `step` trainer steps (a checkpoint; the trainer already holds its state).
   * `slotsTrained`: the slots those steps trained (the records' 'async/slot'). Slots are trained in
   * arrival order, so after a crash, a re-assignment or a stale drop they are not 0 … step − 1; the
   * slots below the highest one that were not trained are handed out first. Without it: 0 … step − 1.
   */
  from?: { step: number; slotsTrained?: readonly number[] };
}

/** Counters the step records report (cumulative over the run). */
interface Counters {
  restarts: number;
  lostEpisodes: number;
  staleDropped: number;
}

class Timeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  p.catch(() => {}); // an abandoned job may still fail later: nobody is listening then
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Timeout(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });
}

/** A FIFO of finished batches the trainer waits on. */
class BatchQueue {
  private items: RolloutResult[] = [];
  private waiters: ((r: RolloutResult) => void)[] = [];

  push(r: RolloutResult): void {
    const w = this.waiters.shift();
    if (w) w(r);
    else this.items.push(r);
  }

  next(): Promise<RolloutResult> {
    const r = this.items.shift();
    return r ? Promise.resolve(r) : new Promise((resolve) => this.waiters.push(resolve));
  }
}

export async function runAsyncRl(pool: ActorPool, cfg: AsyncRlConfig, onStep?: (r: RlStepRecord) => void | Promise<void>): Promise<RlStepRecord[]> {
  checkGroupSizes(cfg);
  if (!Number.isInteger(cfg.staleness) || cfg.staleness < 0) throw new Error(`async RL: staleness k = ${cfg.staleness} must be an integer ≥ 0`);
  if (!Number.isInteger(cfg.rolloutActors) || cfg.rolloutActors < 1) throw new Error(`async RL: rolloutActors = ${cfg.rolloutActors} must be an integer ≥ 1`);
  const counters: Counters = { restarts: 0, lostEpisodes: 0, staleDropped: 0 };
  const queue = new BatchQueue();
  let latest: PackedWeights = await pool.trainer.snapshot();
  let stepsDone = cfg.from?.step ?? 0;
  let stopped = false;
  let fatal: Error | null = null;
  // Resolves (and is replaced) whenever a step finishes or a slot is handed back: producers re-check.
  let wakeUp: () => void = () => {};
  let changed = new Promise<void>((r) => (wakeUp = r));
  const notify = (): void => {
    const w = wakeUp;
    changed = new Promise<void>((r) => (wakeUp = r));
    w();
  };
  const retrySlots: number[] = [];
  let nextSlot = stepsDone;
  const trained = cfg.from?.slotsTrained;
  if (trained) {
    if (trained.length !== stepsDone || new Set(trained).size !== trained.length || trained.some((x) => !Number.isInteger(x) || x < 0 || x >= cfg.steps)) {
      throw new Error(`async RL: the checkpoint's trained slots [${trained.join(', ')}] do not fit its ${stepsDone} steps of ${cfg.steps}: resume from another checkpoint`);
    }
    nextSlot = trained.length ? Math.max(...trained) + 1 : 0;
    const done = new Set(trained);
    for (let s = 0; s < nextSlot; s++) if (!done.has(s)) retrySlots.push(s);
  }
  const episodesPerJob = cfg.tasksPerStep * cfg.rollout.groupSize;

  const jobFor = (slot: number): RolloutJob => ({ slot, firstTask: slot * cfg.tasksPerStep, tasks: cfg.tasksPerStep, seed: mixSeeds(cfg.seed, 0x5201) });

  async function produce(index: number): Promise<void> {
    let actor: RolloutHandle = await pool.createRollout(index, latest);
    let actorVersion = latest.version;
    while (!stopped) {
      // Slots past the last step are only handed out again (after a crash or a stale drop).
      if (retrySlots.length === 0 && nextSlot >= cfg.steps) {
        await changed;
        continue;
      }
      const slot = retrySlots.shift() ?? nextSlot++;
      // Staleness gate: slot s starts only after trainer step s − k has finished.
      while (!stopped && stepsDone < slot - cfg.staleness) await changed;
      if (stopped) break;
      if (latest.version > actorVersion) {
        await actor.setWeights(latest);
        actorVersion = latest.version;
      }
      try {
        queue.push(await withTimeout(actor.rollout(jobFor(slot)), cfg.hangTimeoutMs));
      } catch (e) {
        if (stopped) break;
        counters.restarts++;
        counters.lostEpisodes += episodesPerJob;
        retrySlots.push(slot);
        notify();
        void actor.terminate().catch(() => {});
        if (counters.restarts > cfg.maxRestarts) throw new Error(`async RL: rollout actors failed ${counters.restarts} times (last: ${e instanceof Error ? e.message : String(e)}); giving up`);
        actor = await pool.createRollout(index, latest);
        actorVersion = latest.version;
      }
    }
    await actor.terminate().catch(() => {});
  }

  /** A producer that cannot go on (too many restarts, an actor that cannot start) stops the run. */
  const fail = (e: unknown): void => {
    fatal ??= e instanceof Error ? e : new Error(String(e));
    stopped = true;
    notify();
    queue.push({ slot: -1, policyVersion: -1, trajectories: [], seconds: 0, generatedTokens: 0 }); // wakes the trainer
  };
  const producers = Array.from({ length: cfg.rolloutActors }, (_, i) => produce(i).catch(fail));
  const history: RlStepRecord[] = [];
  try {
    while (stepsDone < cfg.steps) {
      const tWait = performance.now();
      const batch = await queue.next();
      if (fatal) throw fatal;
      const waited = (performance.now() - tWait) / 1000;
      const trainerVersion = latest.version;
      if (trainerVersion - batch.policyVersion > cfg.staleness) {
        counters.staleDropped += batch.trajectories.length;
        retrySlots.push(batch.slot);
        notify();
        continue;
      }
      const lr = learningRate({ lr: cfg.trainer.lr, warmupSteps: cfg.warmupSteps, totalSteps: cfg.steps, minLrRatio: cfg.minLrRatio }, stepsDone + 1);
      const out = await pool.trainer.train(batch.trajectories, lr);
      const tSync = performance.now();
      if (!out.skipped) latest = await pool.trainer.snapshot();
      const record = buildStepRecord(stepsDone + 1, trainerVersion, batch.trajectories, out, { rolloutSeconds: batch.seconds, trainSeconds: out.seconds, generatedTokens: batch.generatedTokens }, {
        'async/slot': batch.slot, // which tasks this step trained (a resume needs it: slots arrive out of order)
        'async/staleness_bound': cfg.staleness,
        'async/restarts': counters.restarts,
        'async/lost_episodes': counters.lostEpisodes,
        'async/stale_dropped_episodes': counters.staleDropped,
        'async/trainer_wait_s': waited,
        'async/weight_publish_s': (performance.now() - tSync) / 1000,
      });
      stepsDone++;
      notify();
      history.push(record);
      await onStep?.(record); // rollout actors keep going meanwhile (within the staleness bound)
    }
  } finally {
    stopped = true;
    notify();
    await Promise.all(producers.map((p) => withTimeout(p, cfg.hangTimeoutMs).catch(() => {})));
  }
  return history;
}
