// Named pipeline configurations: what `npm run learn`, `npm run demo`, the page's example buttons and
// the learning tests start from. Each is a plain PipelineConfig (validated), so a caller changes a
// field and gets the same runner; nothing here is special-cased in the runner.
import { COPY_BASE } from '../model/bundledModels';
import { type TaskMixEntry } from '../envs/taskMix';
import { taskSet } from '../envs/taskSets';
import { PRESETS, type PresetName } from '../model/config';
import { type ToolRendering, toolRenderingFor } from '../tokenizer/compactTools';
import { type AdvantageScale, type ContextConfig, type CreditScheme, type EvalSplit, PIPELINE_CONFIG_VERSION, type PipelineConfig, parsePipelineConfig, type StageConfig } from './config';

/**
 * Episode shape per task set (by level), measured on the expert episodes of the train split (byte
 * tokenizer, compact tools): route4 prompts ≤ 214 tokens, route8 ≤ ~300, calls ≤ 58.
 */
export const TASK_SET_CONTEXT: Readonly<Record<string, ContextConfig>> = {
  route4: { maxTotalTokens: 288, maxNewTokensPerTurn: 64, maxTurns: 1 },
  route8: { maxTotalTokens: 384, maxNewTokensPerTurn: 64, maxTurns: 1 },
  'route8-multi': { maxTotalTokens: 448, maxNewTokensPerTurn: 128, maxTurns: 1 },
  route4b: { maxTotalTokens: 288, maxNewTokensPerTurn: 64, maxTurns: 1 },
  bfcl: { maxTotalTokens: 1024, maxNewTokensPerTurn: 160, maxTurns: 2 },
  'bfcl-unseen-tools': { maxTotalTokens: 1024, maxNewTokensPerTurn: 160, maxTurns: 2 },
  // retail, trimmed-Qwen3 tokens (the byte tokenizer's are ~3.5× more: the full service set needs a -q preset):
  // expert episodes mean 2 309 / max 3 772 (train), 2 491 / 4 358 (test), seed 1, n = 100; the max plus one
  // turn's budget, rounded up to 64. (It was 2 048, which held fewer than half of them: SFT dropped the rest.)
  retail: { maxTotalTokens: 4544, maxNewTokensPerTurn: 128, maxTurns: 8 },
  functions: { maxTotalTokens: 2048, maxNewTokensPerTurn: 256, maxTurns: 4 },
  // The curriculum's smaller levels (trimmed Qwen3 tokens of expert episodes, train split, compact
  // tools; README "Multi-turn learning"): service status mean 446 / max 462 tokens, 4 turns, turns
  // ≤ 38 tokens; write mean 1 341 / max 1 612, 6 turns; coding one-liners mean ≈ 540 / max ≈ 710,
  // 2 turns, turns ≤ 169 tokens; loops mean 740 / max 880. Room for two turns more than the expert.
  // multi-step (seed 1, n = 100, train): mean 1 776 / max 2 566 tokens (test max 2 701), 6–7 turns,
  // turns ≤ 160 tokens; parsing mean 822 / max 985 (test max 916), 2 turns, turns ≤ 271 tokens.
  // status and one-liners allow 1 536 tokens, far more than an episode needs: SFT rows and GRPO rows
  // are that long, and hold the shared system block once for 4–5 conversations or samples.
  status: { maxTotalTokens: 1536, maxNewTokensPerTurn: 64, maxTurns: 6 },
  write: { maxTotalTokens: 2048, maxNewTokensPerTurn: 96, maxTurns: 8 },
  'one-liners': { maxTotalTokens: 1536, maxNewTokensPerTurn: 192, maxTurns: 4 },
  loops: { maxTotalTokens: 1536, maxNewTokensPerTurn: 256, maxTurns: 4 },
  'multi-step': { maxTotalTokens: 3072, maxNewTokensPerTurn: 192, maxTurns: 9 },
  parsing: { maxTotalTokens: 1536, maxNewTokensPerTurn: 320, maxTurns: 4 },
};

