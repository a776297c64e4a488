// The routing learning recipe shared by the CI learning test and `npm run learn`: a fresh model,
// format-only SFT (random function, right argument: routing at chance), then synchronous GRPO on
// the routing task set, with held-out greedy success measured between the stages.
import { routingFamily } from '../envs/functionCalling/family';
import type { Split } from '../envs/splits';
import type { GpuRuntime } from '../gpu/runtime';
import type { ModelConfig } from '../model/config';
import { GREEDY } from '../model/sampling';
import { GpuWeights, initialWeights } from '../model/weights';
import { tokenizerForModel } from '../tokenizer';
import { runAsyncRl } from '../train/rl/async/coordinator';
import { inProcessPool } from '../train/rl/async/handles';
import { loadWeightsInto } from '../train/rl/async/weights';
import { formatOnlyDocs } from '../train/sft/formatWarmStart';
import { grpoConfig } from '../train/rl/grpo';
import { DEFAULT_GRPO_TRAINER } from '../train/rl/grpoTrainer';
import { modelTurnGenerator } from '../train/rl/modelGenerator';
import { evaluateHeldout, type HeldoutReport } from '../train/rl/rlEval';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import { type RlLoopConfig, type RlResume, runSyncRl } from '../train/rl/rlLoop';
import { DEFAULT_ROLLOUT, defaultRenderer } from '../train/rl/rollout';
import { DEFAULT_SFT, type SftMetrics, type SftResume, trainSft } from '../train/sft/sft';

export interface RoutingRecipe {
  /** Seeds the model init, the SFT data and the task streams. */
  seed: number;
  model: ModelConfig;
  /** Format-only SFT: `docs` conversations, `steps` optimizer steps of `batchSize` rows (0 steps: skip). */
  sft: { docs: number; steps: number; batchSize: number; lr: number; warmupSteps: number };
  rl: RlLoopConfig;
  /**
   * Held-out greedy evaluation: tasks 0 … n−1 of the heldout split; `before` also evaluates the
   * untrained model; `every` > 0 also evaluates after every that many GRPO steps (the held-out curve).
   */
  eval: { n: number; before: boolean; every?: number };
  /** GRPO through the async coordinator with in-process actors and this staleness bound; absent: the synchronous loop. */
  asyncStaleness?: number;
}

/** Routing episodes: prompt ≤ 214 byte tokens with compact tools, a call ≤ 58 tokens (measured over 6 000 tasks). */
const MAX_NEW = 64;
const MAX_TOTAL = 288;

export function routingRecipe(model: ModelConfig, overrides: { seed?: number; sftSteps?: number; rlSteps?: number; tasksPerStep?: number; groupSize?: number; lr?: number; klCoef?: number; componentCredit?: boolean; evalN?: number } = {}): RoutingRecipe {
  const G = overrides.groupSize ?? 8;
  return {
    seed: overrides.seed ?? 1,
    model,
    sft: { docs: 512, steps: overrides.sftSteps ?? 150, batchSize: 8, lr: 8e-3, warmupSteps: 10 },
    rl: {
      // 16 tasks × G 8 at lr 1e-3 learnt fastest per wall second of the settings measured from the
      // format-only SFT; 8 tasks at 5e-4 stayed at chance for ~130 steps, lr 2e-3 collapsed entropy
      // (0.26 → 0.12 by step 30), G = 4 dropped most groups. With component credit + KL, held-out
      // (n = 128) went 19.5 % → 71 % (60 steps) → 84 % (90) → 87.5 % (100): hence 100 steps
      steps: overrides.rlSteps ?? 100,
      tasksPerStep: overrides.tasksPerStep ?? 16,
      seed: (overrides.seed ?? 1) + 1000,
      warmupSteps: 5,
      minLrRatio: 1,
      // DAPO refill: late in a run most groups are all-right or all-wrong (measured: 80 % dropped by
      // step 300 at 8 tasks × G 8); up to 3 rollout rounds keep the trained batch full of signal
      maxSamplingRounds: 3,
      rollout: { ...DEFAULT_ROLLOUT, groupSize: G, maxTurns: 1, maxNewTokensPerTurn: MAX_NEW, maxTotalTokens: MAX_TOTAL },
      trainer: {
        ...DEFAULT_GRPO_TRAINER,
        // component credit: the call's name fixes function_choice, so the argument tokens after it
        // (nano guesses a value: ~11 of ~14.5 nats of a call's sampling entropy) do not share its
        // advantage; the KL to the SFT model then holds those tokens, and the format, in place
        // (without it the format broke by step 20: measured)
        grpo: grpoConfig('default', { groupSize: G, dynamicSampling: true, componentCredit: overrides.componentCredit ?? true, klCoef: overrides.klCoef ?? 0.1 }),
        // a group's prompt once per row (~214 + G × ≤ 58 tokens: one group of 8 per 768-token row):
        // 3.6× fewer tokens through forward + backward than G full rows, same gradients (measured)
        sharePrefix: true,
        microBatchRows: 2,
        seqLen: 768,
        // on ONE prompt 2e-3 broke the call format within 4 steps; 16 tasks per step keep it at 1e-3
        lr: overrides.lr ?? 1e-3,
        pack: false,
      },
    },
    eval: { n: overrides.evalN ?? 64, before: false },
  };
}

