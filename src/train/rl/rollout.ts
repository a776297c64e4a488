// Multi-turn rollouts on token ids (verl's tool_agent_loop), batched over a whole group batch:
//   encodePrompt → while episodes remain: ONE generate() call for every unfinished episode's next
//   turn (stop at <|im_end|>) → decode → env.step(text) → appendAssistantTurn (sampled ids, mask 1)
//   → stop on done / limits → appendToolResults (env replies, mask 0) → next turn.
// G samples of each task are laid out contiguously (group-major), as groupAdvantages expects.
// The environment's messages after the final turn are kept in `messages` but not tokenised: no
// policy token follows them, so they would cost training compute for nothing.
import type { ChatMessage, EnvFamily, EpisodeLimits, Environment, Reward, StepResult, TaskBase, ToolSpec } from '../../envs/types';
import { weightedReward } from '../../envs/types';
import { assistantMessage, episodeSuccess } from '../../eval/rollout';
import { mixSeeds } from '../../util/seeds';
import type { Generation } from '../../model/generate';
import { appendAssistantTurn, appendToolResults, encodePrompt, toolRenderingFor, type ChatFormatOptions, type Tokenizer, type TokenSequence, withToolRendering } from '../../tokenizer';
import { decisionTokens, type SampledTurn } from './decisionTokens';
import type { Trajectory, TrajectoryEnd } from './trajectory';

export interface RolloutConfig {
  /** G: samples per task (the GRPO group). */
  groupSize: number;
  /** Assistant turns per episode at most (also passed to the environment as its maxTurns). */
  maxTurns: number;
  /** Tokens one assistant turn may sample before it is cut. */
  maxNewTokensPerTurn: number;
  /** Whole-episode length cap in tokens (prompt + turns + replies); ≤ the model's positions and the trainer's row length. */
  maxTotalTokens: number;
  /** Sampling temperature (0 = greedy, for evaluation); GRPO's trainer scores at the same T (GrpoTrainerConfig.temperature, checked by checkGroupSizes). */
  temperature: number;
  /** Keep the k most likely tokens (0 = off). */
  topK: number;
  /** Nucleus sampling mass (1 = off). */
  topP: number;
  /** Qwen3's enable_thinking for the chat format (false: the empty think block ends every generation prompt). */
  enableThinking: boolean;
}

export const DEFAULT_ROLLOUT: RolloutConfig = {
  groupSize: 4, maxTurns: 4, maxNewTokensPerTurn: 96, maxTotalTokens: 512, temperature: 1, topK: 0, topP: 1, enableThinking: false,
};

/** Samples one assistant turn per prompt; the GPU version wraps model/generate.ts, tests script one. */
export interface TurnGenerator {
  /** Longest sequence (prompt + new tokens) the model can take. */
  readonly maxPositions: number;
  /** Every row stops after `stopId` (kept in the output) or maxNewTokens tokens. */
  generate(prompts: number[][], opts: { maxNewTokens: number; stopId: number; seed: number; rowSeeds?: readonly number[] }): Promise<Generation[]>;
}

/** How an episode's opening (messages, tools) is shown to the model. */
export type PromptRenderer = (messages: readonly ChatMessage[], tools: readonly ToolSpec[]) => { messages: ChatMessage[]; tools: ToolSpec[] };

/** The tokenizer's presets' tool rendering (toolRenderingFor): compact lines for byte and trimmed-Qwen3 presets, Qwen3's template for full Qwen3. */
export function defaultRenderer(tok: Tokenizer): PromptRenderer {
  const rendering = toolRenderingFor(tok.kind);
  return (messages, tools) => withToolRendering(messages, tools, rendering);
}

export interface RolloutRequest<T extends TaskBase> {
  family: EnvFamily<T>;
  /** One entry per group; each task is played G times. */
  tasks: readonly T[];
  tokenizer: Tokenizer;
  generator: TurnGenerator;
  config: RolloutConfig;
  /** Seeds every generate() call of this batch (mixed with the turn and bucket). */
  seed: number;
  /**
   * One seed per task (group): every episode then samples from its own stream, mixSeeds(group seed,
   * turn, sample), so its tokens do not depend on the other tasks of the batch nor on how the
   * generate() calls are bucketed (data-parallel ranks play different slices of a step; `seed` is
   * then unused).
   */
  groupSeeds?: readonly number[];
  /** Trainer version of the weights the generator holds; recorded in every trajectory. */
  policyVersion: number;
  /** Default: defaultRenderer(tokenizer). */
  render?: PromptRenderer;
  /** Environment limit overrides (maxTurns always comes from config). */
  limits?: Partial<EpisodeLimits>;
  /** Reward weight overrides of the family's defaults. */
  weights?: Partial<Record<string, number>>;
}

