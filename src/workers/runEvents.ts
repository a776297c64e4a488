// What the GPU worker tells the page while it runs a pipeline (and what the page asks it to run).
// Plain JSON-able types only: they cross the worker boundary through Comlink, are stored in the
// page's run history (IndexedDB) and travel to other tabs over a BroadcastChannel.
import type { PipelineConfig } from '../pipeline/config';
import type { EvalSummary } from '../pipeline/evalSummary';
import type { TrajectoryEnd } from '../train/rl/trajectory';

/** A run as the page asks for it. */
export interface PageRunRequest {
  config: PipelineConfig;
  /** Run the kernel self-check first (the e2e tests run it elsewhere). */
  selfCheck: boolean;
  /** Test episodes played by the final model at the end (and the experts' on the same tasks). */
  samples: number;
  /** Start from the model handed over with loadModel() instead of the preset's seeded init. */
  useLoadedModel: boolean;
  /**
   * Autosave into this IndexedDB database (one per run) every `every` steps of SFT and GRPO stages;
   * absent: no checkpoints (async GRPO stages are not checkpointed yet).
   */
  checkpoints?: { dbName: string; every: number; keepLast: number };
  /** Continue from the newest checkpoint in `checkpoints.dbName` (same config) instead of starting over. */
  resume: boolean;
  /** Async GRPO stages: trainer and rollout actors in their own Web Workers (else in the GPU worker). */
  workerActors: boolean;
  /** Episodes kept per GRPO step and per evaluation for the trajectory browser (the rest are counted only). */
  episodesPerStep: number;
}

/** One assistant turn of an episode as the browser marks it. */
export interface TurnView {
  /** Tokens the policy sampled in this turn. */
  tokens: number;
  /** The turn was cut at the context's maxNewTokensPerTurn. */
  hitTokenLimit: boolean;
  /** The environment's running reward after this turn. */
  totalAfter: number | null;
}

export interface MessageView {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  name?: string;
}

/** One episode (a GRPO sample, an evaluation episode, a final sample or the expert's) for the trajectory browser. */
export interface EpisodeView {
  source: 'rollout' | 'eval' | 'sample' | 'expert';
  /** Pipeline stage index (−1: after the run). */
  stage: number;
  /** GRPO step (rollouts and validation points), 0 otherwise. */
  step: number;
  /** "GRPO step 3", "after SFT", "final model", "expert". */
  label: string;
  /** "function-calling/route4" (a rollout of a mix: its family). */
  taskSet: string;
  taskId: string;
  category: string;
  /** Group (task) index in its batch and sample index in the group. */
  group: number;
  sample: number;
  messages: MessageView[];
  turns: TurnView[];
  reward: { total: number; components: Record<string, number> };
  /** Group-relative advantage (rollouts; 0 in a dropped group). */
  advantage?: number;
  /** False when dynamic sampling dropped the group (every sample had the same reward). */
  groupKept?: boolean;
  success: boolean;
  truncated: boolean;
  end: TrajectoryEnd | 'policy-error' | 'turn-cap';
  /** Tokens of the whole episode. */
  tokens: number;
  error?: string;
}

/** A GRPO step's numbers by name (RlStepRecord.metrics: reward, reward/<component>, success_rate, approx_kl, entropy, clip_ratio, …). */
export interface GrpoStepView {
  stage: number;
  step: number;
  totalSteps: number;
  skipped: boolean;
  reason?: string;
  metrics: Record<string, number>;
}

export type PageRunEvent =
  /** What the run is doing now: a pipeline stage (index), or 'self-check' | 'fit' | 'data' | 'compile' | 'samples' | 'resume'. */
  | { kind: 'phase'; stage: number | null; phase: string; detail: string; at: number }
  | { kind: 'check'; name: string; ok: boolean; relErr: number }
  | { kind: 'sft'; stage: number; step: number; totalSteps: number; loss: number; lr: number; gradNorm: number; tokensPerSec: number; skipped: boolean; at: number }
  | ({ kind: 'grpo'; at: number } & GrpoStepView)
  | { kind: 'eval'; stage: number; summary: EvalSummary }
  /** A validation point inside a GRPO stage. */
  | { kind: 'curve'; stage: number; step: number; summary: EvalSummary }
  | { kind: 'episodes'; episodes: EpisodeView[]; dropped: number }
  | { kind: 'saved'; id: string; bytes: number; stage: number; step: number; seconds: number }
  /** GPU memory the worker's buffer pool holds (bytes). */
  | { kind: 'memory'; bytes: number; at: number }
  | { kind: 'log'; line: string }
  /** The run continues from a checkpoint: the progress it restored (the page rebuilds its charts from it). */
  | { kind: 'resumed'; checkpoint: string; stage: number; step: number; restored: RestoredProgress }
  | { kind: 'done'; result: PageRunResult };

/** What a resumed run already had (from the checkpoint's metrics). */
export interface RestoredProgress {
  sft: { stage: number; steps: { step: number; loss: number; lr: number; gradNorm: number; tokensPerSec: number }[] }[];
  grpo: GrpoStepView[];
  evals: { stage: number; summary: EvalSummary }[];
}

export interface PageRunResult {
  /** "preset nano" or "loaded: <source>". */
  model: string;
  parameters: number;
  evals: EvalSummary[];
  /** Wall seconds per pipeline stage, and the whole run. */
  stageSeconds: number[];
  seconds: number;
  selfCheckFailures: number;
}

/** The GPU worker's answer when something went wrong (errors cross the boundary as plain objects). */
export interface WorkerFailure {
  /** GpuErrorCode, 'stopped' (the user stopped the run), 'busy', or 'error'. */
  code: string;
  message: string;
}
