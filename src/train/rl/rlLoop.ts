// The synchronous RL loop (staleness k = 0): every step samples tasks, rolls them out with the
// current weights, trains one GRPO step on them, and reports the step's metrics. The async
// coordinator (train/async) runs the same two halves concurrently.
import type { EnvFamily, EpisodeLimits, TaskBase } from '../../envs/types';
import { mixSeeds } from '../../util/seeds';
import { withRandomValueTasks } from '../../data/randomValueTasks';
import type { GpuRuntime } from '../../gpu/runtime';
import type { GpuWeights } from '../../model/weights';
import type { Tokenizer } from '../../tokenizer';
import { GrpoTrainer, type GrpoTrainerConfig } from './grpoTrainer';
import { modelTurnGenerator } from './modelGenerator';
import { type SignalShare, sampleWithSignal } from './dynamicSampling';
import { buildStepRecord, generatedTokens, type RlStepRecord } from './rlMetrics';
import { type PromptRenderer, type RolloutConfig, rolloutBatch } from './rollout';
import type { Trajectory } from './trajectory';
import { learningRate } from '../schedule';
import type { GradientShard } from '../optimizerState';
import { gatherStep, rankSlice } from './dataParallelRl';

export interface RlLoopConfig {
  /** Optimizer steps. */
  steps: number;
  /** Tasks per step (groups); each is played rollout.groupSize times. */
  tasksPerStep: number;
  /** Seed of the task stream (train split) and of sampling. */
  seed: number;
  /** Linear warm-up steps of the lr (0: constant after step 1). */
  warmupSteps: number;
  /** Final lr as a fraction of the peak (cosine decay; 1 = constant). */
  minLrRatio: number;
  rollout: RolloutConfig;
  trainer: GrpoTrainerConfig;
  /** Environment limit overrides. */
  limits?: Partial<EpisodeLimits>;
  /** Reward weight overrides. */
  weights?: Partial<Record<string, number>>;
  /**
   * With the trainer's dynamicSampling: rollout rounds per step at most, to fill the step with
   * tasksPerStep groups that carry signal (dynamicSampling.ts; default 1 = drop without refilling).
   * Refill rounds are sized to the missing groups; their tasks come from their own deterministic
   * stream. The async coordinator does not refill.
   */
  maxSamplingRounds?: number;
  /** Share of function-calling train tasks with random argument values (data/randomValueTasks.ts; absent = 0). */
  randomValues?: number;
}

/** The tasks of step `step` (0-based): a deterministic slice of the train split. */
export function tasksForStep<T extends TaskBase>(family: EnvFamily<T>, seed: number, step: number, tasksPerStep: number): T[] {
  return Array.from({ length: tasksPerStep }, (_, i) => family.generateTask(seed, step * tasksPerStep + i, 'train'));
}

export function checkGroupSizes(cfg: Pick<RlLoopConfig, 'rollout' | 'trainer'>): void {
  if (cfg.rollout.groupSize !== cfg.trainer.grpo.groupSize) {
    throw new Error(`RL config: rollout.groupSize (${cfg.rollout.groupSize}) and trainer.grpo.groupSize (${cfg.trainer.grpo.groupSize}) must be equal`);
  }
  if (cfg.trainer.seqLen < cfg.rollout.maxTotalTokens) {
    throw new Error(`RL config: trainer.seqLen (${cfg.trainer.seqLen}) must be ≥ rollout.maxTotalTokens (${cfg.rollout.maxTotalTokens}) so every episode fits a row`);
  }
  // sampling.ts records behaviour log-probs at T (T = 0, greedy, records them at 1)
  const sampled = cfg.rollout.temperature > 0 ? cfg.rollout.temperature : 1;
  const scored = cfg.trainer.temperature ?? 1;
  if (scored !== sampled) {
    throw new Error(`RL config: the rollouts sample at temperature ${sampled} but the trainer scores at ${scored}; set trainer.temperature = rollout.temperature so the ratio compares the same policy`);
  }
}

/** Runs `cfg.steps` synchronous GRPO steps on `w`; metrics stream through onStep and are returned. */
/** What exact resume of the sync loop needs besides weights, optimizer and reference: tasks and seeds derive from (seed, step). */
export interface RlLoopState {
  /** Steps done. */
  step: number;
  /** Policy version after them. */
  version: number;
  /** Refill tasks drawn so far (dynamic sampling). */
  refilled: number;
}

/**
 * Exact resume: `from` continues after a saved step (weights already the checkpoint's); restore puts
 * the optimizer moments and the KL reference back into the new trainer; afterStep sees the state
 * after every step (a caller saves checkpoints there); stopAfter ends early (schedule spans cfg.steps).
 */
export interface RlResume {
  from?: RlLoopState;
  restore?: (trainer: GrpoTrainer) => Promise<void>;
  afterStep?: (state: RlLoopState, trainer: GrpoTrainer) => Promise<void>;
  stopAfter?: number;
  /** Sees every step's drawn episodes (groups of G), their training rewards and which groups were kept, before onStep (trajectory viewers). */
  onRollouts?: (step: number, drawn: readonly Trajectory[], rewards: readonly number[], kept: readonly boolean[]) => void;
  /**
   * Data parallel (GrpoTrainer.step's shard, split 'groups'): rank r of N plays only tasks
   * [⌊r·K/N⌋, ⌊(r+1)·K/N⌋) of the step's K, trains on them with the loss weighted by the global
   * counts, and the step's episode metrics are gathered from every rank (dataParallelRl.ts), so every
   * rank reports what one process reports. Refill rounds of dynamic sampling are split alike: every
   * rank learns every rank's groups with signal per round (dynamicSampling.ts's SignalShare).
   */
  shard?: GradientShard;
}

