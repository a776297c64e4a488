// DAPO dynamic sampling in the synchronous RL loop: a group whose rewards are all equal carries no
// signal (the trainer drops it), so the loop rolls out further task batches until the step holds
// `tasksPerStep` groups with signal or `maxRounds` rollout rounds were made. The trainer gets the
// first `tasksPerStep` groups with signal (DAPO fills its train batch the same way and discards the
// surplus); metrics describe every group drawn, so success rates stay those of the policy, not of
// the filtered batch.
import { type GrpoConfig, groupsToKeep, keepGroups, trainingRewards } from './grpo';
import type { Trajectory } from './trajectory';

export interface DynamicSamplingOptions {
  /** G: trajectories per group (groups are contiguous in each round's batch). */
  groupSize: number;
  /** Groups with signal wanted per step. */
  tasksPerStep: number;
  /** Rollout rounds at most (1: no refill, the trainer just drops the groups without signal). */
  maxRounds: number;
  /** How trajectories become the scalar training reward (the trainer's own rule). */
  grpo: Pick<GrpoConfig, 'rewardWeights' | 'overlongPenalty'>;
}

export interface SampledStep {
  /** Every trajectory rolled out this step, round after round (groups contiguous). */
  drawn: Trajectory[];
  /** Training rewards of `drawn`, and per drawn group whether it has signal. */
  drawnRewards: number[];
  drawnKept: boolean[];
  /**
   * The batch to train: up to tasksPerStep groups with signal. When no group had signal it is the
   * first round's batch, so the trainer reports the skip and why.
   */
  train: Trajectory[];
  /** Rollout rounds made (1 … maxRounds). */
  rounds: number;
}

/** Rolls out round 0, 1, … through `roll` until enough groups have signal (see the header). */
export async function sampleWithSignal(roll: (round: number) => Promise<Trajectory[]>, opts: DynamicSamplingOptions): Promise<SampledStep> {
  if (!(Number.isInteger(opts.maxRounds) && opts.maxRounds >= 1)) throw new Error(`dynamic sampling: maxRounds = ${opts.maxRounds}, needs an integer ≥ 1`);
  const G = opts.groupSize;
  const drawn: Trajectory[] = [];
  const drawnRewards: number[] = [];
  const drawnKept: boolean[] = [];
  const withSignal: Trajectory[] = [];
  let rounds = 0;
  while (rounds < opts.maxRounds && withSignal.length < opts.tasksPerStep * G) {
    const batch = await roll(rounds++);
    const rewards = trainingRewards(batch, opts.grpo);
    const kept = groupsToKeep(rewards, G);
    drawn.push(...batch);
    drawnRewards.push(...rewards);
    drawnKept.push(...kept);
    withSignal.push(...keepGroups(batch, kept, G));
  }
  const train = withSignal.length > 0 ? withSignal.slice(0, opts.tasksPerStep * G) : drawn.slice(0, opts.tasksPerStep * G);
  return { drawn, drawnRewards, drawnKept, train, rounds };
}
