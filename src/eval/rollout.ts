// The multi-turn loop shared by evaluation and SFT data synthesis (verl's tool_agent_loop, on text):
//   env.reset(task) → while not done: policy(messages, tools) → assistant text → env.step(text)
//   → append the assistant message and the environment's replies.
// It never throws for anything a policy or an environment does: a throwing policy, a non-string
// reply, a throwing env or an env that never ends all end the episode as a failure with the error
// recorded, so one bad sample cannot kill an evaluation or a data run.
//
// How an assistant turn is stored (the project's convention, see src/tokenizer/chatTemplate.ts):
//   content    = the policy's raw text, verbatim, <tool_call> blocks included;
//   tool_calls = the calls that parsed, in OpenAI shape, as metadata (absent when none parsed).
// TabForge's Qwen3 template renders an assistant message whose content already holds <tool_call>
// from its content alone, so rendering reproduces exactly the text the policy produced (what a
// rollout's tokens were). The HF export (src/data/chatJsonl.ts) converts to the other convention.
import { parseToolCalls } from '../tokenizer/toolCalls';
import { weightedReward, type ChatMessage, type EnvFamily, type Environment, type EpisodeLimits, type Policy, type Reward, type TaskBase, type ToolSpec } from '../envs/types';

/** A total at or above this counts as full reward (weighted sums of 1s can land on 0.9999999999999999). */
export const FULL_REWARD_TOTAL = 0.999;

/** Assistant turns after which the loop gives up on an environment that never reports done. */
export const DEFAULT_TURN_CAP = 256;

/** Options of one episode. */
export interface RolloutOptions {
  /** Overrides of the environment's limits; unset fields keep the FAMILY's defaults (service allows 16 turns, others 8). */
  limits?: Partial<EpisodeLimits>;
  /** Overrides of the family's reward weights. */
  weights?: Partial<Record<string, number>>;
  /** Seed the policy was built with; recorded in the episode so it can be replayed. */
  seed?: number;
  /** Safety cap on assistant turns for environments that never end (default DEFAULT_TURN_CAP). */
  turnCap?: number;
}

/**
 * Why the loop stopped:
 * - done: the environment reported done (the only way to succeed);
 * - policy-error: the policy threw or returned something that is not a string;
 * - env-error: reset() or step() threw, which the interface forbids (an environment bug);
 * - turn-cap: the environment never reported done within `turnCap` turns (an environment bug).
 */
export type EpisodeEnd = 'done' | 'policy-error' | 'env-error' | 'turn-cap';

/** Where `success` came from (see episodeSuccess). */
export type SuccessSource = 'env' | 'total';

/** One finished episode: everything evaluation, data synthesis and the trajectory viewer need. */
export interface Episode {
  /** Family that produced it ('function-calling' | 'service' | 'coding'). */
  family: TaskBase['family'];
  /** The task's stable id. */
  taskId: string;
  /** The task's family-specific category (per-category reports). */
  category: string;
  /** Seed the policy was built with (RolloutOptions.seed; 0 when not given). */
  seed: number;
  /** The whole conversation: reset's opening messages, then per turn the assistant message and the env's replies. */
  messages: ChatMessage[];
  /** Tools offered in this episode (OpenAI-style schemas, as reset returned them). */
  tools: ToolSpec[];
  /** Final reward: the environment's last reward when end = 'done'; all components 0 otherwise. */
  reward: Reward;
  /** The environment's last reported reward whatever the end (null when no step ran); for diagnostics only. */
  lastEnvReward: Reward | null;
  /** Solved? end = 'done' and the family's own verdict (see episodeSuccess). */
  success: boolean;
  /** 'env' when the environment reported info.success, 'total' when the full-reward rule decided. */
  successSource: SuccessSource;
  /** Assistant turns taken (policy calls that returned text). */
  turns: number;
  /** Why the loop stopped. */
  end: EpisodeEnd;
  /** What went wrong when end ≠ 'done' (says who failed and how). */
  error?: string;
  /** The final step's info (parse errors, limits, end reasons…); {} when no step ran. */
  info: Record<string, unknown>;
  /** The info of every step, in turn order. */
  stepInfos: Record<string, unknown>[];
}

