// The main job of `npm run demo` and of the page's "Train" button, DOM-free so it runs in a Worker
// (and in Node): kernel self-check → fit check → a pipeline config (presets.ts learningConfig:
// SFT on verified expert trajectories → TEST evaluation with the cheap baselines → GRPO → TEST
// evaluation) run by the general runner → a few TEST episodes from the final model. Progress
// events stream to the caller; every stage is seeded. A model the user loaded goes through the
// same path (`initial`).
import type { TaskMixEntry } from '../envs/taskMix';
import type { GpuRuntime } from '../gpu/runtime';
import { COPY_BASE } from '../model/bundledModels';
import { type ModelConfig, PRESETS, type PresetName } from '../model/config';
import { assertConfigFits, assertPresetFits } from '../model/fit';
import { runSelfCheck } from '../ops/selfCheck';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import type { SftMetrics } from '../train/sft/sft';
import type { PipelineConfig } from './config';
import type { Rate } from '../eval/report';
import type { EvalSummary } from './evalSummary';
import { learningConfig, ROUTING_LEARNING } from './presets';
import { runPipeline } from './runner';
import { trainingShape } from './loopSettings';
import { sampleEpisodes } from './sampleEpisodes';

export interface DemoOptions {
  /** Model shape and seeded init (ignored for the shape when `initial` is given). */
  preset: PresetName;
  /** Seeds the init, the SFT data, the task streams and sampling. */
  seed: number;
  /** The task set trained and evaluated (a function-calling routing level: single-turn episodes a nano model holds). */
  taskSet: TaskMixEntry['level'] & string;
  /** Verified expert conversations in the fixed SFT set. */
  sftExamples: number;
  /** SFT optimizer steps. */
  sftSteps: number;
  /** SFT rows per step (768-token rows of several conversations each); default 2. */
  sftBatch?: number;
  /** SFT learning rate; default ROUTING_LEARNING's. */
  sftLr?: number;
  /** Copy drills mixed into the SFT set (keep a copy base copying); default 0. */
  sftDrills?: number;
  /** Share of SFT requests wrapped in a longer sentence (sftData.ts); default none. */
  sftWrappedRequests?: number;
  /** GRPO steps. */
  rlSteps: number;
  /** GRPO tasks (groups) per step. */
  tasksPerStep: number;
  /** GRPO samples per task (G). */
  groupSize: number;
  /** Test tasks per evaluation. */
  evalTasks: number;
  /** Also evaluate the untrained model (one more evaluation pass). */
  evalBefore?: boolean;
  /** Skip the kernel self-check (it is also run by the e2e tests). */
  skipSelfCheck?: boolean;
  /** Test episodes shown at the end. */
  samples?: number;
  /** The config's `start`: a bundled model's id (src/model/bundledModels.ts) instead of the seeded init; the caller loads its weights. */
  start?: string;
  /** Start from these weights (a loaded model) instead of the preset's seeded init. */
  initial?: { cfg: ModelConfig; params: Map<string, Float32Array>; label: string };
}

/** The demo from the preset's seeded init (`npm run demo -- --start seeded`; runs shared across tabs, which load no start). */
export const SEEDED_DEMO: DemoOptions = {
  preset: 'nano', seed: 1, taskSet: 'route4', sftExamples: 512, sftSteps: 150, sftBatch: 2, rlSteps: 6, tasksPerStep: 4, groupSize: 8, evalTasks: 64, samples: 3,
};

/**
 * What `npm run demo` and the page's Start run: the bundled copy base, then SFT with the copy chain's
 * recipe at a size the demo's time allows (lr 1e-3, copy drills kept in the mix, half the requests
 * wrapped; chosen on VALIDATION among the recipes in the README, measured on this 2-core machine's llvmpipe).
 */
export const DEFAULT_DEMO: DemoOptions = {
  ...SEEDED_DEMO, start: COPY_BASE.id, sftBatch: 4, sftLr: 1e-3, sftDrills: 128, sftWrappedRequests: 0.5,
};

/** The demo options for a request: DEFAULT_DEMO, or SEEDED_DEMO when asked (`start: null`) or for another preset than the copy base's. */
export function demoDefaults(req: { start?: string | null; preset?: PresetName }): DemoOptions {
  const seeded = req.start === null || (req.start === undefined && req.preset !== undefined && req.preset !== COPY_BASE.preset);
  return seeded ? SEEDED_DEMO : DEFAULT_DEMO;
}

/** One GRPO step as the progress displays show it (from the step's RlStepRecord). */
export interface GrpoProgress {
  step: number;
  totalSteps: number;
  /** Share of this step's sampled episodes that solved their task (the whole call right). */
  successRate: number;
  /** Mean total reward of this step's episodes. */
  reward: number;
  /** Mean of each reward component (format, tool choice, arguments, …). */
  components: Record<string, number>;
  /** Groups left out because every sample got the same reward (no advantage to learn from). */
  groupsDropped: number;
  groups: number;
  /** Sampled tokens per second while rolling out, and trained tokens per second. */
  rolloutTokensPerSec: number;
  trainTokensPerSec: number;
  /** The update was skipped (weights unchanged), and why. */
  skipped: boolean;
  reason?: string;
}