/**
 * The same with Qwen3's own template (full JSON tool schemas, what a real Qwen3 model expects: the
 * `qwen3-0.6b` preset and `npm run learn --model`): the longest expert episode in full Qwen3 tokens
 * (train and test splits, seed 1, n = 100 each; route4 372, route8 564, route8-multi 617, bfcl 1 517,
 * retail 5 662, functions 1 364, status 662, write 2 270, one-liners 989, loops 1 034, multi-step 3 505,
 * parsing 1 193) plus one more
 * turn's budget, rounded up to 64. Turn limits are the compact ones.
 */
export const TASK_SET_CONTEXT_JSON: Readonly<Record<string, ContextConfig>> = {
  route4: { ...TASK_SET_CONTEXT.route4, maxTotalTokens: 448 },
  route8: { ...TASK_SET_CONTEXT.route8, maxTotalTokens: 640 },
  'route8-multi': { ...TASK_SET_CONTEXT['route8-multi'], maxTotalTokens: 768 },
  route4b: { ...TASK_SET_CONTEXT.route4b, maxTotalTokens: 448 },
  bfcl: { ...TASK_SET_CONTEXT.bfcl, maxTotalTokens: 1728 },
  'bfcl-unseen-tools': { ...TASK_SET_CONTEXT['bfcl-unseen-tools'], maxTotalTokens: 1728 },
  retail: { ...TASK_SET_CONTEXT.retail, maxTotalTokens: 5824 },
  functions: { ...TASK_SET_CONTEXT.functions, maxTotalTokens: 1664 },
  status: { ...TASK_SET_CONTEXT.status, maxTotalTokens: 768 },
  write: { ...TASK_SET_CONTEXT.write, maxTotalTokens: 2368 },
  'one-liners': { ...TASK_SET_CONTEXT['one-liners'], maxTotalTokens: 1216 },
  loops: { ...TASK_SET_CONTEXT.loops, maxTotalTokens: 1344 },
  'multi-step': { ...TASK_SET_CONTEXT['multi-step'], maxTotalTokens: 3712 },
  parsing: { ...TASK_SET_CONTEXT.parsing, maxTotalTokens: 1536 },
};

/** The context a mix needs: the largest of its task sets' in every field (tools rendered compactly, or as Qwen3's JSON). */
export function contextForMix(mix: readonly TaskMixEntry[], tools: ToolRendering = 'compact'): ContextConfig {
  const table = tools === 'json' ? TASK_SET_CONTEXT_JSON : TASK_SET_CONTEXT;
  const cs = mix.map((e) => {
    const level = taskSet(e.family, e.level).level;
    const c = table[level];
    if (!c) throw new Error(`no context is measured for task set ${e.family}/${level}: add it to TASK_SET_CONTEXT`);
    return c;
  });
  return {
    maxTotalTokens: Math.max(...cs.map((c) => c.maxTotalTokens)),
    maxNewTokensPerTurn: Math.max(...cs.map((c) => c.maxNewTokensPerTurn)),
    maxTurns: Math.max(...cs.map((c) => c.maxTurns)),
  };
}