/**
 * The success rule, the same for every family: an episode succeeds only if the environment ended
 * it (end = 'done'), and then by the family's own verdict when its final step reports a boolean
 * `info.success` (function calling: exact_match = 1; service: outcome = 1; coding: all tests
 * passed), else by full reward (total ≥ FULL_REWARD_TOTAL) for families that report none.
 */
export function episodeSuccess(end: EpisodeEnd, info: Record<string, unknown>, reward: Reward): { success: boolean; source: SuccessSource } {
  if (typeof info.success === 'boolean') return { success: end === 'done' && info.success, source: 'env' };
  return { success: end === 'done' && reward.total >= FULL_REWARD_TOTAL, source: 'total' };
}

/** The assistant message for raw policy text: content verbatim, parsed calls as OpenAI-shape metadata. */
export function assistantMessage(text: string): ChatMessage {
  const message: ChatMessage = { role: 'assistant', content: text };
  const { calls } = parseToolCalls(text);
  if (calls.length > 0) message.tool_calls = calls.map((c) => ({ type: 'function', function: { name: c.name, arguments: c.arguments } }));
  return message;
}

/** Every weighted component at 0: the reward of an episode that did not end properly. */
function zeroReward(weights: Record<string, number>): Reward {
  return weightedReward(Object.fromEntries(Object.keys(weights).map((k) => [k, 0])), weights);
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Plays one episode of `task` with `policy`. Never throws (see the file comment). */
export async function runEpisode<T extends TaskBase>(family: EnvFamily<T>, task: T, policy: Policy, opts: RolloutOptions = {}): Promise<Episode> {
  const definedWeights = Object.fromEntries(Object.entries(opts.weights ?? {}).filter(([, v]) => v !== undefined)) as Record<string, number>;
  const weights = { ...family.defaultWeights, ...definedWeights };
  const turnCap = opts.turnCap ?? DEFAULT_TURN_CAP;
  const messages: ChatMessage[] = [];
  const stepInfos: Record<string, unknown>[] = [];
  let tools: ToolSpec[] = [];
  let lastEnvReward: Reward | null = null;
  let turns = 0;
  let end: EpisodeEnd | null = null;
  let error: string | undefined;

  let env: Environment<T> | null = null;
  try {
    env = family.createEnv(opts.limits, opts.weights);
    const opening = env.reset(task);
    messages.push(...opening.messages);
    tools = opening.tools;
  } catch (e) {
    end = 'env-error';
    error = `environment ${family.name} failed to start task ${task.id}: ${describe(e)}`;
  }

  while (end === null && env !== null) {
    if (turns >= turnCap) {
      end = 'turn-cap';
      error = `environment ${family.name} did not end task ${task.id} after ${turnCap} assistant turns: it must enforce its maxTurns limit`;
      break;
    }
    let text: unknown;
    try {
      // The policy gets copies: it must not be able to rewrite the history the env is judged on.
      text = await policy(structuredClone(messages), structuredClone(tools));
    } catch (e) {
      end = 'policy-error';
      error = `policy threw on turn ${turns + 1}: ${describe(e)}`;
      break;
    }
    if (typeof text !== 'string') {
      end = 'policy-error';
      error = `policy returned ${text === null ? 'null' : typeof text} on turn ${turns + 1}; a policy must resolve to the assistant's text (a string)`;
      break;
    }
    turns++;
    messages.push(assistantMessage(text));
    try {
      const result = await env.step(text);
      messages.push(...result.messages);
      stepInfos.push(result.info);
      lastEnvReward = result.reward;
      if (result.done) end = 'done';
    } catch (e) {
      end = 'env-error';
      error = `environment ${family.name} threw in step ${turns} of task ${task.id} (environments must not throw): ${describe(e)}`;
    }
  }

  const finalEnd: EpisodeEnd = end ?? 'env-error';
  const info = stepInfos.at(-1) ?? {};
  const reward = finalEnd === 'done' && lastEnvReward !== null ? lastEnvReward : zeroReward(weights);
  const { success, source } = episodeSuccess(finalEnd, info, reward);
  const episode: Episode = {
    family: family.name,
    taskId: task.id,
    category: task.category,
    seed: opts.seed ?? 0,
    messages,
    tools,
    reward,
    lastEnvReward,
    success,
    successSource: source,
    turns,
    end: finalEnd,
    info,
    stepInfos,
  };
  if (error !== undefined) episode.error = error;
  return episode;
}
