// The pipeline config: ONE JSON-serialisable object that says what a run trains — the model preset,
// the task-set mix, the context, optional LoRA, and an ordered list of stages (sft → grpo → merge →
// eval, any number of each) — validated by a zod schema. The page edits it, share links encode it, `npm run learn` and
// `npm run demo` build it from their flags, and the runner (runner.ts) executes it. No task set is
// special-cased: routing is one task set among the others (taskSets.ts).
// DOM-free and GPU-free, so the page's main thread and share links can import it.
import { z } from 'zod';
import { TASK_FAMILY_NAMES } from '../envs/familyNames';
import { PRESETS } from '../model/config';
import { isRoutingLevel, ROUTING_LEVELS } from '../envs/functionCalling/routingTask';
import { MERGE_METHODS } from '../train/merge/methods';
import { BUNDLED_MODELS } from '../model/bundledModels';

/** Config format version; bumped when a saved config (checkpoint, share link) would mean something else. */
export const PIPELINE_CONFIG_VERSION = 1;

export const PIPELINE_PRESETS = ['nano', 'tiny', 'small', 'nano-q', 'tiny-q', 'qwen3-0.6b'] as const;

/** The evaluation splits: tune on validation, report test. */
// 'train' is a memorisation check (tasks 0 … n−1 of the seed's train stream: trained templates and pools, drawn
// from another stream than the SFT data's, so instances are fresh), never a reported result: held-out figures
// come from the other two.
export const EVAL_SPLITS = ['validation', 'test', 'train'] as const;
export type EvalSplit = (typeof EVAL_SPLITS)[number];

/** How GRPO credits rewards to tokens (the granular-reward ablation): see grpoStage in runner.ts. */
export const CREDIT_SCHEMES = ['trajectory', 'turn', 'component'] as const;
export type CreditScheme = (typeof CREDIT_SCHEMES)[number];

/** How GRPO scales a group's centred rewards: by the group's std (GRPO, DAPO) or not at all (Dr. GRPO). */
export const ADVANTAGE_SCALES = ['std', 'mean'] as const;
export type AdvantageScale = (typeof ADVANTAGE_SCALES)[number];

const int = (min: number, max: number) => z.number().int({ error: 'must be a whole number' }).min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` });
const num = (min: number, max: number) => z.number().finite({ error: 'must be a finite number' }).min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` });

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

/** LoRA adapters: rank r on every projection, scale s = alpha / r (default alpha = 2·r). */
const loraSchema = z.object({ rank: int(1, 4096), alpha: num(0, 1e6).refine((a) => a > 0, { error: 'must be more than 0' }).optional() }).strict();
export type LoraSetting = z.infer<typeof loraSchema>;

/**
 * A training stage's own LoRA, overriding config.lora for that stage: false = full fine-tuning here,
 * {rank, alpha} = adapters here (absent: config.lora). E.g. a fully fine-tuned shared stage followed
 * by specialists trained as adapters of it (low-rank task vectors for a merge).
 */
const stageLoraSchema = z.union([z.literal(false), loraSchema], { error: 'must be false (full fine-tuning in this stage) or {rank, alpha?}' }).optional();