export interface LearningOptions {
  preset: PresetName;
  seed: number;
  tasks: TaskMixEntry[];
  /** Verified expert conversations in the (fixed) SFT set, SFT steps over it, its lr and batch. */
  sftExamples: number;
  /** Copy drills mixed into the SFT set (data/copyDrills.ts; 0: none). */
  sftDrills: number;
  /** Share of function-calling SFT examples with random argument values (data/randomValues.ts; 0: none). */
  sftRandomValues?: number;
  /** Share of function-calling SFT examples whose request is wrapped in small talk (data/requestWrappers.ts; 0: none). */
  sftWrappedRequests?: number;
  /** Share of function-calling SFT examples whose request gets word edits (data/requestEdits.ts; 0: none). */
  sftEditedRequests?: number;
  /** Share of function-calling SFT examples whose request is rebuilt from a generic frame and a cue of its tool (data/requestFrames.ts). */
  sftFramedRequests?: number;
  /** Share of service SFT conversations whose customer is renamed to random names (data/randomUsers.ts; 0: none). */
  sftRandomUsers?: number;
  /** Share of the copy drills that are email drills (data/emailDrills.ts; 0: none). */
  sftDrillEmails?: number;
  /** SFT demonstrates only the first K train phrasings per routing tool (config data.phrasings; absent: all). */
  sftPhrasings?: number;
  sftSteps: number;
  sftLr: number;
  sftBatch: number;
  /** GRPO: steps, groups per step, G, lr, KL β, credit scheme, sampling rounds, async staleness. */
  rlSteps: number;
  tasksPerStep: number;
  groupSize: number;
  lr: number;
  klCoef: number;
  credit: CreditScheme;
  samplingRounds: number;
  staleness?: number;
  /** GRPO rollouts' sampling temperature (GrpoStageConfig.temperature); absent = 1. */
  temperature?: number;
  /** GRPO's entropy bonus and advantage scaling (GrpoStageConfig.entropyCoef, .advantage); absent = 0 and 'std'. */
  entropyCoef?: number;
  advantage?: AdvantageScale;
  /** Share of GRPO's function-calling train tasks with random argument values (GrpoStageConfig.randomValues); absent = 0. */
  randomValues?: number;
  /** GRPO's reward-component weights overriding the environments' (GrpoStageConfig.rewardWeights); absent = theirs. */
  rewardWeights?: Record<string, number>;
  /** Test tasks per task set per evaluation, the validation curve's period (0: none) and its size. */
  evalN: number;
  evalEvery: number;
  validationN: number;
  /** Evaluate the untrained model too. */
  evalBefore: boolean;
  /** Train nothing: one evaluation ('model', with the baselines) of the starting weights (`npm run learn -- --eval-only`). */
  evalOnly?: boolean;
  /** Where the before / after evaluations run: 'test' (reported figures) or 'validation' (choosing settings). Default test. */
  evalSplit?: EvalSplit;
  /** Task sets scored beside the run's own at every evaluation (e.g. bfcl-unseen-tools): mix entries of weight 0, never trained on. */
  evalAlso?: Omit<TaskMixEntry, 'weight'>[];
}

/**
 * The routing learning run (the CI learning test and `npm run learn`'s function-calling default):
 * SFT on a fixed set of verified expert trajectories of the train split, then GRPO on fresh train
 * tasks (the environment's reward, no answers), with TEST success before SFT, after SFT and after
 * GRPO, and a validation curve during GRPO (settings are chosen on validation).
 */
export const ROUTING_LEARNING: LearningOptions = {
  preset: 'nano', seed: 1, tasks: [{ family: 'function-calling', level: 'route8', weight: 1 }],
  sftExamples: 256, sftDrills: 0, sftSteps: 200, sftLr: 3e-3, sftBatch: 8,
  rlSteps: 100, tasksPerStep: 16, groupSize: 8, lr: 1e-3, klCoef: 0.1, credit: 'component', samplingRounds: 3,
  evalN: 256, evalEvery: 0, validationN: 128, evalBefore: false,
};

export function learningConfig(o: LearningOptions): PipelineConfig {
  const stages: StageConfig[] = [];
  const test = (label: string, baselines: boolean): StageConfig => ({ kind: 'eval', label, split: o.evalSplit ?? 'test', n: o.evalN, baselines });
  if (o.evalOnly) stages.push(test('model', true));
  else learningStages(o, stages, test);
  // weight 0: never drawn for SFT data or GRPO (taskMix.ts), evaluated at every eval stage
  const tasks = [...o.tasks, ...(o.evalAlso ?? []).map((e) => ({ ...e, weight: 0 }))];
  const context = contextForMix(tasks, toolRenderingFor(PRESETS[o.preset].tokenizer));
  return parsePipelineConfig({ version: PIPELINE_CONFIG_VERSION, preset: o.preset, seed: o.seed, tasks, context, stages });
}