export interface RoutingResult {
  /** Held-out greedy success of the untrained model (when eval.before). */
  before?: HeldoutReport;
  afterSft: HeldoutReport;
  afterRl: HeldoutReport;
  sftHistory: SftMetrics[];
  rlHistory: RlStepRecord[];
  /** Wall seconds per stage. */
  seconds: { sft: number; rl: number; eval: number };
  /** Final weights (to save or keep training). */
  weights: GpuWeights;
}

/** Held-out evaluations, in run order ('before SFT' only when eval.before). */
export type RoutingEvalLabel = 'before SFT' | 'after SFT' | 'after GRPO';

/**
 * What a caller hears while the recipe runs. Any hook may throw to stop the run (a user's Stop): the
 * weights are released and the error propagates, so a stop lands at the next step or evaluation.
 */
export interface RoutingHooks {
  log?: (line: string) => void;
  /** A stage starts: 'sft', 'grpo' or 'eval' (with the evaluation's label); `detail` says what it runs. */
  onStage?: (stage: 'eval' | 'sft' | 'grpo', detail: string, evalLabel?: RoutingEvalLabel) => void;
  onSft?: (m: SftMetrics) => void;
  onRlStep?: (r: RlStepRecord) => void;
  /** A held-out evaluation finished. */
  onEval?: (label: RoutingEvalLabel, report: HeldoutReport) => void;
  /** A held-out evaluation during GRPO (eval.every) finished, after `step` steps. */
  onCurve?: (step: number, report: HeldoutReport) => void;
  /** Start from these weights instead of a fresh init (e.g. a saved SFT checkpoint with sft.steps = 0). */
  initial?: Map<string, Float32Array>;
  /** Exact resume and autosave (src/storage builds them, e.g. scripts/learn.ts --save/--resume): the SFT and GRPO loop hooks. */
  sftResume?: SftResume;
  rlResume?: RlResume;
  /** Resuming inside GRPO: skip SFT (the initial weights are the checkpoint's). */
  resumeInRl?: boolean;
}

/** Rows × tokens the recipe trains at (the SFT batch or the GRPO micro-batch, whichever holds more tokens): what a fit check must allow. */
export function recipeTrainingShape(recipe: RoutingRecipe): { batch: number; seqLen: number } {
  const sft = { batch: recipe.sft.batchSize, seqLen: MAX_TOTAL };
  const rl = { batch: recipe.rl.trainer.microBatchRows, seqLen: recipe.rl.trainer.seqLen };
  return sft.batch * sft.seqLen >= rl.batch * rl.seqLen ? sft : rl;
}

export async function runRoutingLearning(rt: GpuRuntime, recipe: RoutingRecipe, hooks: RoutingHooks = {}): Promise<RoutingResult> {
  const w = new GpuWeights(rt, recipe.model, hooks.initial ?? initialWeights(recipe.model, recipe.seed));
  try {
    return await learn(rt, w, recipe, hooks);
  } catch (e) {
    w.destroy(); // a failed or stopped run: the caller never gets the weights to release
    throw e;
  }
}

