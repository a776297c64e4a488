// The pipeline config: ONE JSON-serialisable object that says what a run trains — the model preset,
// the task-set mix, the context, and an ordered list of stages (sft → grpo → eval, any number of
// each) — validated by a zod schema. The page edits it, share links encode it, `npm run learn` and
// `npm run demo` build it from their flags, and the runner (runner.ts) executes it. No task set is
// special-cased: routing is one task set among the others (taskSets.ts).
// DOM-free and GPU-free, so the page's main thread and share links can import it.
import { z } from 'zod';
import { TASK_FAMILY_NAMES } from '../envs/familyNames';

/** Config format version; bumped when a saved config (checkpoint, share link) would mean something else. */
export const PIPELINE_CONFIG_VERSION = 1;

export const PIPELINE_PRESETS = ['nano', 'tiny', 'small', 'nano-q', 'tiny-q', 'qwen3-0.6b'] as const;

/** The evaluation splits: tune on validation, report test. */
export const EVAL_SPLITS = ['validation', 'test'] as const;
export type EvalSplit = (typeof EVAL_SPLITS)[number];

/** How GRPO credits rewards to tokens (the granular-reward ablation): see grpoStage in runner.ts. */
export const CREDIT_SCHEMES = ['trajectory', 'turn', 'component'] as const;
export type CreditScheme = (typeof CREDIT_SCHEMES)[number];

const int = (min: number, max: number) => z.number().int({ error: 'must be a whole number' }).min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` });
const num = (min: number, max: number) => z.number().finite({ error: 'must be a finite number' }).min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` });

/** One entry of a task mix: a task set, its difficulty level (where the set has levels) and its share. */
/** One entry of a task mix: a family, its level (task set; default the family's first, see envs/taskSets.ts) and its share. */
export const taskMixEntrySchema = z.object({
  family: z.enum(TASK_FAMILY_NAMES, { error: `must be one of ${TASK_FAMILY_NAMES.join(', ')}` }),
  /** Checked against the family's levels when the run starts (envs/taskSets.ts names them). */
  level: z.string().min(1).max(64).optional(),
  weight: num(0, 1e6).default(1),
}).strict();

const taskMixSchema = z.array(taskMixEntrySchema).min(1, { error: 'needs at least one task set' }).max(16)
  .refine((mix) => mix.some((e) => e.weight > 0), { error: 'needs a task set with weight > 0' });

/** Episode shape: what one rollout or evaluation episode may use. */
export const contextSchema = z.object({
  /** Tokens of a whole episode (prompt + turns + tool/user replies); ≤ the model's positions. */
  maxTotalTokens: int(16, 1 << 20),
  /** Tokens one assistant turn may sample before it is cut. */
  maxNewTokensPerTurn: int(1, 1 << 16),
  /** Assistant turns per episode. */
  maxTurns: int(1, 64),
}).strict();
export type ContextConfig = z.infer<typeof contextSchema>;

/** SFT on verified synthetic trajectories of a task mix (train split), or on a chat JSONL file. */
export const sftStageSchema = z.object({
  kind: z.literal('sft'),
  /**
   * synthetic: `examples` expert trajectories of `tasks` (default: the run's task mix), replayed
   * against the environment and kept only when they reach full reward; a FIXED set, cycled for
   * `steps` (epochs = steps × batchSize / examples); `drills` copy drills mixed in (data/copyDrills.ts:
   * generic echo calls of random strings, for models without pretraining). jsonl: HF chat lines
   * ({messages, tools}).
   */
  data: z.discriminatedUnion('source', [
    z.object({ source: z.literal('synthetic'), examples: int(1, 1_000_000), drills: int(0, 1_000_000).default(0), tasks: taskMixSchema.optional() }).strict(),
    z.object({ source: z.literal('jsonl'), path: z.string().min(1) }).strict(),
  ]),
  steps: int(0, 1_000_000),
  batchSize: int(1, 1024),
  lr: num(0, 1),
  warmupSteps: int(0, 1_000_000).default(10),
  /** Final lr as a fraction of the peak (cosine); 1 = constant. */
  minLrRatio: num(0, 1).default(1),
}).strict();
export type SftStageConfig = z.infer<typeof sftStageSchema>;

