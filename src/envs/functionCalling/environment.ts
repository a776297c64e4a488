// The function-calling episode: system + user request → assistant turns. A turn with calls gets
// one `tool` message per call (a simulated result, or an error the model can read); a turn
// without calls is the final answer and ends the episode. Rewards follow BFCL single-turn
// semantics: the calls of the FIRST assistant turn that makes calls are scored (scoring.ts),
// plus the format of every turn. Every component pays only for a step toward the task, so an agent
// that does nothing (no reply, "ok", no call where one is needed) scores 0. step() never throws.
import { callTagOverflow, parseToolCalls, type ParsedAssistantMessage, type ToolCall } from '../../tokenizer/toolCalls';
import { DEFAULT_LIMITS, truncateOutput, weightedReward, type ChatMessage, type Environment, type EpisodeLimits, type Reward, type StepResult } from '../types';
import { validateCall } from './argumentValidation';
import { formatIssues, isRealTextAnswer, MIN_ANSWER_WORDS } from './formatCheck';
import { functionNamesDecidedAt } from './nameDecision';
import { scoreCalls, type CallComponents } from './scoring';
import { simulateCall } from './simulateCall';
import type { FunctionCallingTask } from './types';
import { defined as definedEntries } from '../../util/defined';

/**
 * Default reward weights; total = Σ weight · component, each component in [0, 1], so total ∈ [0, 1]:
 * - format 0.1: every assistant turn well-formed (all <tool_call> blocks parse; a no-call turn is a
 *   clean non-empty text answer) AND the episode made the task's kind of move: a parsed call (tasks
 *   that need calls) or a real text answer (irrelevance). 0 after any malformed turn, and 0 for a
 *   clean "ok" that calls nothing. Not gated on the right function: that would tie format to the
 *   name decision and bring the routing noise back into the argument tokens under component credit.
 * - function_choice 0.2: the first calling turn called the right function names (multiset overlap
 *   ÷ max(#expected, #called)); irrelevance: 1 iff the episode made no call attempt and its final
 *   reply is a well-formed, real text answer (formatCheck.ts isRealTextAnswer: ≥ 3 distinct words,
 *   so "", "ok" or "yes" earn nothing); the same holds for arguments and exact_match.
 * - arguments 0.2: share of expected parameters right in the best call matching (omission counts
 *   where the ground truth allows ""; unexpected parameters and extra calls dilute it).
 * - exact_match 0.5: BFCL's AST checker accepts the first calling turn (right count, names,
 *   required and no unknown parameters, types, values; parallel calls in any order).
 * success = exact_match, for every task (the routing set too): the whole call is right, as BFCL
 *   counts it; function_choice stays a reported component.
 * Irrelevance is BFCL's: an agent that never calls but always writes a sentence (a polite decline)
 *   solves every irrelevance task and nothing else, so reports show results per category beside
 *   that baseline.
 * Decision point (Reward.decidedAt, for GRPO's component credit): function_choice is fixed once the
 *   first calling turn has closed its last call's "name" string (nameDecision.ts). Exact for the
 *   names written so far; a further call later in the same turn would also change it — a path the
 *   credit ignores (the routing set's calls are single). The other components are not placed.
 */
export const DEFAULT_WEIGHTS: Readonly<Record<string, number>> = { format: 0.1, function_choice: 0.2, arguments: 0.2, exact_match: 0.5 };

/** At most this many calls of one turn are executed; further ones get one error message. */
export const MAX_CALLS_PER_TURN = 16;
const MAX_NAME_CHARS = 64; // a tool message's `name` echoes the model's call name, capped
/** Only the text before the (N+1)-th call tag (<tool_call> or </tool_call>) is parsed: the shared parser rescans the rest of the text per unmatched tag (quadratic). */
export const MAX_CALL_TAGS_PARSED = 128;
const MAX_ERRORS_SHOWN = 5; // parse errors quoted in one observation