/** SFT on verified synthetic trajectories of a task mix (train split), or on a chat JSONL file. */
export const sftStageSchema = z.object({
  kind: z.literal('sft'),
  /**
   * synthetic: `examples` expert trajectories of `tasks` (default: the run's task mix), replayed
   * against the environment and kept only when they reach full reward; a FIXED set, cycled for
   * `steps` (epochs = steps × batchSize / examples); `drills` copy drills mixed in (data/copyDrills.ts:
   * generic echo calls of random strings, for models without pretraining); `drillEmails` the share of those
   * drills that are email lookups instead (data/emailDrills.ts: the service call on customer-shaped addresses of
   * random names; absent = 0); `randomValues` the share of
   * function-calling examples whose argument values are replaced by random value-shaped strings
   * (data/randomValues.ts: copying instead of memorising a closed train pool; absent = 0);
   * `wrappedRequests` the share whose request is wrapped in a few words of small talk
   * (data/requestWrappers.ts: the value at new offsets; absent = 0); `editedRequests` the share whose
   * request gets 1–2 word edits (data/requestEdits.ts: shared function words deleted, inserted, swapped;
   * absent = 0); `framedRequests` the share whose request is rebuilt from a generic frame and a cue word
   * of its tool (data/requestFrames.ts: only the cue tells the tool; absent = 0); `randomUsers` the share of
   * service conversations whose customer is renamed to random names (data/randomUsers.ts: copying the
   * email instead of memorising the train names; absent = 0); `phrasings` K keeps
   * only routing tasks whose request phrasings are among the first K train phrasings of their tool
   * (demonstrations for part of the requests; RL tasks still draw all of them; absent = all). jsonl: HF chat lines
   * ({messages, tools}).
   */
  data: z.discriminatedUnion('source', [
    z.object({
      source: z.literal('synthetic'), examples: int(1, 1_000_000), drills: int(0, 1_000_000).default(0), drillEmails: num(0, 1).optional(), randomValues: num(0, 1).optional(), wrappedRequests: num(0, 1).optional(), editedRequests: num(0, 1).optional(), framedRequests: num(0, 1).optional(), randomUsers: num(0, 1).optional(),
      phrasings: int(1, 64).optional(),
      tasks: taskMixSchema.optional(),
    }).strict().refine((d) => !d.drillEmails || d.drills > 0, { error: 'drillEmails is the share of the copy drills that are email drills: set drills > 0 too', path: ['drillEmails'] }),
    z.object({ source: z.literal('jsonl'), path: z.string().min(1) }).strict(),
  ]),
  steps: int(0, 1_000_000),
  batchSize: int(1, 1024),
  lr: num(0, 1),
  warmupSteps: int(0, 1_000_000).default(10),
  /** Final lr as a fraction of the peak (cosine); 1 = constant. */
  minLrRatio: num(0, 1).default(1),
  /** Train one specialist per task-mix entry (weight > 0), each on its entry alone, for a later merge stage (specialists.ts). */
  specialists: z.boolean().optional(),
  /** This stage's LoRA (false: full fine-tuning; absent: config.lora). */
  lora: stageLoraSchema,
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
  /**
   * Weights of the reward components GRPO trains on, overriding the environments' own (component →
   * weight, e.g. { exact_match: 1, function_choice: 0 } trains on the whole-call outcome alone); a
   * component not named keeps its environment weight. Evaluation, success and the reported episode
   * reward keep the environments' weights. Names are checked against the mix's families when the run starts.
   */
  rewardWeights: z.record(z.string().min(1).max(64), num(0, 100), { error: 'write COMPONENT=WEIGHT pairs, e.g. exact_match=1, function_choice=0' }).optional(),
  /**
   * Share (0…1) of the stage's function-calling train tasks whose argument values are random
   * value-shaped strings (data/randomValueTasks.ts): a right call then needs copying, not a memorised
   * train value (absent = 0). Other families' tasks and every evaluation are untouched.
   */
  randomValues: num(0, 1).optional(),
  /** Sampling temperature of rollouts; the trainer scores log softmax(logits / T) at the same T, so the ratio compares the policy that sampled. */
  temperature: num(0.05, 5).default(1),
  /**
   * Weight of the entropy bonus (GrpoConfig.entropyCoef: loss −= coef · token-mean entropy of the
   * policy tokens): keeps a near-deterministic policy sampling more than one answer per group (absent = 0).
   */
  entropyCoef: num(0, 1).optional(),
  /**
   * How a group's rewards become advantages: 'std' = (r − mean) / (std + ε) (GRPO, DAPO); 'mean' =
   * r − mean (Dr. GRPO: a group with one success in G no longer gets a √G-times larger step). Absent = 'std'.
   */
  advantage: z.enum(ADVANTAGE_SCALES, { error: `must be one of ${ADVANTAGE_SCALES.join(', ')}` }).optional(),
  /** DAPO dynamic sampling: rollout rounds per step at most to fill it with groups that carry signal (1 = drop only). */
  samplingRounds: int(1, 16).default(3),
  /** Asynchronous rollouts with this staleness bound (versions); absent = synchronous. */
  staleness: int(0, 64).optional(),
  /** Validation curve: evaluate every this many steps (0 = never). */
  evalEvery: int(0, 1_000_000).default(0),
  /** Train one specialist per task-mix entry (weight > 0), each on its entry alone, for a later merge stage (specialists.ts). */
  specialists: z.boolean().optional(),
  /** This stage's LoRA (false: full fine-tuning; absent: config.lora). */
  lora: stageLoraSchema,
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
}).strict();
export type EvalStageConfig = z.infer<typeof evalStageSchema>;

/** The merge methods of src/train/merge by name (linear, task-arithmetic, ties, dare-linear, dare-ties, slerp, ram, fisher). */
export const MERGE_METHOD_NAMES = Object.keys(MERGE_METHODS) as [string, ...string[]];

/**
 * Merges the specialists of the stages before it (since the previous merge) into one model, with the
 * model they all started from as the base of the task vectors (src/train/merge: each method's formula).
 * The merged model replaces the run's model: the stages after it train and evaluate it.
 */
