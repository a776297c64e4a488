// What the async coordinator talks to: a trainer and rollout actors behind async handles, with two
// implementations — in-process (this file: the actor classes called directly, interleaved through
// promises; Node tests and benches) and Web Workers via Comlink (workerPool.ts: the page).
// The in-process pool can inject faults (a rollout that crashes or hangs) to test recovery.
import type { GpuRuntime } from '../../../gpu/runtime';
import type { GrpoTrainerConfig } from '../grpoTrainer';
import type { Trajectory } from '../trajectory';
import { type RolloutActorSpec, RolloutActor, type RolloutJob, type RolloutResult, TrainerActor, type TrainStepOutput } from './actors';
import type { PackedWeights } from './weights';

export interface RolloutHandle {
  /** Queues newer weights; the actor loads them before its next job. */
  setWeights(p: PackedWeights): Promise<void>;
  rollout(job: RolloutJob): Promise<RolloutResult>;
  /** Stops the actor (a worker is terminated; in-flight work is lost). */
  terminate(): Promise<void>;
}

export interface TrainerHandle {
  train(trajs: Trajectory[], lr: number): Promise<TrainStepOutput>;
  /** The current weights with their version. */
  snapshot(): Promise<PackedWeights>;
  terminate(): Promise<void>;
  /** The trainer itself when it lives in this thread (checkpoints read and restore its state). */
  local?: TrainerActor;
}

/** Creates the trainer once and rollout actors on demand (again after a crash). */
export interface ActorPool {
  trainer: TrainerHandle;
  /** A fresh rollout actor (index = its slot in the coordinator) holding `weights`. */
  createRollout(index: number, weights: PackedWeights): Promise<RolloutHandle>;
  /** Releases everything the pool created. */
  close(): Promise<void>;
}

/** Faults to inject, by global rollout-job number (0-based, counting every job any actor was given). */
export interface FaultPlan {
  /** Jobs whose actor throws (a crashed worker). */
  crashJobs?: number[];
  /** Jobs that never return (a hung worker). */
  hangJobs?: number[];
}

export interface InProcessPoolOptions {
  /** The trainer's device; rollout actors use `rolloutRuntimes[i % n]` or this one. */
  rt: GpuRuntime;
  rolloutRuntimes?: GpuRuntime[];
  spec: RolloutActorSpec;
  trainer: GrpoTrainerConfig;
  /** The weights training starts from. */
  initial: Map<string, Float32Array>;
}

/** Trainer and rollout actors in this thread; they share the device unless rolloutRuntimes are given. */
export function inProcessPool(opts: InProcessPoolOptions): ActorPool {
  const trainerActor = new TrainerActor(opts.rt, opts.spec.model, opts.initial, opts.trainer);
  const actors = new Set<RolloutActor>();
  return {
    trainer: {
      train: (trajs, lr) => trainerActor.train(trajs, lr),
      snapshot: () => trainerActor.snapshot(),
      terminate: async () => trainerActor.destroy(),
      local: trainerActor,
    },
    async createRollout(index, weights) {
      const rt = opts.rolloutRuntimes?.length ? opts.rolloutRuntimes[index % opts.rolloutRuntimes.length] : opts.rt;
      const actor = await RolloutActor.create(rt, opts.spec, weights);
      actors.add(actor);
      let alive = true;
      let inFlight: Promise<unknown> | null = null;
      return {
        setWeights: async (p) => actor.setWeights(p),
        rollout: async (job) => {
          if (!alive) throw new Error(`rollout actor ${index} was terminated`);
          const p = actor.rollout(job);
          inFlight = p.catch(() => {});
          try {
            return await p;
          } finally {
            inFlight = null;
          }
        },
        terminate: async () => {
          alive = false;
          actors.delete(actor);
          // A job still running on this thread keeps using the weights: free them once it settles.
          if (inFlight) void inFlight.then(() => actor.destroy());
          else actor.destroy();
        },
      };
    },
    async close() {
      for (const a of actors) a.destroy();
      actors.clear();
      trainerActor.destroy();
    },
  };
}

/**
 * The pool with each rollout actor's `rollout` replaced by `wrap(inner rollout, actor index)`; the
 * trainer, weights and lifetime calls pass through.
 */
export function wrapRollouts(pool: ActorPool, wrap: (rollout: RolloutHandle['rollout'], index: number) => RolloutHandle['rollout']): ActorPool {
  return {
    trainer: pool.trainer,
    close: () => pool.close(),
    async createRollout(index, weights) {
      const inner = await pool.createRollout(index, weights);
      return {
        setWeights: (p) => inner.setWeights(p),
        terminate: () => inner.terminate(),
        rollout: wrap((job) => inner.rollout(job), index),
      };
    },
  };
}

/** Wraps a pool so chosen rollout jobs crash or hang (counted over every actor the pool creates). */
export function injectFaults(pool: ActorPool, plan: FaultPlan): ActorPool {
  let jobs = 0;
  return wrapRollouts(pool, (rollout, index) => (job) => {
    const n = jobs++;
    if (plan.crashJobs?.includes(n)) return Promise.reject(new Error(`injected fault: rollout actor ${index} crashed on job ${n}`));
    if (plan.hangJobs?.includes(n)) return new Promise<RolloutResult>(() => {});
    return rollout(job);
  });
}