/** Parses the reply, reading at most MAX_CALL_TAGS_PARSED call tags; the cut is reported as a parse error. */
function parseBounded(text: string): ParsedAssistantMessage {
  const cut = callTagOverflow(text, MAX_CALL_TAGS_PARSED);
  if (cut === null) return parseToolCalls(text);
  const parsed = parseToolCalls(text.slice(0, cut));
  const message = `more than ${MAX_CALL_TAGS_PARSED} <tool_call>/</tool_call> tags; only the first ${MAX_CALL_TAGS_PARSED} were read`;
  return { ...parsed, attemptedCall: true, errors: [{ kind: 'unclosed-tag', index: -1, message }, ...parsed.errors] };
}

const ZERO_CALLS: CallComponents = { function_choice: 0, arguments: 0, exact_match: 0 };

export class FunctionCallingEnv implements Environment<FunctionCallingTask> {
  readonly family = 'function-calling' as const;
  private readonly limits: EpisodeLimits;
  private readonly weights: Record<string, number>;
  private task: FunctionCallingTask | null = null;
  private turns = 0;
  private done = false;
  private formatOk = true;
  private attemptedAnyCall = false;
  /** The final text answer (the no-call turn that ended the episode); null before it. */
  private finalAnswer: string | null = null;
  /** The first calling turn's calls; `turn` (0-based) and `namesEnd` (its function names' decision point, null if not placeable) for component credit. */
  private firstCalls: { calls: ToolCall[]; clean: boolean; turn: number; namesEnd: number | null } | null = null;