export const mergeStageSchema = z.object({
  kind: z.literal('merge'),
  method: z.enum(MERGE_METHOD_NAMES, { error: `must be one of ${MERGE_METHOD_NAMES.join(', ')}` }),
  /** w_i per specialist, in task-mix order (default 1 each). */
  weights: z.array(num(-1e6, 1e6)).min(1).max(16).optional(),
  /** TIES trim / DARE keep fraction in (0, 1] (default 1 for TIES, 0.5 for DARE). */
  density: num(0, 1).refine((d) => d > 0, { error: 'must be more than 0' }).optional(),
  /** λ: scale of the merged task vector (default 1). */
  lambda: num(-100, 100).optional(),
  /** SLERP's t in [0, 1] (default 0.5). */
  t: num(0, 1).optional(),
  /** RAM's ε: |τ| ≤ ε counts as not updated (default 1e-5). */
  epsilon: num(0, 1).optional(),
}).strict();
export type MergeStageConfig = z.infer<typeof mergeStageSchema>;

export const stageSchema = z.discriminatedUnion('kind', [sftStageSchema, grpoStageSchema, mergeStageSchema, evalStageSchema]);
export type StageConfig = z.infer<typeof stageSchema>;

export const pipelineConfigSchema = z.object({
  version: z.literal(PIPELINE_CONFIG_VERSION, { error: `must be ${PIPELINE_CONFIG_VERSION} (this build's config format)` }),
  preset: z.enum(PIPELINE_PRESETS, { error: `must be one of ${PIPELINE_PRESETS.join(', ')}` }),
  /** Seeds the init, the SFT data, the task streams and sampling. */
  seed: int(0, 2 ** 31 - 1),
  /**
   * Where the weights start: a model shipped with the app (public/models/, src/model/bundledModels.ts)
   * of the preset's shape. Absent: the preset's seeded init (or the model loaded in the page, when
   * "start runs from the loaded model" is ticked). The caller loads it (the page through "Load model"
   * before Start, Node with --init public/models/ID); the runner refuses such a config without those weights.
   */
  start: z.object({
    bundled: z.enum(BUNDLED_MODELS.map((m) => m.id) as [string, ...string[]], { error: `must be one of ${BUNDLED_MODELS.map((m) => m.id).join(', ')}` }),
  }).strict().optional(),
  /** The run's task mix: GRPO's environments, the default SFT data and what evaluations cover. */
  tasks: taskMixSchema,
  context: contextSchema,
  /**
   * LoRA: every training stage trains fresh rank-r adapters on all projections of the frozen model
   * (model/lora.ts; s = alpha / rank, default alpha = 2·rank) and merges them into it at the stage's
   * end. Absent: full fine-tuning. A stage's own `lora` overrides it for that stage (stageLora).
   */
  lora: loraSchema.optional(),
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
  const hidden = PRESETS[cfg.preset].hiddenSize;
  const rankError = (at: string, l: LoraSetting | false | undefined) => {
    if (l && l.rank > hidden) errors.push(`${at}.rank: ${l.rank} is more than preset ${cfg.preset}'s hidden size (${hidden}); a rank that large is no longer low-rank: choose at most ${hidden}`);
  };
  const bundled = BUNDLED_MODELS.find((m) => m.id === cfg.start?.bundled);
  if (bundled && bundled.preset !== cfg.preset) errors.push(`start.bundled: ${bundled.id} has preset ${bundled.preset}'s shape, the config's preset is ${cfg.preset}: set preset to ${bundled.preset} or drop start`);
  rankError('lora', cfg.lora);
  cfg.stages.forEach((s, i) => { if (s.kind === 'sft' || s.kind === 'grpo') rankError(`stages.${i}.lora`, s.lora); });
  cfg.stages.forEach((s, i) => {
    if (s.kind !== 'sft' || s.data.source !== 'synthetic' || s.data.phrasings === undefined) return;
    const other = (s.data.tasks ?? cfg.tasks).filter((e) => e.weight > 0 && !(e.family === 'function-calling' && isRoutingLevel(e.level)));
    if (other.length) errors.push(`stages.${i}.data.phrasings: demonstrated phrasings exist for the routing task sets only (function-calling ${ROUTING_LEVELS.join(', ')}); ${other.map((e) => `${e.family}${e.level ? `/${e.level}` : ''}`).join(', ')} has none: drop the field or those task sets`);
  });
  errors.push(...specialistErrors(cfg));
  return errors;
}

/** The task-mix entries that get a specialist (weight > 0), in mix order. */
export function specialistEntries(cfg: Pick<PipelineConfig, 'tasks'>): PipelineConfig['tasks'] {
  return cfg.tasks.filter((e) => e.weight > 0);
}

/** Specialists waiting to be merged when each stage starts: their count, 0 when none (the page's estimates). */
export function pendingSpecialists(cfg: PipelineConfig): number[] {
  let pending = 0;
  return cfg.stages.map((s) => {
    const now = pending;
    if ((s.kind === 'sft' || s.kind === 'grpo') && s.specialists) pending = specialistEntries(cfg).length;
    if (s.kind === 'merge') pending = 0;
    return now;
  });
}

/**
 * How many models each stage trains or evaluates: a specialist stage one per specialist, an eval
 * stage between specialists and their merge one per specialist, every other stage 1 (estimates, progress).
 */
export function stageRepeats(cfg: PipelineConfig): number[] {
  const pending = pendingSpecialists(cfg);
  const n = specialistEntries(cfg).length;
  return cfg.stages.map((s, i) => ((s.kind === 'sft' || s.kind === 'grpo') && s.specialists ? n : s.kind === 'eval' && pending[i] > 0 ? pending[i] : 1));
}

/** Where specialists are trained and merged: a merge needs ≥ 2 specialists before it; specialists need a merge after them. */
function specialistErrors(cfg: PipelineConfig): string[] {
  const errors: string[] = [];
  const n = specialistEntries(cfg).length;
  let open = -1; // the first stage of specialists not merged yet
  cfg.stages.forEach((s, i) => {
    const at = `stages.${i}`;
    if (s.kind === 'sft' || s.kind === 'grpo') {
      if (s.specialists) {
        if (n < 2) errors.push(`${at}.specialists: the task mix has ${n} task set${n === 1 ? '' : 's'} with weight > 0; specialists need at least two (one per task set): add task sets or untick specialists`);
        if (s.kind === 'sft' && (s.data.source !== 'synthetic' || s.data.tasks)) errors.push(`${at}.specialists: a specialist SFT stage trains each specialist on its own task set's synthetic data; remove data.tasks / the JSONL source or untick specialists`);
        if (s.kind === 'grpo' && s.staleness !== undefined) errors.push(`${at}.specialists: specialists train with synchronous rollouts; choose synchronous or untick specialists`);
        if (open < 0) open = i;
      } else if (open >= 0) {
        errors.push(`${at}: the specialists of stage ${open + 1} are not merged yet; add a merge stage before this stage (or tick specialists here to train them further)`);
      }
    }
    if (s.kind === 'merge') {
      if (open < 0) errors.push(`${at}: nothing to merge: no stage before it trains specialists (tick "specialists" on an SFT or GRPO stage before it)`);
      else {
        const method = MERGE_METHODS[s.method];
        if (n < 2) errors.push(`${at}: a merge needs at least two specialists; the task mix gives ${n}`);
        else if (n > method.maxModels) errors.push(`${at}.method: ${s.method} merges exactly ${method.maxModels} models; the task mix gives ${n} specialists: choose another method`);
        if (s.weights && s.weights.length !== n) errors.push(`${at}.weights: ${s.weights.length} weight${s.weights.length === 1 ? '' : 's'} for ${n} specialists; give one per task set with weight > 0, in mix order`);
        if (s.method === 'linear' && s.weights && Math.abs(s.weights.reduce((a, b) => a + b, 0)) < 1e-12) errors.push(`${at}.weights: they sum to 0; a linear merge divides by their sum`);
        if (method.needsImportance && s.weights && !s.weights.every((w) => w > 0)) errors.push(`${at}.weights: ${s.method} weighs each specialist's Fisher by its weight; give positive weights`);
      }
      open = -1;
    }
  });
  if (open >= 0) errors.push(`stages.${open}.specialists: no merge stage follows the specialists; add one after this stage (or untick specialists)`);
  cfg.stages.forEach((s, i) => {
    if (s.kind === 'grpo' && s.staleness !== undefined && stageLora(cfg, i)) errors.push(`stages.${i}.staleness: async GRPO trains all weights in its trainer worker, not LoRA adapters; choose synchronous or remove lora`);
  });
  return errors;
}

/** The LoRA that stage i trains with: its own `lora` (false: none), else config.lora; undefined = full fine-tuning or not a training stage. */
export function stageLora(cfg: Pick<PipelineConfig, 'lora' | 'stages'>, i: number): LoraSetting | undefined {
  const s = cfg.stages[i];
  if (!s || (s.kind !== 'sft' && s.kind !== 'grpo')) return undefined;
  return s.lora === false ? undefined : s.lora ?? cfg.lora;
}

/** The LoRA of the first training stage that trains adapters; undefined when every stage trains all weights. */
export function anyStageLora(cfg: Pick<PipelineConfig, 'lora' | 'stages'>): LoraSetting | undefined {
  return cfg.stages.map((_, i) => stageLora(cfg, i)).find((l) => l !== undefined);
}