/** [before SFT] → SFT → after SFT → [validation] → GRPO → after GRPO (no GRPO stages when rlSteps is 0: an SFT-only run). */
function learningStages(o: LearningOptions, stages: StageConfig[], test: (label: string, baselines: boolean) => StageConfig): void {
  if (o.evalBefore) stages.push(test('before SFT', false));
  stages.push({ kind: 'sft', data: { source: 'synthetic', examples: o.sftExamples, drills: o.sftDrills, ...(o.sftDrillEmails ? { drillEmails: o.sftDrillEmails } : {}), ...(o.sftRandomValues ? { randomValues: o.sftRandomValues } : {}), ...(o.sftWrappedRequests ? { wrappedRequests: o.sftWrappedRequests } : {}), ...(o.sftEditedRequests ? { editedRequests: o.sftEditedRequests } : {}), ...(o.sftFramedRequests ? { framedRequests: o.sftFramedRequests } : {}), ...(o.sftRandomUsers ? { randomUsers: o.sftRandomUsers } : {}), ...(o.sftPhrasings ? { phrasings: o.sftPhrasings } : {}) }, steps: o.sftSteps, batchSize: o.sftBatch, lr: o.sftLr, warmupSteps: 10, minLrRatio: 1 });
  stages.push(test('after SFT', true));
  if (o.evalEvery > 0) stages.push({ kind: 'eval', label: 'validation after SFT', split: 'validation', n: o.validationN, baselines: false });
  // with 0 GRPO steps an "after GRPO" evaluation would repeat "after SFT" under a name that says RL ran
  if (o.rlSteps === 0) return;
  stages.push({
    kind: 'grpo', steps: o.rlSteps, tasksPerStep: o.tasksPerStep, groupSize: o.groupSize, lr: o.lr, warmupSteps: 5, minLrRatio: 1,
    klCoef: o.klCoef, credit: o.credit, temperature: o.temperature ?? 1, samplingRounds: o.samplingRounds, evalEvery: o.evalEvery,
    ...(o.staleness === undefined ? {} : { staleness: o.staleness }),
    ...(o.rewardWeights === undefined ? {} : { rewardWeights: { ...o.rewardWeights } }),
    ...(o.randomValues ? { randomValues: o.randomValues } : {}),
    ...(o.entropyCoef ? { entropyCoef: o.entropyCoef } : {}),
    ...(o.advantage === undefined ? {} : { advantage: o.advantage }),
  });
  stages.push(test('after GRPO', false));
}

/** A named pipeline the page offers as a one-click start ("tool routing in 6 minutes", …). */
export interface ExamplePipeline {
  id: string;
  title: string;
  /** What the agent learns and what to expect, one or two sentences for the page. */
  summary: string;
  config: PipelineConfig;
}

const example = (o: Partial<LearningOptions> & Pick<LearningOptions, 'tasks'>): PipelineConfig => learningConfig({ ...ROUTING_LEARNING, evalBefore: false, evalEvery: 0, ...o });

/**
 * The page's example pipelines. The first is the demo's (`npm run demo`, DEFAULT_DEMO in
 * demoPipeline.ts; a unit test keeps them equal). The multi-turn ones use the trimmed-Qwen3 presets
 * (their episodes do not fit nano's 512 byte positions) and stay small: each is a start to edit.
 */
