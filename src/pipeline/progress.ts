// A run's progress as a checkpoint stores it (the checkpoint's metrics blob): the stage running,
// every result reported so far and the running stage's step metrics, so a resumed run reports the
// whole run — not only the steps after the checkpoint.
import type { RlStepRecord } from '../train/rl/rlMetrics';
import type { SftMetrics } from '../train/sft/sft';
import type { EvalSummary } from './evalSummary';
import type { SftDataReport } from './sftData';
import type { MergeRecord } from './specialists';

/**
 * Which random streams a training stage drew (stageStream.ts): `data` its place among the run's stages
 * of its kind (SFT row order; GRPO tasks and samples), `lora` its place among training stages (the
 * adapters' initialisation; only with config.lora). Absent in checkpoints from before they were recorded.
 */
export interface StageStreams {
  data: number;
  lora?: number;
}

export interface PipelineProgress {
  /** Index of the stage the checkpoint was saved in. */
  stage: number;
  evals: EvalSummary[];
  sft: { stage: number; data: SftDataReport; history: SftMetrics[]; specialist?: string; streams?: StageStreams }[];
  grpo: { stage: number; history: RlStepRecord[]; curve: { step: number; summary: EvalSummary }[]; specialist?: string; streams?: StageStreams }[];
  /** Merge stages done (absent in checkpoints from before merge stages). */
  merges?: MergeRecord[];
  seconds: number[];
  /** [stage, forward-token-equivalents] (compute.ts). */
  compute: [number, number][];
  inflight: { stage: number; sft: SftMetrics[]; grpo: RlStepRecord[]; curve: { step: number; summary: EvalSummary }[] };
}

/** The progress in a checkpoint's metrics, checked for shape (a checkpoint from elsewhere is refused, not half-read). */
export function restoreProgress(metrics: unknown): PipelineProgress {
  const p = metrics as Partial<PipelineProgress> | null;
  const arrays = ['evals', 'sft', 'grpo', 'seconds', 'compute'] as const;
  if (!p || typeof p !== 'object' || !Number.isInteger(p.stage) || arrays.some((k) => !Array.isArray(p[k])) || !p.inflight || !Array.isArray(p.inflight.sft) || !Array.isArray(p.inflight.grpo) || !Array.isArray(p.inflight.curve)) {
    throw new Error('this checkpoint does not hold a pipeline run\'s progress (it was not saved by the pipeline runner): start a new run, or load its weights as a model instead');
  }
  return p as PipelineProgress;
}