/** Evaluation labels of the demo, in run order ('before SFT' only with evalBefore). */
export type DemoEvalLabel = 'before SFT' | 'after SFT' | 'after GRPO';

/** One evaluation as the progress displays show it (the run's task set, TEST split). */
export interface DemoEval {
  label: DemoEvalLabel;
  split: 'test';
  success: number;
  total: number;
  /** Wilson 95 % interval of success / total. */
  interval: [number, number];
  reward: number;
  components: Record<string, number>;
  /** Success per expected tool (or category). */
  byKey: Record<string, Rate>;
  /** Success of the cheap baselines on the same tasks (evaluations that score them). */
  baselines: Record<string, number>;
}

export type DemoEvent =
  /** A stage starts; evaluations name which one in `eval`. */
  | { kind: 'stage'; stage: string; detail?: string; eval?: DemoEvalLabel }
  | { kind: 'check'; name: string; ok: boolean; relErr: number }
  | { kind: 'sft'; metrics: SftMetrics; totalSteps: number }
  | { kind: 'grpo'; progress: GrpoProgress }
  | ({ kind: 'eval' } & DemoEval)
  | { kind: 'sample'; text: string; success: boolean }
  | { kind: 'done'; summary: DemoSummary };

export interface DemoSummary {
  /** What was trained: "preset nano" or "loaded: <source>". */
  model: string;
  preset: PresetName;
  taskSet: string;
  parameters: number;
  selfCheckFailures: number;
  /** SFT loss at the first and the last step (NaN without SFT steps). */
  firstLoss: number;
  finalLoss: number;
  /** The evaluations (test split), in run order. */
  evals: DemoEval[];
  evalTasks: number;
  /** Mean reward of the last GRPO step's episodes (NaN without GRPO steps). */
  finalReward: number;
  /** Wall seconds per stage and in all. */
  stageSeconds: { selfCheck: number; sft: number; grpo: number; eval: number };
  seconds: number;
}

/** The step record as a progress event. */
export function grpoProgress(r: RlStepRecord, totalSteps: number, groups: number): GrpoProgress {
  const m = r.metrics;
  const components = Object.fromEntries(Object.entries(m).filter(([k]) => /^reward\/[^/]+$/.test(k)).map(([k, v]) => [k.slice('reward/'.length), v]));
  const p: GrpoProgress = {
    step: r.step, totalSteps, successRate: m.success_rate ?? 0, reward: m.reward ?? 0, components,
    // with dynamic-sampling refills a step draws more groups than tasksPerStep: report against those drawn
    groupsDropped: m.groups_dropped ?? Math.round((m.frac_groups_dropped ?? 0) * groups), groups: m['sampling/groups_drawn'] ?? groups,
    rolloutTokensPerSec: m['rollout/tokens_per_s'] ?? 0, trainTokensPerSec: m['train/tokens_per_s'] ?? 0, skipped: r.skipped,
  };
  if (r.reason !== undefined) p.reason = r.reason;
  return p;
}

/** The pipeline config the demo runs. */
export function demoConfig(opts: DemoOptions): PipelineConfig {
  const cfg = learningConfig({
    ...ROUTING_LEARNING, preset: opts.preset, seed: opts.seed, tasks: [{ family: 'function-calling', level: opts.taskSet, weight: 1 }],
    sftExamples: opts.sftExamples, sftSteps: opts.sftSteps, sftBatch: opts.sftBatch ?? 2,
    ...(opts.sftLr !== undefined ? { sftLr: opts.sftLr } : {}), ...(opts.sftDrills !== undefined ? { sftDrills: opts.sftDrills } : {}),
    ...(opts.sftWrappedRequests !== undefined ? { sftWrappedRequests: opts.sftWrappedRequests } : {}),
    rlSteps: opts.rlSteps, tasksPerStep: opts.tasksPerStep, groupSize: opts.groupSize,
    evalN: opts.evalTasks, evalEvery: 0, evalBefore: opts.evalBefore ?? false,
  });
  return opts.start === undefined ? cfg : { ...cfg, start: { bundled: opts.start } };
}

/** Refuses a loaded model the demo cannot train, saying what it would need. */
function checkLoadedModel(cfg: ModelConfig, contextTokens: number): void {
  if (cfg.tokenizer !== 'byte' || cfg.vocabSize < PRESETS.nano.vocabSize) {
    throw new Error(`the loaded model (${cfg.tokenizer} tokenizer, vocab ${cfg.vocabSize}) cannot train on the demo's byte-tokenized tasks: it needs the byte tokenizer and vocab_size ≥ ${PRESETS.nano.vocabSize}`);
  }
  if (cfg.maxPositionEmbeddings < contextTokens) {
    throw new Error(`the loaded model's context (max_position_embeddings ${cfg.maxPositionEmbeddings}) is shorter than the demo's episodes (${contextTokens} tokens): load a model with a context of at least ${contextTokens}`);
  }
}

