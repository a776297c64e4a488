// The environment interface shared by every family (function calling, customer service, coding).
// Modelled on SkyRL / rLLM: reset(task) → messages + tools; step(assistantText) → observation,
// reward components, done. An environment NEVER throws on model output: malformed calls, unknown
// tools, bad arguments and oversized text become observations the model can read, and the matching
// reward component records why.

export type { ChatMessage, JsonSchema, ToolSpec } from '../tokenizer/chatTypes';
import type { ChatMessage, ToolSpec } from '../tokenizer/chatTypes';
import type { Split } from './splits';

export type { Split } from './splits';

/**
 * Reward as named components plus the documented weighted total:
 * total = Σ_k weights[k] · components[k]. Each component lies in [0, 1].
 */
export interface Reward {
  components: Record<string, number>;
  weights: Record<string, number>;
  total: number;
  /**
   * Where a component's value was fixed, for components the environment can place: the assistant
   * turn (0-based) and the character offset in that turn's text after which nothing the agent
   * writes can change it. Component credit (GRPO) leaves a component out of the advantage of the
   * tokens after its point. An environment that cannot place a component leaves it out.
   */
  decidedAt?: Record<string, ComponentDecision>;
}

/** A reward component's decision point: assistant turn `turn` (0-based), text characters [0, char) of it. */
export interface ComponentDecision {
  turn: number;
  char: number;
}

export interface ResetResult {
  /** Opening messages (system prompt with policy, first user turn). */
  messages: ChatMessage[];
  /** Tools the agent may call this episode. */
  tools: ToolSpec[];
}

export interface StepResult {
  /** New messages to append after the assistant turn (tool results, simulated-user replies). */
  messages: ChatMessage[];
  /** Reward so far; final when `done`. Intermediate steps may report partial components. */
  reward: Reward;
  /** True when the episode has ended (final answer, submit, user ended, or a limit hit). */
  done: boolean;
  /** Diagnostics: parse errors, tool errors, which limit ended the episode, `faults` (StepFault[]), etc. */
  info: Record<string, unknown>;
}

/**
 * Faults a step reports in `info.faults` (each at most once per step), the same names in every
 * family so that RL and evaluation metrics count them alike (`faults/<name>`: share of episodes with
 * at least one). None of them ends a run: the step answers with an observation and the episode
 * goes on (or ends, with the reward components of what was done).
 */
export const STEP_FAULTS = [
  'malformed-call', // a <tool_call> block that does not parse
  'tool-error', // a call that parsed but was refused or failed: unknown tool, bad arguments, a rule of the tool
  'no-tool-call', // a turn that needed a call and made none (coding)
  'user-confused', // the simulated user could not read a request or an answer in the agent's text
  'user-gave-up', // the simulated user ended the conversation as stuck
  'sandbox-timeout', // code ran past its time or memory limit
  'sandbox-error', // the sandbox itself failed; the code was not run
] as const;
export type StepFault = (typeof STEP_FAULTS)[number];

/** Per-episode limits every environment enforces. */
export interface EpisodeLimits {
  /** Maximum assistant turns before the episode is cut (done with info.limit = 'max-turns'). */
  maxTurns: number;
  /** Maximum characters of one tool output returned to the model (truncated with a marker). */
  maxToolOutputChars: number;
}

export const DEFAULT_LIMITS: EpisodeLimits = { maxTurns: 8, maxToolOutputChars: 2000 };

/** A task knows its family and a stable id; the generator makes the same task from the same seed. */
export interface TaskBase {
  family: 'function-calling' | 'service' | 'coding';
  id: string;
  /** Family-specific category (e.g. BFCL 'simple' | 'multiple' | 'parallel' | …). */
  category: string;
}

export interface Environment<T extends TaskBase = TaskBase> {
  readonly family: T['family'];
  reset(task: T): ResetResult;
  step(assistantText: string): Promise<StepResult>;
}

/** A policy maps the conversation so far to the next assistant text. */
export type Policy = (messages: ChatMessage[], tools: ToolSpec[]) => Promise<string>;

/** What each family exports so the data, eval and RL code can treat families alike. */
export interface EnvFamily<T extends TaskBase = TaskBase> {
  readonly name: T['family'];
  /**
   * Deterministic: the same (seed, index, split) gives the same task. The splits are disjoint by
   * construction (src/envs/splits.ts): train for SFT and RL, validation for choosing settings and
   * for curves, test for the reported figure.
   */
  generateTask(seed: number, index: number, split: Split): T;
  createEnv(limits?: Partial<EpisodeLimits>, weights?: Partial<Record<string, number>>): Environment<T>;
  /** An expert that solves the task (reads the task's hidden solution); reaches full reward. */
  expertPolicy(task: T, seed: number): Policy;
  /** Default reward weights, documented in the family's module. */
  readonly defaultWeights: Record<string, number>;
}

/** Weighted sum helper: total = Σ weights[k] · components[k] over components present in weights. */
export function weightedReward(components: Record<string, number>, weights: Record<string, number>): Reward {
  let total = 0;
  for (const [k, w] of Object.entries(weights)) total += w * (components[k] ?? 0);
  return { components: { ...components }, weights: { ...weights }, total };
}

/** Truncates a tool output to `max` characters with a visible marker saying how much was cut. */
export function truncateOutput(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n…[truncated ${text.length - max} characters]`;
}
