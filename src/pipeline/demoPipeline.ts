// The main job of `npm run demo` and of the page's "Train" button, DOM-free so it runs in a Worker
// (and in Node): kernel self-check → fit check → the routing recipe (format-only SFT → held-out eval
// → synchronous GRPO → held-out eval, src/pipeline/routingRecipe.ts) → one held-out episode from the
// final model. Progress events stream to the caller; every stage is seeded. A model the user loaded
// goes through the same path (`initial`).
import { routingFamily } from '../envs/functionCalling/family';
import type { GpuRuntime } from '../gpu/runtime';
import { type ModelConfig, PRESETS, type PresetName } from '../model/config';
import { assertConfigFits, assertPresetFits } from '../model/fit';
import { GREEDY } from '../model/sampling';
import type { GpuWeights } from '../model/weights';
import { runSelfCheck } from '../ops/selfCheck';
import { ByteTokenizer } from '../tokenizer';
import { modelTurnGenerator } from '../train/rl/modelGenerator';
import type { HeldoutReport } from '../train/rl/rlEval';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import { rolloutBatch } from '../train/rl/rollout';
import { recipeTrainingShape, routingRecipe, type RoutingEvalLabel, runRoutingLearning } from './routingRecipe';
import type { SftMetrics } from '../train/sft/sft';

export interface DemoOptions {
  /** Model shape and seeded init (ignored for the shape when `initial` is given). */
  preset: PresetName;
  /** Seeds the init, the SFT data, the task streams and sampling. */
  seed: number;
  /** Format-only SFT optimizer steps. */
  sftSteps: number;
  /** GRPO steps. */
  rlSteps: number;
  /** GRPO tasks (groups) per step. */
  tasksPerStep: number;
  /** GRPO samples per task (G). */
  groupSize: number;
  /** Held-out tasks per evaluation. */
  evalTasks: number;
  /** Also evaluate the untrained model (one more evaluation pass). */
  evalBefore?: boolean;
  /** Skip the kernel self-check (it is also run by the e2e tests). */
  skipSelfCheck?: boolean;
  /** Start from these weights (a loaded model) instead of the preset's seeded init. */
  initial?: { cfg: ModelConfig; params: Map<string, Float32Array>; label: string };
}

/** What `npm run demo` and the page's Start run: about 8 minutes on this 2-core machine's llvmpipe. */
export const DEFAULT_DEMO: DemoOptions = {
  preset: 'nano', seed: 1, sftSteps: 150, rlSteps: 10, tasksPerStep: 4, groupSize: 8, evalTasks: 64,
};