  constructor(limits: Partial<EpisodeLimits> = {}, weights: Partial<Record<string, number>> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...definedEntries(limits) };
    this.weights = { ...DEFAULT_WEIGHTS, ...(definedEntries(weights) as Record<string, number>) };
  }

  reset(task: FunctionCallingTask) {
    this.task = task;
    this.turns = 0;
    this.done = false;
    this.formatOk = true;
    this.attemptedAnyCall = false;
    this.finalAnswer = null;
    this.firstCalls = null;
    const messages: ChatMessage[] = [{ role: 'system', content: task.system }, ...task.question.map((m) => ({ ...m }))];
    return { messages, tools: task.tools.map((t) => structuredClone(t)) };
  }

  async step(assistantText: string): Promise<StepResult> {
    try {
      return this.stepUnsafe(assistantText);
    } catch (e) {
      // Defensive: a bug here must not kill a rollout; end the episode and say why. The reward is
      // computed from the same state that just failed, so it may fail too: then it is zero.
      this.done = true;
      let reward: Reward;
      try {
        reward = this.reward();
      } catch {
        reward = weightedReward({ format: 0, ...ZERO_CALLS }, this.weights);
      }
      return { messages: [], reward, done: true, info: { error: `internal environment error: ${e instanceof Error ? e.message : String(e)}` } };
    }
  }

  private stepUnsafe(assistantText: unknown): StepResult {
    const task = this.task;
    if (task === null) {
      return { messages: [], reward: weightedReward({ format: 0, ...ZERO_CALLS }, this.weights), done: true, info: { error: 'step() was called before reset(task): reset the environment with a task first' } };
    }
    if (this.done) {
      return { messages: [], reward: this.reward(), done: true, info: { error: 'the episode has already ended; further assistant text is ignored (call reset(task) to start again)', success: this.success() } };
    }
    const text = typeof assistantText === 'string' ? assistantText : String(assistantText ?? '');
    this.turns++;
    const parsed = parseBounded(text);
    const issues = formatIssues(parsed);
    // A single-turn task that needs a call has no text-answer exit: without this, "any clean text"
    // earned the format reward and GRPO drifted to answering without calling (seen in the demo).
    if (task.singleTurn && task.check !== 'irrelevance' && !parsed.attemptedCall) issues.push('this single-turn task needs a tool call, but the reply makes none');
    if (issues.length > 0) this.formatOk = false;
    const info: Record<string, unknown> = { turn: this.turns, formatIssues: issues, parseErrors: parsed.errors.map((e) => e.message) };
    const messages: ChatMessage[] = [];
    const max = this.limits.maxToolOutputChars;
    if (parsed.attemptedCall) {
      this.attemptedAnyCall = true;
      const clean = parsed.errors.length === 0;
      this.firstCalls ??= { calls: parsed.calls, clean, turn: this.turns - 1, namesEnd: clean ? functionNamesDecidedAt(text) : null };
      if (parsed.errors.length > 0) {
        const shown = parsed.errors.slice(0, MAX_ERRORS_SHOWN).map((e) => e.message);
        const more = parsed.errors.length - shown.length;
        const detail = more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
        messages.push({ role: 'tool', content: truncateOutput(`Error: ${detail}. Write each call as <tool_call>{"name": "...", "arguments": {...}}</tool_call>.`, max) });
      }
      const toolErrors: string[] = [];
      for (const call of parsed.calls.slice(0, MAX_CALLS_PER_TURN)) {
        const name = call.name.slice(0, MAX_NAME_CHARS);
        const validation = validateCall(task.tools, call);
        if (validation.errors.length > 0) {
          const message = `Error calling ${name}: ${validation.errors.join('; ')}.`;
          toolErrors.push(message);
          messages.push({ role: 'tool', name, content: truncateOutput(message, max) });
        } else {
          messages.push({ role: 'tool', name, content: truncateOutput(simulateCall(task.resultSeed, call), max) });
        }
      }
      if (parsed.calls.length > MAX_CALLS_PER_TURN) {
        messages.push({ role: 'tool', content: `Error: ${parsed.calls.length - MAX_CALLS_PER_TURN} calls beyond the first ${MAX_CALLS_PER_TURN} were not run; make fewer calls per turn.` });
      }
      info.toolErrors = toolErrors;
      if (task.singleTurn) this.done = true;
    } else {
      this.done = true;
      this.finalAnswer = parsed.content;
      info.finalAnswer = truncateOutput(parsed.content, max);
    }
    if (!this.done && this.turns >= this.limits.maxTurns) {
      this.done = true;
      info.limit = 'max-turns';
    }
    const verdict = this.callVerdict();
    info.checkErrors = verdict.errors;
    info.success = this.successOf(verdict.components);
    return { messages, reward: this.reward(), done: this.done, info };
  }

  /** Call-level components of the episode so far, with the checker's explanation. */
  private callVerdict(): { components: CallComponents; errors: string[] } {
    const task = this.task;
    if (task === null) return { components: { ...ZERO_CALLS }, errors: [] };
    if (task.check === 'irrelevance') {
      if (this.attemptedAnyCall) return { components: { ...ZERO_CALLS }, errors: ['a call was attempted, but no offered function fits the request'] };
      // A garbled reply (misspelt tags, bare call JSON, empty) is not the clean text answer irrelevance asks for.
      if (!this.formatOk) return { components: { ...ZERO_CALLS }, errors: ['the reply is not a clean text answer'] };
      if (this.finalAnswer === null || !isRealTextAnswer(this.finalAnswer)) {
        return { components: { ...ZERO_CALLS }, errors: [`the reply is not a real text answer (at least ${MIN_ANSWER_WORDS} distinct words)`] };
      }
    }
    const first = this.firstCalls;
    const verdict = scoreCalls(task, first?.calls ?? []);
    if (first !== null && !first.clean && verdict.components.exact_match === 1) {
      return { components: { ...verdict.components, exact_match: 0 }, errors: ['the first calling turn also contained malformed tool calls'] };
    }
    return verdict;
  }

  private success(): boolean {
    return this.successOf(this.callVerdict().components);
  }

  /** The whole call right (BFCL's exact match), for every task. */
  private successOf(calls: CallComponents): boolean {
    return calls.exact_match === 1;
  }

  private reward(): Reward {
    const calls = this.callVerdict().components;
    // format pays only alongside the task's kind of move (see DEFAULT_WEIGHTS).
    const moved = this.task?.check === 'irrelevance' ? calls.function_choice === 1 : (this.firstCalls?.calls.length ?? 0) > 0;
    const format = this.formatOk && moved ? 1 : 0;
    const reward = weightedReward({ format, ...calls }, this.weights);
    // function_choice judges only the first calling turn's names (irrelevance: the absence of any call, never fixed early)
    const first = this.firstCalls;
    if (this.task?.check !== 'irrelevance' && first !== null && first.namesEnd !== null) reward.decidedAt = { function_choice: { turn: first.turn, char: first.namesEnd } };
    return reward;
  }
}
