// DAPO dynamic sampling in the synchronous RL loop: a group whose rewards are all equal carries no
// signal (the trainer drops it), so the loop rolls out further task batches until the step holds
// `tasksPerStep` groups with signal or `maxRounds` rollout rounds were made. The trainer gets the
// first `tasksPerStep` groups with signal (DAPO fills its train batch the same way and discards the
// surplus); metrics describe every group drawn, so success rates stay those of the policy, not of
// the filtered batch. A refill round is sized to what is missing: missing groups ÷ the share of
// groups with signal so far this step (at most tasksPerStep), so one missing group late in a run
// costs a few tasks, not a whole batch.
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
  /** Groups drawn and groups with signal this step, over every rank. */
  groups: { drawn: number; kept: number };
}

/** Tasks to draw in the next refill round: missing groups ÷ the share of drawn groups with signal, within [1, tasksPerStep]. */
export function refillSize(missing: number, drawnGroups: number, keptGroups: number, tasksPerStep: number): number {
  if (keptGroups === 0) return tasksPerStep;
  return Math.max(1, Math.min(tasksPerStep, Math.ceil((missing * drawnGroups) / keptGroups)));
}

/**
 * Data parallel: rank `rank` rolls out only its slice of every round's tasks (slices contiguous, in
 * rank order), and `gather` hands every rank's signal flags of the round to every rank, so all ranks
 * count groups alike, size refills alike and agree which groups are the step's first with signal.
 */
export interface SignalShare {
  rank: number;
  /** Every rank's per-group signal flags of this round, in rank order (a collective round). */
  gather(kept: boolean[]): Promise<boolean[][]>;
}

/**
 * Rolls out round 0, 1, … of `tasks` tasks each (the whole step's count: with `share`, `roll` plays
 * this rank's slice of them) through `roll` until enough groups have signal (see the header).
 * With `share`, drawn / drawnRewards / drawnKept / train are this rank's part; `groups` counts all ranks.
 */
export async function sampleWithSignal(roll: (round: number, tasks: number) => Promise<Trajectory[]>, opts: DynamicSamplingOptions, share?: SignalShare): Promise<SampledStep> {
  if (!(Number.isInteger(opts.maxRounds) && opts.maxRounds >= 1)) throw new Error(`dynamic sampling: maxRounds = ${opts.maxRounds}, needs an integer ≥ 1`);
  const G = opts.groupSize;
  const K = opts.tasksPerStep;
  const drawn: Trajectory[] = [];
  const drawnRewards: number[] = [];
  const drawnKept: boolean[] = [];
  const train: Trajectory[] = []; // (this rank's part of) the step's first K groups with signal
  let firstRound: Trajectory[] = [];
  let groupsDrawn = 0;
  let groupsKept = 0; // over every rank
  let rounds = 0;
  while (rounds < opts.maxRounds && groupsKept < K) {
    const tasks = rounds === 0 ? K : refillSize(K - groupsKept, groupsDrawn, groupsKept, K);
    const batch = await roll(rounds++, tasks);
    if (rounds === 1) firstRound = batch;
    const rewards = trainingRewards(batch, opts.grpo);
    const signal = groupsToKeep(rewards, G);
    drawn.push(...batch);
    drawnRewards.push(...rewards);
    drawnKept.push(...signal);
    const all = share ? await share.gather(signal) : [signal];
    for (const [rank, flags] of all.entries()) {
      for (const [g, kept] of flags.entries()) {
        if (!kept) continue;
        if (groupsKept < K && rank === (share?.rank ?? 0)) train.push(...batch.slice(g * G, (g + 1) * G));
        groupsKept++;
      }
      groupsDrawn += flags.length;
    }
  }
  // no group with signal anywhere: the first round's batch (K groups), so the trainer reports the skip and why
  return { drawn, drawnRewards, drawnKept, train: groupsKept > 0 ? train : firstRound, rounds, groups: { drawn: groupsDrawn, kept: groupsKept } };
}