/** One GRPO step as the progress displays show it (from the step's RlStepRecord). */
export interface GrpoProgress {
  step: number;
  totalSteps: number;
  /** Share of this step's sampled episodes that solved their task. */
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

export type DemoEvent =
  /** A stage starts; held-out evaluations name which one in `eval`. */
  | { kind: 'stage'; stage: string; detail?: string; eval?: RoutingEvalLabel }
  | { kind: 'check'; name: string; ok: boolean; relErr: number }
  | { kind: 'sft'; metrics: SftMetrics; totalSteps: number }
  | { kind: 'grpo'; progress: GrpoProgress }
  | { kind: 'eval'; label: RoutingEvalLabel; success: number; total: number; reward: number; components: Record<string, number> }
  | { kind: 'sample'; text: string; success: boolean }
  | { kind: 'done'; summary: DemoSummary };

export interface DemoSummary {
  /** What was trained: "preset nano" or "loaded: <source>". */
  model: string;
  preset: PresetName;
  parameters: number;
  selfCheckFailures: number;
  /** SFT loss at the first and the last step (NaN without SFT steps). */
  firstLoss: number;
  finalLoss: number;
  /** Held-out success rates (0 … 1) over `evalTasks` tasks; `heldoutSuccessBefore` only with evalBefore. */
  heldoutSuccessBefore?: number;
  heldoutSuccessAfterSft: number;
  heldoutSuccessAfterGrpo: number;
  evalTasks: number;
  /** Mean reward of the last GRPO step's episodes (NaN without GRPO steps). */
  finalReward: number;
  /** Wall seconds per stage and in all. */
  stageSeconds: { selfCheck: number; sft: number; grpo: number; eval: number };
  seconds: number;
}

const tok = new ByteTokenizer();

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

/** Refuses a loaded model the demo cannot train, saying what it would need. */
function checkLoadedModel(cfg: ModelConfig, seqLen: number): void {
  if (cfg.tokenizer !== 'byte' || cfg.vocabSize < tok.vocabSize) {
    throw new Error(`the loaded model (${cfg.tokenizer} tokenizer, vocab ${cfg.vocabSize}) cannot train on the demo's byte-tokenized tasks: it needs the byte tokenizer and vocab_size ≥ ${tok.vocabSize}`);
  }
  if (cfg.maxPositionEmbeddings < seqLen) {
    throw new Error(`the loaded model's context (max_position_embeddings ${cfg.maxPositionEmbeddings}) is shorter than the demo's episodes (${seqLen} tokens): load a model with a context of at least ${seqLen}`);
  }
}

export async function runDemo(rt: GpuRuntime, opts: DemoOptions, emit: (e: DemoEvent) => void): Promise<DemoSummary> {
  const t0 = performance.now();
  const cfg: ModelConfig = opts.initial?.cfg ?? PRESETS[opts.preset];
  const model = opts.initial ? `loaded: ${opts.initial.label}` : `preset ${opts.preset}`;
  if (!opts.initial && cfg.tokenizer !== 'byte') throw new Error(`demo: preset '${opts.preset}' needs the Qwen3 tokenizer and user-provided weights; the demo trains byte-level presets (nano, tiny, small)`);
  const recipe = routingRecipe(cfg, { seed: opts.seed, sftSteps: opts.sftSteps, rlSteps: opts.rlSteps, tasksPerStep: opts.tasksPerStep, groupSize: opts.groupSize, evalN: opts.evalTasks });
  recipe.eval.before = opts.evalBefore ?? false;
  const shape = recipeTrainingShape(recipe);
  if (opts.initial) checkLoadedModel(cfg, shape.seqLen);

  let failures = 0;
  if (!opts.skipSelfCheck) {
    emit({ kind: 'stage', stage: 'self-check', detail: 'kernels vs float64 reference' });
    const results = await runSelfCheck(rt, { onResult: (r) => emit({ kind: 'check', name: r.name, ok: r.ok, relErr: r.relErr }) });
    failures = results.filter((r) => !r.ok).length;
    if (failures > 0) throw new Error(`demo: ${failures} kernel self-check(s) failed on this adapter; the results above say which`);
  }
  const selfCheckSeconds = (performance.now() - t0) / 1000;

  const memory = { batch: shape.batch, seqLen: shape.seqLen, optimizer: 'adamw' as const, weightDtype: 'f32' as const, referenceCopy: recipe.rl.trainer.grpo.klCoef > 0 };
  const fit = opts.initial ? assertConfigFits(rt.ctx, cfg, memory, { label: `the loaded model (${opts.initial.label})` }) : assertPresetFits(rt.ctx, opts.preset, memory);
  emit({ kind: 'stage', stage: 'model', detail: fit.summary });

  const result = await runRoutingLearning(rt, recipe, {
    initial: opts.initial?.params,
    onStage: (stage, detail, evalLabel) => emit(evalLabel ? { kind: 'stage', stage, detail, eval: evalLabel } : { kind: 'stage', stage, detail }),
    onSft: (metrics) => emit({ kind: 'sft', metrics, totalSteps: opts.sftSteps }),
    onRlStep: (r) => emit({ kind: 'grpo', progress: grpoProgress(r, opts.rlSteps, opts.tasksPerStep) }),
    onEval: (label, r) => emit({ kind: 'eval', label, ...evalCounts(r) }),
  });
  const w = result.weights;
  try {
    emit({ kind: 'stage', stage: 'sample', detail: 'one held-out episode from the final model' });
    const sampleT0 = performance.now();
    emit({ kind: 'sample', ...(await sampleEpisode(rt, w, recipe.seed, recipe.rl.rollout)) });
    const summary: DemoSummary = {
      model, preset: opts.preset, parameters: fit.parameters, selfCheckFailures: failures,
      firstLoss: result.sftHistory[0]?.loss ?? Number.NaN, finalLoss: result.sftHistory.at(-1)?.loss ?? Number.NaN,
      heldoutSuccessAfterSft: result.afterSft.successRate, heldoutSuccessAfterGrpo: result.afterRl.successRate, evalTasks: result.afterRl.n,
      finalReward: result.rlHistory.at(-1)?.metrics.reward ?? Number.NaN,
      stageSeconds: { selfCheck: selfCheckSeconds, sft: result.seconds.sft, grpo: result.seconds.rl, eval: result.seconds.eval + (performance.now() - sampleT0) / 1000 },
      seconds: (performance.now() - t0) / 1000,
    };
    if (result.before) summary.heldoutSuccessBefore = result.before.successRate;
    emit({ kind: 'done', summary });
    return summary;
  } finally {
    w.destroy();
  }
}

function evalCounts(r: HeldoutReport): { success: number; total: number; reward: number; components: Record<string, number> } {
  return { success: Math.round(r.successRate * r.n), total: r.n, reward: r.meanReward, components: r.components };
}

/** Held-out task 0 played greedily: "user: …\nassistant: …\ntool: …" (the system block with the tools is left out). */
async function sampleEpisode(rt: GpuRuntime, w: GpuWeights, seed: number, rollout: Parameters<typeof rolloutBatch>[0]['config']): Promise<{ text: string; success: boolean }> {
  const task = routingFamily.generateTask(seed, 0, 'test');
  const [traj] = await rolloutBatch({ family: routingFamily, tasks: [task], tokenizer: tok, generator: modelTurnGenerator(rt, w, GREEDY), config: { ...rollout, groupSize: 1 }, seed, policyVersion: 0 });
  const text = traj.messages.filter((m) => m.role !== 'system').map((m) => `${m.role}: ${m.content}`).join('\n');
  return { text, success: traj.success };
}