async function learn(rt: GpuRuntime, w: GpuWeights, recipe: RoutingRecipe, hooks: RoutingHooks): Promise<RoutingResult> {
  const log = hooks.log ?? (() => {});
  const tok = await tokenizerForModel(recipe.model);
  const family = routingFamily;
  const greedy = modelTurnGenerator(rt, w, GREEDY);
  const seconds = { sft: 0, rl: 0, eval: 0 };
  const heldout = async (label: string, split: Split = 'test'): Promise<HeldoutReport> => {
    const t0 = performance.now();
    const r = await evaluateHeldout(family, tok, greedy, { n: recipe.eval.n, seed: recipe.seed, split, rollout: recipe.rl.rollout, batch: 64 });
    seconds.eval += (performance.now() - t0) / 1000;
    log(`${label}: ${split} success ${(100 * r.successRate).toFixed(1)} % (n = ${r.n}), reward ${r.meanReward.toFixed(3)} ${JSON.stringify(roundAll(r.components))}`);
    return r;
  };
  const evaluate = async (stage: RoutingEvalLabel): Promise<HeldoutReport> => {
    hooks.onStage?.('eval', `${stage}: greedy on ${recipe.eval.n} held-out tasks`, stage);
    const r = await heldout(stage);
    hooks.onEval?.(stage, r);
    return r;
  };

  const before = recipe.eval.before ? await evaluate('before SFT') : undefined;
  let t0 = performance.now();
  let sftHistory: SftMetrics[] = [];
  if (recipe.sft.steps > 0 && !hooks.resumeInRl) {
    hooks.onStage?.('sft', `format-only SFT: ${recipe.sft.steps} steps × ${recipe.sft.batchSize} conversations`);
    const tasks = Array.from({ length: recipe.sft.docs }, (_, i) => family.generateTask(recipe.seed, i, 'train'));
    const docs = formatOnlyDocs(family, tasks, tok, defaultRenderer(tok), recipe.seed);
    const s = recipe.sft;
    sftHistory = await trainSft(rt, w, { train: docs, padId: tok.padId }, {
      ...DEFAULT_SFT, batchSize: s.batchSize, seqLen: MAX_TOTAL, steps: s.steps, lr: s.lr, warmupSteps: s.warmupSteps, pack: false, seed: recipe.seed,
    }, (m) => {
      hooks.onSft?.(m);
      if (m.step % 10 === 0 || m.step === s.steps) log(`sft step ${m.step}/${s.steps} loss ${m.loss.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }, hooks.sftResume);
  }
  seconds.sft = (performance.now() - t0) / 1000;
  const afterSft = await evaluate('after SFT'); // resumed inside GRPO: the resumed model's figure

  t0 = performance.now();
  if (recipe.rl.steps > 0) hooks.onStage?.('grpo', `${recipe.rl.steps} steps × ${recipe.rl.tasksPerStep} tasks × ${recipe.rl.rollout.groupSize} samples`);
  // the curve reads `w`, which the synchronous loop trains in place (the async trainer holds its own copy)
  const every = recipe.asyncStaleness === undefined ? (recipe.eval.every ?? 0) : 0;
  const onStep = async (r: RlStepRecord) => {
    hooks.onRlStep?.(r);
    if (every > 0 && r.step % every === 0 && r.step < recipe.rl.steps) hooks.onCurve?.(r.step, await heldout(`after ${r.step} GRPO steps`, 'validation'));
    const m = r.metrics;
    log(`grpo step ${r.step}/${recipe.rl.steps} success ${(100 * m.success_rate).toFixed(0)} % reward ${m.reward.toFixed(3)} dropped ${m.groups_dropped ?? 0} clip ${(m.clip_ratio ?? 0).toFixed(3)} kl ${(m.approx_kl ?? 0).toExponential(1)} ent ${(m.entropy ?? 0).toFixed(3)}${r.skipped ? ` SKIPPED: ${r.reason}` : ''} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  };
  const rlHistory = recipe.asyncStaleness === undefined ? await runSyncRl(rt, w, family, tok, recipe.rl, onStep, undefined, hooks.rlResume) : await asyncRl(rt, w, recipe, recipe.asyncStaleness, onStep);
  seconds.rl = (performance.now() - t0) / 1000;
  const afterRl = await evaluate('after GRPO');
  return { before, afterSft, afterRl, sftHistory, rlHistory, seconds, weights: w };
}

/** GRPO with in-process trainer and rollout actors (own weight copies); the result is loaded back into `w`. */
async function asyncRl(rt: GpuRuntime, w: GpuWeights, recipe: RoutingRecipe, k: number, onStep: (r: RlStepRecord) => void | Promise<void>): Promise<RlStepRecord[]> {
  const rl = recipe.rl;
  const pool = inProcessPool({ rt, spec: { model: recipe.model, family: 'routing', rollout: rl.rollout, taskSeed: rl.seed }, trainer: rl.trainer, initial: await w.download() });
  try {
    const history = await runAsyncRl(pool, { ...rl, staleness: k, rolloutActors: 1, hangTimeoutMs: 3_600_000, maxRestarts: 2 }, onStep);
    loadWeightsInto(rt, w, await pool.trainer.snapshot());
    return history;
  } finally {
    await pool.close();
  }
}

function roundAll(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 1000) / 1000]));
}