export const EXAMPLE_PIPELINES: readonly ExamplePipeline[] = [
  {
    id: 'routing', title: 'Tool routing in 6 minutes',
    summary: 'A 0.43 M-parameter model learns to answer a short request with a call to the right one of 4 tools: SFT on expert calls, then GRPO against the environment; test success (the whole call right) after each, beside cheap rule baselines. It starts from the bundled nano copy base (pretrained on copy drills only), so it can copy argument values it never saw; about 6 minutes on a CPU adapter, and still far below the cheap rules at this size.',
    config: {
      ...example({ preset: 'nano', tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }], sftExamples: 512, sftSteps: 150, sftBatch: 4, sftLr: 1e-3, sftDrills: 128, sftWrappedRequests: 0.5, rlSteps: 6, tasksPerStep: 4, groupSize: 8, evalN: 64 }),
      start: { bundled: COPY_BASE.id },
    },
  },
  {
    id: 'bfcl', title: 'BFCL-style calls',
    summary: 'Function calling in the style of the Berkeley Function-Calling Leaderboard: single, multiple and parallel calls over 20 tools, and requests no tool fits. Trimmed-Qwen3 tokenizer (nano-q); tens of minutes on a CPU adapter.',
    config: example({ preset: 'nano-q', tasks: [{ family: 'function-calling', level: 'bfcl', weight: 1 }], sftExamples: 256, sftSteps: 100, sftBatch: 4, rlSteps: 10, tasksPerStep: 4, groupSize: 4, evalN: 32 }),
  },
  {
    id: 'service', title: 'Customer service',
    summary: 'A retail support agent talks with a simulated customer over several turns: authenticate, look up orders, make the right change, tell the facts. Multi-turn GRPO; slow on a CPU adapter (long episodes): watch the ETA.',
    config: example({ preset: 'nano-q', tasks: [{ family: 'service', level: 'retail', weight: 1 }], sftExamples: 64, sftSteps: 40, sftBatch: 2, rlSteps: 4, tasksPerStep: 2, groupSize: 4, evalN: 8 }),
  },
  {
    id: 'coding', title: 'Coding',
    summary: 'Write a JavaScript function from a specification, run the tests in a sandbox, then submit; rewarded by the hidden tests passed. Slow on a CPU adapter: watch the ETA.',
    config: example({ preset: 'nano-q', tasks: [{ family: 'coding', level: 'functions', weight: 1 }], sftExamples: 64, sftSteps: 40, sftBatch: 2, rlSteps: 4, tasksPerStep: 2, groupSize: 4, evalN: 8 }),
  },
  {
    id: 'all', title: 'All three families',
    summary: 'One model on a mix of routing, BFCL-style calls, customer service and coding (weights 2:1:1:1), evaluated per task set. The "All + merge" example trains a specialist per task set instead and merges them.',
    config: example({
      preset: 'nano-q', sftExamples: 128, sftSteps: 60, sftBatch: 2, rlSteps: 4, tasksPerStep: 4, groupSize: 4, evalN: 8,
      tasks: [{ family: 'function-calling', level: 'route4', weight: 2 }, { family: 'function-calling', level: 'bfcl', weight: 1 }, { family: 'service', level: 'retail', weight: 1 }, { family: 'coding', level: 'functions', weight: 1 }],
    }),
  },
  {
    id: 'merge', title: 'All + merge',
    summary: 'Task specialists merged into one model (as in Klear-AgentForge): one SFT on the mix of routing, order-status service chats and one-line coding tasks, then a specialist per task set from that model (SFT, then GRPO, on its task set alone), each scored on every task set, then a TIES merge of the three, scored again. Small (nano-q, a few steps), but multi-turn episodes are long: tens of minutes on a CPU adapter; watch the ETA.',
    config: mergeExample(),
  },
];

/** The "All + merge" example: shared SFT → SFT then GRPO specialists → eval of each → TIES merge → eval of the merged model. */
export function mergeExample(): PipelineConfig {
  // the curriculum's first levels of service and coding: the shortest multi-turn episodes (1 536-token context, not 2 048)
  const tasks: TaskMixEntry[] = [{ family: 'function-calling', level: 'route4', weight: 1 }, { family: 'service', level: 'status', weight: 1 }, { family: 'coding', level: 'one-liners', weight: 1 }];
  return parsePipelineConfig({
    version: PIPELINE_CONFIG_VERSION, preset: 'nano-q', seed: 1, tasks, context: contextForMix(tasks),
    stages: [
      { kind: 'sft', data: { source: 'synthetic', examples: 64, drills: 0 }, steps: 20, batchSize: 2, lr: 3e-3, warmupSteps: 5, minLrRatio: 1 },
      // SFT specialists first: at this size GRPO alone often drops every group (all rewards 0) and would leave the specialists equal
      { kind: 'sft', data: { source: 'synthetic', examples: 32, drills: 0 }, steps: 10, batchSize: 2, lr: 3e-3, warmupSteps: 2, minLrRatio: 1, specialists: true },
      { kind: 'grpo', steps: 2, tasksPerStep: 2, groupSize: 4, lr: 1e-3, warmupSteps: 1, minLrRatio: 1, klCoef: 0.1, credit: 'component', temperature: 1, samplingRounds: 2, evalEvery: 0, specialists: true },
      { kind: 'eval', label: 'specialists', split: 'test', n: 4, baselines: false },
      { kind: 'merge', method: 'ties', density: 0.5 },
      { kind: 'eval', label: 'after merge', split: 'test', n: 8, baselines: true },
    ],
  });
}