function demoEval(label: DemoEvalLabel, s: EvalSummary): DemoEval {
  const m = s.taskSets[0].model;
  return {
    label, split: 'test', success: m.success.successes, total: m.n, interval: [m.success.lo, m.success.hi], reward: m.meanReward,
    components: Object.fromEntries(Object.entries(m.components).map(([k, r]) => [k, r.rate])), byKey: m.by.tool ?? m.by.category ?? {},
    baselines: Object.fromEntries(s.taskSets[0].baselines.map((b) => [b.label, b.success.rate])),
  };
}

export async function runDemo(rt: GpuRuntime, opts: DemoOptions, emit: (e: DemoEvent) => void): Promise<DemoSummary> {
  const t0 = performance.now();
  const cfg: ModelConfig = opts.initial?.cfg ?? PRESETS[opts.preset];
  const model = opts.initial ? `loaded: ${opts.initial.label}` : `preset ${opts.preset}`;
  if (!opts.initial && cfg.tokenizer !== 'byte') throw new Error(`demo: preset '${opts.preset}' needs the Qwen3 tokenizer and user-provided weights; the demo trains byte-level presets (nano, tiny, small)`);
  const pipeline = demoConfig(opts);
  if (opts.initial) checkLoadedModel(cfg, pipeline.context.maxTotalTokens);

  let failures = 0;
  if (!opts.skipSelfCheck) {
    emit({ kind: 'stage', stage: 'self-check', detail: 'kernels vs float64 reference' });
    const results = await runSelfCheck(rt, { onResult: (r) => emit({ kind: 'check', name: r.name, ok: r.ok, relErr: r.relErr }) });
    failures = results.filter((r) => !r.ok).length;
    if (failures > 0) throw new Error(`demo: ${failures} kernel self-check(s) failed on this adapter; the results above say which`);
  }
  const selfCheckSeconds = (performance.now() - t0) / 1000;

  const shape = trainingShape(pipeline);
  const memory = { batch: shape.batch, seqLen: shape.seqLen, optimizer: 'adamw' as const, weightDtype: 'f32' as const, referenceCopy: shape.referenceCopy };
  const fit = opts.initial ? assertConfigFits(rt.ctx, cfg, memory, { label: `the loaded model (${opts.initial.label})` }) : assertPresetFits(rt.ctx, opts.preset, memory);
  emit({ kind: 'stage', stage: 'model', detail: fit.summary });

  const evals: DemoEval[] = [];
  const stageSeconds = { selfCheck: selfCheckSeconds, sft: 0, grpo: 0, eval: 0 };
  const result = await runPipeline(rt, pipeline, {
    onStage: (_i, s, detail) => {
      if (s.kind === 'eval') emit({ kind: 'stage', stage: 'eval', detail, eval: s.label as DemoEvalLabel });
      else emit({ kind: 'stage', stage: s.kind, detail });
    },
    onSft: (_i, metrics) => emit({ kind: 'sft', metrics, totalSteps: opts.sftSteps }),
    onRlStep: (_i, r) => emit({ kind: 'grpo', progress: grpoProgress(r, opts.rlSteps, opts.tasksPerStep) }),
    onEval: (_i, s) => {
      const e = demoEval(s.label as DemoEvalLabel, s);
      evals.push(e);
      emit({ kind: 'eval', ...e });
    },
  }, { initial: opts.initial?.params, model: opts.initial?.cfg });
  pipeline.stages.forEach((s, i) => {
    if (s.kind !== 'merge') stageSeconds[s.kind] += result.seconds[i]; // (the demo has no merge stage)
  });
  const w = result.weights;
  try {
    emit({ kind: 'stage', stage: 'sample', detail: `${opts.samples ?? 3} test episodes from the final model` });
    const sampleT0 = performance.now();
    for (const s of await sampleEpisodes(rt, w, pipeline, opts.samples ?? 3)) emit({ kind: 'sample', ...s });
    stageSeconds.eval += (performance.now() - sampleT0) / 1000;
    const sft = result.sft.flatMap((x) => x.history);
    const summary: DemoSummary = {
      model, preset: opts.preset, taskSet: opts.taskSet, parameters: fit.parameters, selfCheckFailures: failures,
      firstLoss: sft[0]?.loss ?? Number.NaN, finalLoss: sft.at(-1)?.loss ?? Number.NaN, evals, evalTasks: opts.evalTasks,
      finalReward: result.grpo.at(-1)?.history.at(-1)?.metrics.reward ?? Number.NaN,
      stageSeconds, seconds: (performance.now() - t0) / 1000,
    };
    emit({ kind: 'done', summary });
    return summary;
  } finally {
    w.destroy();
  }
}