/** An episode in progress: its environment, its token sequence and the per-token records beside it. */
interface Live {
  traj: Trajectory;
  env: Environment<TaskBase> | null;
  seq: TokenSequence;
  /** Reward the env last reported (null before the first step). */
  lastReward: Reward | null;
  open: boolean;
  /** The assistant turns sampled so far (where each starts in ids, what the env read). */
  sampled: SampledTurn[];
}

function zeroReward(weights: Record<string, number>): Reward {
  return weightedReward(Object.fromEntries(Object.keys(weights).map((k) => [k, 0])), weights);
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function validateRolloutConfig(cfg: RolloutConfig, maxPositions: number): void {
  const errors: string[] = [];
  const posInt = (k: keyof RolloutConfig) => {
    const v = cfg[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) errors.push(`${k} = ${String(v)}: needs an integer ≥ 1`);
  };
  posInt('groupSize');
  posInt('maxTurns');
  posInt('maxNewTokensPerTurn');
  posInt('maxTotalTokens');
  if (cfg.maxTotalTokens > maxPositions) errors.push(`maxTotalTokens = ${cfg.maxTotalTokens}: the model has only ${maxPositions} positions`);
  if (!(cfg.temperature >= 0)) errors.push(`temperature = ${cfg.temperature}: needs ≥ 0`);
  if (errors.length) throw new Error(`Invalid rollout config:\n  ${errors.join('\n  ')}`);
}

/** Plays G episodes of every task; returns the trajectories group-major (task 0's G samples first). Never throws for env or model behaviour. */
export async function rolloutBatch<T extends TaskBase>(req: RolloutRequest<T>): Promise<Trajectory[]> {
  const { family, tokenizer: tok, generator, config: cfg } = req;
  validateRolloutConfig(cfg, generator.maxPositions);
  const fmt: ChatFormatOptions = { enableThinking: cfg.enableThinking };
  const render = req.render ?? defaultRenderer(tok);
  const weights = { ...family.defaultWeights, ...(Object.fromEntries(Object.entries(req.weights ?? {}).filter(([, v]) => v !== undefined)) as Record<string, number>) };
  if (req.groupSeeds && req.groupSeeds.length !== req.tasks.length) throw new Error(`rollout: ${req.groupSeeds.length} group seeds for ${req.tasks.length} tasks`);
  const live: Live[] = [];
  req.tasks.forEach((task, group) => {
    for (let sample = 0; sample < cfg.groupSize; sample++) live.push(startEpisode(req, task, group, sample, render, fmt, weights));
  });

  for (let turn = 0; live.some((e) => e.open); turn++) {
    const open = live.filter((e) => e.open);
    // Room for the sampled tokens plus a forced <|im_end|> and the "\n" the template writes after it.
    const budget = (e: Live) => Math.min(cfg.maxNewTokensPerTurn, cfg.maxTotalTokens - e.seq.ids.length - 2);
    for (const e of open) if (budget(e) < 1) close(e, 'max-tokens', e.lastReward ?? zeroReward(weights));
    // One generate() per distinct budget: usually a single call for the whole batch.
    const buckets = new Map<number, Live[]>();
    for (const e of open.filter((x) => x.open)) buckets.set(budget(e), [...(buckets.get(budget(e)) ?? []), e]);
    const results: [Live, Generation][] = [];
    let bucketIndex = 0;
    for (const [maxNewTokens, rows] of buckets) {
      const rowSeeds = req.groupSeeds && rows.map((e) => mixSeeds(req.groupSeeds![e.traj.group], turn, e.traj.sample));
      const gens = await generator.generate(rows.map((e) => e.seq.ids), { maxNewTokens, stopId: tok.imEndId, seed: mixSeeds(req.seed, turn, bucketIndex++), ...(rowSeeds ? { rowSeeds } : {}) });
      rows.forEach((e, i) => results.push([e, gens[i]]));
    }
    await Promise.all(results.map(([e, g]) => takeTurn(e, g, turn, cfg, tok, fmt, weights)));
  }
  for (const e of live) {
    const decided = e.traj.reward.decidedAt;
    if (decided && e.traj.end !== 'env-error') e.traj.decidedAt = decisionTokens(tok, decided, e.sampled);
  }
  return live.map((e) => e.traj);
}

function startEpisode<T extends TaskBase>(req: RolloutRequest<T>, task: T, group: number, sample: number, render: PromptRenderer, fmt: ChatFormatOptions, weights: Record<string, number>): Live {
  const traj: Trajectory = {
    taskId: task.id, category: task.category, family: task.family, group, sample, // the task's own family: in a mix, req.family is named after its first set
    ids: [], lossMask: [], behaviourLogprobs: [], turnIndex: [],
    reward: zeroReward(weights), turnTotals: [], turnComponents: [], faults: {}, success: false, turns: 0, responseTokens: 0,
    truncated: false, end: 'done', policyVersion: req.policyVersion, messages: [],
  };
  const e: Live = { traj, env: null, seq: { ids: [], assistantMask: [] }, lastReward: null, open: true, sampled: [] };
  try {
    const env = req.family.createEnv({ ...req.limits, maxTurns: req.config.maxTurns }, req.weights);
    const opening = env.reset(task);
    const shown = render(opening.messages, opening.tools);
    e.env = env as Environment<TaskBase>;
    e.seq = encodePrompt(req.tokenizer, shown.messages, shown.tools, fmt);
    traj.messages.push(...opening.messages);
    syncRecords(e);
    if (e.seq.ids.length + 3 > req.config.maxTotalTokens) close(e, 'max-tokens', traj.reward);
  } catch (err) {
    traj.error = `environment ${req.family.name} failed to start task ${task.id}: ${describe(err)}`;
    close(e, 'env-error', traj.reward);
  }
  return e;
}

/** Extends the per-token records to the sequence's length: new tokens are not the policy's. */
function syncRecords(e: Live): void {
  const t = e.traj;
  for (let i = t.ids.length; i < e.seq.ids.length; i++) {
    t.ids.push(e.seq.ids[i]);
    t.lossMask.push(0);
    t.behaviourLogprobs.push(0);
    t.turnIndex.push(-1);
  }
}

function close(e: Live, end: TrajectoryEnd, reward: Reward, info: Record<string, unknown> = {}): void {
  const t = e.traj;
  t.end = end;
  t.truncated ||= end !== 'done';
  t.reward = reward;
  t.success = end === 'done' && episodeSuccess('done', info, reward).success;
  e.open = false;
}

async function takeTurn(e: Live, g: Generation, turn: number, cfg: RolloutConfig, tok: Tokenizer, fmt: ChatFormatOptions, weights: Record<string, number>): Promise<void> {
  const t = e.traj;
  const start = e.seq.ids.length;
  appendAssistantTurn(tok, e.seq, g.tokens, fmt);
  syncRecords(e);
  g.tokens.forEach((_, k) => {
    t.lossMask[start + k] = 1;
    t.behaviourLogprobs[start + k] = g.logprobs[k];
    t.turnIndex[start + k] = turn;
  });
  t.responseTokens += g.tokens.length;
  t.turns++;
  if (g.finishReason === 'length') t.truncated = true; // cut by maxNewTokensPerTurn, even if the env then ends the episode
  const sampled = g.tokens[g.tokens.length - 1] === tok.imEndId ? g.tokens.slice(0, -1) : g.tokens;
  const text = tok.decode(sampled);
  e.sampled.push({ start, tokens: sampled, text });
  t.messages.push(assistantMessage(text));
  let result: StepResult;
  try {
    result = await e.env!.step(text);
  } catch (err) {
    t.error = `environment threw in step ${t.turns} of task ${t.taskId} (environments must not throw): ${describe(err)}`;
    close(e, 'env-error', zeroReward(weights));
    return;
  }
  t.messages.push(...result.messages);
  t.turnTotals.push(result.reward.total);
  t.turnComponents.push({ ...result.reward.components });
  const faults = Array.isArray(result.info.faults) ? new Set(result.info.faults.filter((f): f is string => typeof f === 'string')) : new Set<string>();
  for (const f of faults) t.faults[f] = (t.faults[f] ?? 0) + 1;
  e.lastReward = result.reward;
  // The env enforces maxTurns itself and says so with info.limit (EpisodeLimits' convention).
  if (result.done) return close(e, result.info.limit === 'max-turns' ? 'max-turns' : 'done', result.reward, result.info);
  if (g.finishReason === 'length') return close(e, 'max-tokens', result.reward);
  if (t.turns >= cfg.maxTurns) return close(e, 'max-turns', result.reward);
  const before = e.seq.ids.length;
  appendToolResults(tok, e.seq, result.messages, { ...fmt, addGenerationPrompt: true });
  if (e.seq.ids.length + 3 > cfg.maxTotalTokens) {
    // No room for another turn: drop the replies again (no policy token would follow them).
    e.seq.ids.length = before;
    e.seq.assistantMask.length = before;
    return close(e, 'max-tokens', result.reward);
  }
  syncRecords(e);
}