/** Multi-turn GRPO against the environments of a task mix (train split). */
export const grpoStageSchema = z.object({
  kind: z.literal('grpo'),
  steps: int(0, 1_000_000),
  /** Tasks (groups) per optimizer step. */
  tasksPerStep: int(1, 4096),
  /** G: samples per task. */
  groupSize: int(2, 256),
  lr: num(0, 1),
  warmupSteps: int(0, 1_000_000).default(5),
  minLrRatio: num(0, 1).default(1),
  /** β of the k3 KL term to the policy at the start of the stage (0: no reference forward). */
  klCoef: num(0, 100).default(0.1),
  credit: z.enum(CREDIT_SCHEMES, { error: `must be one of ${CREDIT_SCHEMES.join(', ')}` }).default('component'),
  /** Sampling temperature of rollouts (1 keeps behaviour log-probs = the trained policy). */
  temperature: num(0.05, 5).default(1),
  /** DAPO dynamic sampling: rollout rounds per step at most to fill it with groups that carry signal (1 = drop only). */
  samplingRounds: int(1, 16).default(3),
  /** Asynchronous rollouts with this staleness bound (versions); absent = synchronous. */
  staleness: int(0, 64).optional(),
  /** Validation curve: evaluate every this many steps (0 = never). */
  evalEvery: int(0, 1_000_000).default(0),
}).strict();
export type GrpoStageConfig = z.infer<typeof grpoStageSchema>;

/** Greedy evaluation on a split: n tasks per seed, with intervals, breakdowns and cheap baselines. */
export const evalStageSchema = z.object({
  kind: z.literal('eval'),
  /** What the report calls this point of the run ("before SFT", "after GRPO", …). */
  label: z.string().min(1).max(80),
  split: z.enum(EVAL_SPLITS, { error: `must be one of ${EVAL_SPLITS.join(', ')}` }),
  /** Tasks per task set. */
  n: int(1, 100_000),
  /** Task-stream seeds (tasks 0 … n−1 of each); default [run seed]. */
  seeds: z.array(int(0, 2 ** 31 - 1)).min(1).max(16).optional(),
  /** Also score the cheap baselines on the same tasks. */
  baselines: z.boolean().default(false),
  /**
   * The task sets to score instead of the run's mix (weights are ignored), e.g. the run's set plus
   * function-calling/bfcl-unseen-tools: functions never offered in training. Each must have `split`.
   */
  tasks: taskMixSchema.optional(),
}).strict();
export type EvalStageConfig = z.infer<typeof evalStageSchema>;

export const stageSchema = z.discriminatedUnion('kind', [sftStageSchema, grpoStageSchema, evalStageSchema]);
export type StageConfig = z.infer<typeof stageSchema>;

export const pipelineConfigSchema = z.object({
  version: z.literal(PIPELINE_CONFIG_VERSION, { error: `must be ${PIPELINE_CONFIG_VERSION} (this build's config format)` }),
  preset: z.enum(PIPELINE_PRESETS, { error: `must be one of ${PIPELINE_PRESETS.join(', ')}` }),
  /** Seeds the init, the SFT data, the task streams and sampling. */
  seed: int(0, 2 ** 31 - 1),
  /** The run's task mix: GRPO's environments, the default SFT data and what evaluations cover. */
  tasks: taskMixSchema,
  context: contextSchema,
  stages: z.array(stageSchema).max(64),
}).strict();
export type PipelineConfig = z.infer<typeof pipelineConfigSchema>;
/** What a caller may write: defaults filled in by the schema. */
export type PipelineConfigInput = z.input<typeof pipelineConfigSchema>;

export type PipelineConfigResult = { ok: true; config: PipelineConfig } | { ok: false; errors: string[] };

/** Validates any input (a JSON file, CLI flags, a share link, the page's form): every problem as "path: message". */
export function validatePipelineConfig(input: unknown): PipelineConfigResult {
  const parsed = pipelineConfigSchema.safeParse(input);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'config'}: ${i.message}`) };
  const errors = crossFieldErrors(parsed.data);
  return errors.length ? { ok: false, errors } : { ok: true, config: parsed.data };
}

/** Like validatePipelineConfig, but throws one message listing every problem. */
export function parsePipelineConfig(input: unknown): PipelineConfig {
  const r = validatePipelineConfig(input);
  if (!r.ok) throw new Error(`Invalid pipeline config:\n  ${r.errors.join('\n  ')}`);
  return r.config;
}

/** Rules that span fields (the schema checks each field alone). */
function crossFieldErrors(cfg: PipelineConfig): string[] {
  const errors: string[] = [];
  const c = cfg.context;
  if (c.maxNewTokensPerTurn > c.maxTotalTokens) errors.push(`context.maxNewTokensPerTurn: ${c.maxNewTokensPerTurn} is more than context.maxTotalTokens (${c.maxTotalTokens})`);
  return errors;
}
