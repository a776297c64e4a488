// The two halves of asynchronous RL as plain classes, used as they are in-process (Node tests) and
// wrapped by the Web Workers (src/workers/*.worker.ts):
//   RolloutActor — holds its own copy of the weights; plays rollout jobs; picks up newly published
//                  weights between jobs (never inside one, so a batch has a single policy version).
//   TrainerActor — holds the trained weights and the optimizer; one GRPO step per batch; publishes
//                  snapshots with a version number.
import { withRandomValueTasks } from '../../../data/randomValueTasks';
import { mixFamily, type TaskMixEntry } from '../../../envs/taskMix';
import type { EnvFamily, EpisodeLimits, TaskBase } from '../../../envs/types';
import { mixSeeds } from '../../../util/seeds';
import type { GpuRuntime } from '../../../gpu/runtime';
import type { ModelConfig } from '../../../model/config';
import { GpuWeights } from '../../../model/weights';
import { tokenizerForModel, type Tokenizer } from '../../../tokenizer';
import { GrpoTrainer, type GrpoStepResult, type GrpoTrainerConfig } from '../grpoTrainer';
import { modelTurnGenerator } from '../modelGenerator';
import { generatedTokens } from '../rlMetrics';
import { type RolloutConfig, rolloutBatch, type TurnGenerator } from '../rollout';
import type { Trajectory } from '../trajectory';
import { loadWeightsInto, type PackedWeights, snapshotWeights, unpackWeights } from './weights';

/** Everything a rollout actor needs besides weights; JSON-serialisable (it crosses into workers). */
export interface RolloutActorSpec {
  model: ModelConfig;
  /** The task mix rolled out (a worker builds its family from it: taskSets.mixFamily). */
  tasks: TaskMixEntry[];
  rollout: RolloutConfig;
  /** Seed of the train-split task stream. */
  taskSeed: number;
  /** Share of function-calling train tasks with random argument values (data/randomValueTasks.ts; absent = 0). */
  randomValues?: number;
  limits?: Partial<EpisodeLimits>;
  weights?: Partial<Record<string, number>>;
}

/** One batch to produce: `tasks` tasks starting at train index `firstTask`, G samples each. */
export interface RolloutJob {
  /** Trainer step this batch is meant for (its place in the stream; the coordinator's bookkeeping). */
  slot: number;
  firstTask: number;
  tasks: number;
  /** Sampling seed of the batch. */
  seed: number;
}

export interface RolloutResult {
  slot: number;
  /** Version of the weights that sampled every trajectory of the batch. */
  policyVersion: number;
  trajectories: Trajectory[];
  /** Wall seconds the actor spent on the job. */
  seconds: number;
  /** Tokens sampled. */
  generatedTokens: number;
}

/** The train-task family a spec rolls out: its mix, with the spec's random argument values. */
export function rolloutFamily(spec: Pick<RolloutActorSpec, 'tasks' | 'randomValues'>): EnvFamily {
  return withRandomValueTasks(mixFamily(spec.tasks), spec.randomValues);
}

export class RolloutActor {
  private readonly w: GpuWeights;
  private readonly family: EnvFamily;
  private readonly tok: Tokenizer;
  private readonly generator: TurnGenerator;
  private version: number;
  private pending: PackedWeights | null = null;

  /** An actor with the tokenizer of spec.model (tokenizerForModel loads Qwen3-based ones once per worker). */
  static async create(rt: GpuRuntime, spec: RolloutActorSpec, initial: PackedWeights): Promise<RolloutActor> {
    return new RolloutActor(rt, spec, initial, await tokenizerForModel(spec.model));
  }

  private constructor(
    private readonly rt: GpuRuntime,
    private readonly spec: RolloutActorSpec,
    initial: PackedWeights,
    tok: Tokenizer,
  ) {
    this.w = new GpuWeights(rt, spec.model, unpackWeights(initial));
    this.version = initial.version;
    this.family = rolloutFamily(spec);
    this.tok = tok;
    const r = spec.rollout;
    this.generator = modelTurnGenerator(rt, this.w, { temperature: r.temperature, topK: r.topK, topP: r.topP });
  }

  /** Version of the weights the next job will use (after pending ones are applied). */
  get policyVersion(): number {
    return this.pending?.version ?? this.version;
  }

  /** Queues newer weights; they are loaded when the next job starts. Older or equal versions are ignored. */
  setWeights(p: PackedWeights): void {
    if (p.version > this.policyVersion) this.pending = p;
  }

  async rollout(job: RolloutJob): Promise<RolloutResult> {
    const t0 = performance.now();
    if (this.pending) {
      loadWeightsInto(this.rt, this.w, this.pending);
      this.version = this.pending.version;
      this.pending = null;
    }
    const tasks: TaskBase[] = Array.from({ length: job.tasks }, (_, i) => this.family.generateTask(this.spec.taskSeed, job.firstTask + i, 'train'));
    const trajectories = await rolloutBatch({
      family: this.family, tasks, tokenizer: this.tok, generator: this.generator, config: this.spec.rollout,
      seed: mixSeeds(job.seed, job.slot), policyVersion: this.version, limits: this.spec.limits, weights: this.spec.weights,
    });
    return { slot: job.slot, policyVersion: this.version, trajectories, seconds: (performance.now() - t0) / 1000, generatedTokens: generatedTokens(trajectories) };
  }

  destroy(): void {
    this.w.destroy();
  }
}

export interface TrainStepOutput extends GrpoStepResult {
  /** Trainer version after the step. */
  version: number;
  /** Wall seconds of the step. */
  seconds: number;
}

export class TrainerActor {
  readonly w: GpuWeights;
  /** The GRPO trainer (its optimizer and KL reference are what a checkpoint saves and restores). */
  readonly grpo: GrpoTrainer;
  /** Updates applied so far: the version of the current weights. */
  version = 0;

  constructor(
    rt: GpuRuntime,
    model: ModelConfig,
    initial: Map<string, Float32Array>,
    cfg: GrpoTrainerConfig,
  ) {
    this.w = new GpuWeights(rt, model, initial);
    this.grpo = new GrpoTrainer(rt, this.w, cfg);
  }

  async train(trajs: Trajectory[], lr: number): Promise<TrainStepOutput> {
    const t0 = performance.now();
    const r = await this.grpo.step(trajs, lr);
    if (!r.skipped) this.version++;
    return { ...r, version: this.version, seconds: (performance.now() - t0) / 1000 };
  }

  /** The current weights as a snapshot of the current version. */
  snapshot(shared = false): Promise<PackedWeights> {
    return snapshotWeights(this.w, this.version, shared);
  }

  destroy(): void {
    this.grpo.destroy();
    this.w.destroy();
  }
}