export async function runSyncRl<T extends TaskBase>(
  rt: GpuRuntime, w: GpuWeights, mix: EnvFamily<T>, tokenizer: Tokenizer, cfg: RlLoopConfig,
  onStep?: (r: RlStepRecord) => void | Promise<void>, render?: PromptRenderer, resume: RlResume = {},
): Promise<RlStepRecord[]> {
  checkGroupSizes(cfg);
  const family = withRandomValueTasks(mix, cfg.randomValues);
  const trainer = new GrpoTrainer(rt, w, cfg.trainer);
  const generator = modelTurnGenerator(rt, w, { temperature: cfg.rollout.temperature, topK: cfg.rollout.topK, topP: cfg.rollout.topP });
  const history: RlStepRecord[] = [];
  let version = resume.from?.version ?? 0;
  let refilled = resume.from?.refilled ?? 0; // refill tasks drawn so far (their own stream, so round 0 matches a run without refills)
  const { grpo } = cfg.trainer;
  const maxRounds = grpo.dynamicSampling ? (cfg.maxSamplingRounds ?? 1) : 1;
  const end = Math.min(cfg.steps, resume.stopAfter ?? cfg.steps);
  const shard = resume.shard && resume.shard.world > 1 ? resume.shard : undefined;
  const gather = shard && (async (what: string, info: unknown) => {
    if (!shard.gather) throw new Error('data-parallel GRPO: the shard cannot gather (use gradientShard)');
    return shard.gather(what, info);
  });
  // refill rounds across ranks: every rank learns every rank's signal flags of each round
  const share: SignalShare | undefined = gather && maxRounds > 1 ? { rank: shard!.rank, gather: async (kept) => (await gather('grpo signal flags', { kept })).map((x) => (x as { kept: boolean[] }).kept) } : undefined;
  try {
    await resume.restore?.(trainer);
    for (let step = resume.from?.step ?? 0; step < end; step++) {
      const t0 = performance.now();
      // n: the round's tasks over all ranks; this rank plays its slice. Each group samples from its own
      // seed (round seed, the task's index in the round): the same tokens whichever rank plays it.
      const roll = async (round: number, n: number) => {
        const roundSeed = mixSeeds(cfg.seed, step, 0x5201 + round);
        const all = round === 0 ? tasksForStep(family, cfg.seed, step, n) : Array.from({ length: n }, (_, i) => family.generateTask(mixSeeds(cfg.seed, 0x2ef1), refilled + i, 'train'));
        if (round > 0) refilled += n; // every rank counts every refill task (their own stream)
        const [lo, hi] = shard ? rankSlice(n, shard) : [0, n];
        const tasks = all.slice(lo, hi);
        const trajs = await rolloutBatch({
          family, tasks, groupSeeds: tasks.map((_, i) => mixSeeds(roundSeed, lo + i)),
          tokenizer, generator, config: cfg.rollout, seed: roundSeed, policyVersion: version, render, limits: cfg.limits, weights: cfg.weights,
        });
        for (const t of trajs) t.group += lo; // the round's group index, as one process numbers it
        return trajs;
      };
      const sampled = await sampleWithSignal(roll, { groupSize: grpo.groupSize, tasksPerStep: cfg.tasksPerStep, maxRounds, grpo }, share);
      const t1 = performance.now();
      const lr = learningRate({ lr: cfg.trainer.lr, warmupSteps: cfg.warmupSteps, totalSteps: cfg.steps, minLrRatio: cfg.minLrRatio }, step + 1);
      const result = await trainer.step(maxRounds > 1 ? sampled.train : sampled.drawn, lr, shard, 'groups');
      const t2 = performance.now();
      const timing = { rolloutSeconds: (t1 - t0) / 1000, trainSeconds: (t2 - t1) / 1000, generatedTokens: generatedTokens(sampled.drawn) };
      // metrics over every group drawn (the trainer saw only the ones with signal when refilling)
      const rewards = maxRounds > 1 ? sampled.drawnRewards : result.rewards;
      const keptGroups = maxRounds > 1 ? sampled.drawnKept : result.keptGroups;
      // data parallel: the step's record from every rank's episodes (dataParallelRl.ts), the same on every rank
      const merged = shard ? await gatherStep(shard, sampled.drawn, rewards, keptGroups, timing) : { episodes: sampled.drawn, rewards, keptGroups, timing };
      const dropped = sampled.groups.drawn - sampled.groups.kept;
      const record = buildStepRecord(step + 1, version, merged.episodes, { ...result, rewards: merged.rewards, keptGroups: merged.keptGroups }, merged.timing, maxRounds > 1 ? {
        groups_dropped: dropped, frac_reward_zero_std: dropped / sampled.groups.drawn, 'sampling/rounds': sampled.rounds, 'sampling/groups_drawn': sampled.groups.drawn,
      } : {});
      if (shard) record.rank = { rank: shard.rank, world: shard.world, episodes: sampled.drawn.length, rolloutSeconds: timing.rolloutSeconds };
      version = record.version;
      history.push(record);
      resume.onRollouts?.(step + 1, sampled.drawn, rewards, keptGroups); // this rank's episodes
      await onStep?.(record); // a caller may evaluate between steps (held-out curves)
      await resume.afterStep?.({ step: step + 1, version, refilled }, trainer);
    }
  } finally {
    trainer.destroy();
  }
  return history;
}
