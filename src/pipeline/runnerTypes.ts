// What runPipeline (runner.ts) takes and returns: the hooks that stream a run's progress, its options
// (checkpoints, resume, starting weights, actor pools, data-parallel shard) and its result.
import type { ModelConfig } from '../model/config';
import type { GpuWeights } from '../model/weights';
import type { Tokenizer } from '../tokenizer';
import type { RolloutActorSpec } from '../train/rl/async/actors';
import type { ActorPool } from '../train/rl/async/handles';
import type { GrpoTrainerConfig } from '../train/rl/grpoTrainer';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import type { Trajectory } from '../train/rl/trajectory';
import type { SftMetrics } from '../train/sft/sft';
import type { GradientShard } from '../train/optimizerState';
import type { CheckpointBackend } from '../storage/backend';
import type { ResumePoint } from '../storage/resume';
import type { StageConfig } from './config';
import type { ComputeLedger } from './compute';
import type { StageStreams } from './progress';
import type { EvalSummary } from './evalSummary';
import type { SftDataReport } from './sftData';
import type { MergeRecord, PendingSpecialists } from './specialists';

/** What a caller hears while the pipeline runs (stage = index into config.stages). */
export interface PipelineHooks {
  log?: (line: string) => void;
  onStage?: (stage: number, config: StageConfig, detail: string) => void;
  onSftData?: (stage: number, report: SftDataReport) => void;
  onSft?: (stage: number, m: SftMetrics) => void | Promise<void>;
  onRlStep?: (stage: number, r: RlStepRecord) => void | Promise<void>;
  /** An eval stage finished. */
  onEval?: (stage: number, summary: EvalSummary) => void;
  /** A validation point inside a GRPO stage (its evalEvery) or an SFT stage (opts.sftCurve) finished, after `step` steps. */
  onCurve?: (stage: number, step: number, summary: EvalSummary) => void;
  /** A GRPO step's drawn episodes (groups of G contiguous) with each one's group-relative advantage (trajectory viewers). */
  onRollouts?: (stage: number, step: number, trajs: readonly Trajectory[], info: { advantages: number[]; kept: boolean[] }) => void;
  /** Episodes an evaluation played (an eval stage, or a validation point labelled "GRPO step N"), per task set. */
  onEvalEpisodes?: (stage: number, label: string, taskSet: string, trajs: readonly Trajectory[]) => void;
  /** A merge stage is about to merge these specialists (and their start): a merge table merges them again with other methods (mergeTable.ts). */
  onSpecialists?: (stage: number, specialists: PendingSpecialists) => void;
}

/** Autosave of a run: every `every` steps of each SFT and GRPO stage, and at each such stage's last step. */
export interface PipelineCheckpoints {
  store: CheckpointBackend;
  every: number;
  /** Complete checkpoints kept (newest), plus the best by validation. */
  keepLast: number;
  onSaved?: (info: { id: string; bytes: number; captureSeconds: number; writeSeconds: number }) => void;
  /** Also save after the current step when this says so (the page asks when it is hidden or closing). */
  saveRequested?: () => boolean;
}

/** What an async GRPO stage's actor pool is built from (the default pool runs in this thread). */
export type ActorPoolFactory = (o: { spec: RolloutActorSpec; trainer: GrpoTrainerConfig; initial: Map<string, Float32Array> }) => Promise<ActorPool>;

export interface PipelineOptions {
  checkpoints?: PipelineCheckpoints;
  /**
   * Continue a run from one of its checkpoints (pipeline/resume.ts resumePipeline): the stages
   * before the saved one are not run again — their results come from the checkpoint — and the
   * saved stage continues after its saved step, exactly as if it had not stopped.
   */
  resume?: ResumePoint;
  /** Start from these weights (a loaded model, a checkpoint) instead of the preset's seeded init. */
  initial?: Map<string, Float32Array>;
  /** Compute the specialists' Fisher diagonals at every merge stage, whatever its method (a merge table that merges them with fisher later). */
  specialistFisher?: boolean;
  /** The model's shape when it is not the preset's (a loaded model). */
  model?: ModelConfig;
  /**
   * Train these GPU weights in place instead of making them (a loaded f16 base with LoRA adapters
   * attached: only the adapters train). The caller keeps owning them: the runner never destroys them,
   * and result.weights is this object. `initial` and `model` are then ignored.
   */
  weights?: GpuWeights;
  /** The tokenizer instead of tokenizerForModel(model) (a loaded model folder's own tokenizer.json). */
  tokenizer?: Tokenizer;
  /** Reads an SFT JSONL file named by the config (Node: fs; the page: a picked file). */
  readText?: (path: string) => Promise<string>;
  /** Async GRPO's trainer and rollout actors (the page: Web Workers, workers/workerPool.ts); default in-process. */
  actorPool?: ActorPoolFactory;
  /**
   * Where GRPO stages get their trainer and rollout actors (src/shard's swarm: rollouts in other
   * tabs and machines); default in-process on this device. Given, every GRPO stage runs through the
   * async coordinator (staleness: the stage's, else 0) with `rolloutActors` jobs in flight (default k + 1).
   */
  rolloutPool?: (ctx: { stage: number; spec: RolloutActorSpec; trainer: GrpoTrainerConfig; initial: Map<string, Float32Array> }) => ActorPool | Promise<ActorPool>;
  rolloutActors?: number;
  /**
   * Data parallel (src/shard/dataParallelRun.ts): this process is one rank; every SFT and GRPO step
   * trains its share of the step's global batch and sums gradients with the other ranks before
   * AdamW (GRPO: every rank plays only its slice of the step's tasks, each group seeded by its task's
   * index in the step, and trains on those; the step's metrics are gathered from every rank).
   * GRPO stages run the synchronous loop, without refill rounds.
   */
  shard?: GradientShard;
  /**
   * Stages that ran before this config's in the same run (the SFT-vs-RL comparison's prefix, when it
   * runs the stages from the first GRPO stage as a config of their own): training and merge streams
   * count them (stageStream.ts stageStreamAfter), so those stages draw what they would in the whole config.
   */
  stagesBefore?: readonly StageConfig[];
  /**
   * Validation points inside one SFT stage, after these of its steps (the SFT-vs-RL comparison's
   * SFT-only arm, at the compute of each of GRPO's curve points), on `n` validation tasks. A point
   * only reads the weights: the stage trains exactly as without it.
   */
  sftCurve?: { stage: number; steps: readonly number[]; n: number };
}

export interface PipelineResult {
  /** Every eval stage's summary, in run order (an eval stage between specialists and their merge: one per specialist, labelled "… · specialist <task set>"). */
  evals: EvalSummary[];
  /** Step metrics per training stage (index into config.stages). */
  /** (`specialist`: the task set a specialist stage trained this entry's model on; one entry per specialist. `streams`: the random streams it drew.) */
  sft: { stage: number; data: SftDataReport; history: SftMetrics[]; curve?: { step: number; summary: EvalSummary }[]; specialist?: string; streams?: StageStreams }[];
  grpo: { stage: number; history: RlStepRecord[]; curve: { step: number; summary: EvalSummary }[]; specialist?: string; streams?: StageStreams }[];
  /** What each merge stage merged, how, and with which options. */
  merges: MergeRecord[];
  /** Wall seconds per stage, in config order. */
  seconds: number[];
  /** Forward-token-equivalents spent per stage (compute.ts). */
  compute: ComputeLedger;
  /** The trained weights; the caller destroys them. */
  weights: GpuWeights;
}
