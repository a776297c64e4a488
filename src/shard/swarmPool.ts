// The async coordinator's ActorPool over the swarm: the trainer is the leader's own (in-process,
// so the runner can checkpoint it), and every rollout "actor" the coordinator creates is a handle on
// the scheduler, which spreads its jobs over whichever members are there. The coordinator's
// staleness bound, versions, stale drops and restarts apply unchanged; there is no second coordinator.
import type { ActorPool, RolloutHandle, TrainerHandle } from '../train/rl/async/handles';
import type { RolloutScheduler } from './rolloutScheduler';

export function swarmPool(trainer: TrainerHandle, scheduler: RolloutScheduler, closeTrainer: () => Promise<void>): ActorPool {
  return {
    trainer,
    async createRollout(_index, weights): Promise<RolloutHandle> {
      scheduler.publish(weights);
      let alive = true;
      return {
        setWeights: async (p) => scheduler.publish(p),
        rollout: (job) => (alive ? scheduler.run(job) : Promise.reject(new Error('swarm rollout handle was terminated'))),
        terminate: async () => {
          alive = false;
        },
      };
    },
    async close() {
      await scheduler.close();
      await closeTrainer();
    },
  };
}
