// The coding episode: the agent reads a specification and examples, calls run_tests(code) as often
// as it likes, and ends with submit(code), which is graded on hidden tests. step() never throws on
// model output: malformed calls, unknown tools, missing or oversized `code`, text after the end —
// each becomes an observation the model can read and is recorded in the reward's components.
import { parseToolCalls, type ToolCall } from '../../tokenizer/toolCalls';
import { DEFAULT_LIMITS, truncateOutput, weightedReward, type ChatMessage, type Environment, type EpisodeLimits, type ResetResult, type Reward, type StepFault, type StepResult } from '../types';
import { CODING_TOOLS, RUN_TESTS, SUBMIT, runTestsObservation, submitObservation, systemPrompt, taskMessage } from './prompts';
import { runInSandbox } from './sandbox/index';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, type SandboxResult, type SandboxRunner, type SandboxTest } from './sandbox/types';
import type { CodingTask, CodingTest } from './types';
import { defined } from '../../util/defined';

/**
 * Default reward weights; total = Σ weight · component, each component in [0, 1], so total ∈ [0, 1].
 * Every component pays only for progress: the shaping terms (compiles, format) pay only when the
 * submission passes at least one hidden test, so an agent that does nothing, talks, only runs
 * examples, or submits a stub that defines the function but solves nothing scores 0.
 * - tests_passed 0.6: fraction of hidden tests the submitted code passes (0 without a submission);
 *   the dense signal GRPO needs to tell a half-right program from a wrong one.
 * - success 0.2: 1 when every hidden test passes — a bonus that separates "all" from "almost all".
 * - compiles 0.1: the submitted code parsed, its top level ran, it defined the function, and it
 *   passed at least one hidden test.
 * - format 0.1: fraction of assistant turns that were well-formed tool calls (tags parse, a known
 *   tool, exactly the string argument `code`), when the submission passed at least one hidden test;
 *   small, because it is easy and learned first.
 */
export const DEFAULT_CODING_WEIGHTS: Readonly<Record<string, number>> = { tests_passed: 0.6, success: 0.2, compiles: 0.1, format: 0.1 };

/** Code longer than this is refused without running (a 1 MB blob is an error, not a program). */
export const DEFAULT_MAX_CODE_CHARS = 20_000;
/** At most this many calls of one turn are run; the rest get one error message. */
export const MAX_CALLS_PER_TURN = 4;
const MAX_NAME_CHARS = 64; // a tool message's `name` echoes the model's call name, capped

/** Everything a coding environment can be configured with. */
export interface CodingEnvOptions {
  /** Turn and tool-output limits (DEFAULT_LIMITS where absent). */
  limits?: Partial<EpisodeLimits>;
  /** Reward weights (DEFAULT_CODING_WEIGHTS where absent). */
  weights?: Partial<Record<string, number>>;
  /** Runs code against tests; defaults to runInSandbox (Node or browser back-end). */
  sandbox?: SandboxRunner;
  /** Time, memory and output limits of each sandbox run. */
  sandboxLimits?: Partial<SandboxLimits>;
  /** Longest accepted `code` argument in characters (DEFAULT_MAX_CODE_CHARS). */
  maxCodeChars?: number;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class CodingEnv implements Environment<CodingTask> {
  readonly family = 'coding' as const;
  private readonly limits: EpisodeLimits;
  private readonly weights: Record<string, number>;
  private readonly sandbox: SandboxRunner;
  private readonly sandboxLimits: SandboxLimits;
  private readonly maxCodeChars: number;
  private task: CodingTask | null = null;
  private turns = 0;
  private wellFormedTurns = 0;
  private done = false;
  /** The graded submission, once there is one. */
  private submission: SandboxResult | null = null;

  constructor(options: CodingEnvOptions = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...defined(options.limits) };
    this.weights = { ...DEFAULT_CODING_WEIGHTS, ...(defined(options.weights) as Record<string, number>) };
    this.sandbox = options.sandbox ?? runInSandbox;
    this.sandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...defined(options.sandboxLimits) };
    this.maxCodeChars = options.maxCodeChars ?? DEFAULT_MAX_CODE_CHARS;
  }

  reset(task: CodingTask): ResetResult {
    this.task = task;
    this.turns = 0;
    this.wellFormedTurns = 0;
    this.done = false;
    this.submission = null;
    const messages: ChatMessage[] = [
      { role: 'system', content: systemPrompt(this.sandboxLimits, this.limits.maxTurns, this.maxCodeChars) },
      { role: 'user', content: taskMessage(task) },
    ];
    return { messages, tools: structuredClone(CODING_TOOLS) };
  }

  async step(assistantText: string): Promise<StepResult> {
    try {
      return await this.stepUnsafe(assistantText);
    } catch (e) {
      // Defensive: a bug here must not kill a rollout; end the episode and say why.
      this.done = true;
      return { messages: [], reward: this.reward(), done: true, info: { error: `internal environment error: ${errorText(e)}` } };
    }
  }

  private async stepUnsafe(assistantText: unknown): Promise<StepResult> {
    const task = this.task;
    if (task === null) {
      return { messages: [], reward: this.reward(), done: true, info: { error: 'step() was called before reset(task): reset the environment with a task first' } };
    }
    if (this.done) {
      const note = 'The episode has already ended; nothing more is run. (Start a new episode with reset.)';
      return { messages: [{ role: 'user', content: note }], reward: this.reward(), done: true, info: { error: 'text after the end of the episode', success: this.success() } };
    }
    const text = typeof assistantText === 'string' ? assistantText : String(assistantText ?? '');
    this.turns++;
    const max = this.limits.maxToolOutputChars;
    const parsed = parseToolCalls(text);
    const messages: ChatMessage[] = [];
    const issues: string[] = parsed.errors.map((e) => e.message);
    const info: Record<string, unknown> = { turn: this.turns };
    const faults = new Set<StepFault>();
    if (parsed.errors.length > 0) faults.add('malformed-call');

    if (parsed.errors.length > 0) {
      messages.push({ role: 'tool', content: truncateOutput(`Error: ${issues.join('; ')}. Write each call as <tool_call>{"name": "${RUN_TESTS}", "arguments": {"code": "..."}}</tool_call>.`, max) });
    }
    if (parsed.calls.length === 0 && parsed.errors.length === 0) {
      issues.push('no tool call');
      faults.add('no-tool-call');
      messages.push({ role: 'user', content: `No tool call found. Call ${RUN_TESTS} to check your code or ${SUBMIT} to hand it in, with {"code": "<your JavaScript>"}.` });
    }
    const calls = parsed.calls.slice(0, MAX_CALLS_PER_TURN);
    for (const call of calls) {
      const problem = this.argumentProblem(call);
      if (problem !== null && problem.format) issues.push(problem.message);
      if (problem !== null) faults.add('tool-error');
      if (this.done) {
        messages.push({ role: 'tool', name: call.name.slice(0, MAX_NAME_CHARS), content: `Not run: the episode ended at ${SUBMIT}.` });
        continue;
      }
      messages.push(await this.runCall(task, call, problem?.message ?? null, info));
    }
    if (parsed.calls.length > MAX_CALLS_PER_TURN) {
      issues.push('too many calls');
      messages.push({ role: 'tool', content: `Error: ${parsed.calls.length - MAX_CALLS_PER_TURN} calls beyond the first ${MAX_CALLS_PER_TURN} were not run; make one call per turn.` });
    }
    if (issues.length === 0) this.wellFormedTurns++;
    info.formatIssues = issues;
    if (info.sandboxError !== undefined) faults.add('sandbox-error');
    if (info.sandboxLimit !== undefined) faults.add('sandbox-timeout');
    info.faults = [...faults];

    if (!this.done && this.turns >= this.limits.maxTurns) {
      this.done = true;
      info.limit = 'max-turns';
      messages.push({ role: 'user', content: `Turn limit (${this.limits.maxTurns}) reached without a submission; the episode is over.` });
    }
    info.success = this.success();
    return { messages: messages.map((m) => ({ ...m, content: truncateOutput(m.content, max) })), reward: this.reward(), done: this.done, info };
  }

  /** What is wrong with a call's name or arguments (format problems count against the format reward). */
  private argumentProblem(call: ToolCall): { message: string; format: boolean } | null {
    if (call.name !== RUN_TESTS && call.name !== SUBMIT) {
      return { message: `Error: unknown tool "${call.name.slice(0, MAX_NAME_CHARS)}". Available tools: ${RUN_TESTS}, ${SUBMIT}.`, format: true };
    }
    const code = call.arguments.code;
    if (typeof code !== 'string' || code.trim() === '') {
      return { message: `Error: ${call.name} needs the argument "code": a non-empty string with your JavaScript.`, format: true };
    }
    const extra = Object.keys(call.arguments).filter((k) => k !== 'code');
    if (extra.length > 0) return { message: `Error: ${call.name} takes only "code"; remove ${extra.slice(0, 5).map((k) => `"${k.slice(0, 40)}"`).join(', ')}.`, format: true };
    if (code.length > this.maxCodeChars) {
      return { message: `Error: the code is ${code.length} characters long; the limit is ${this.maxCodeChars}. Submit a shorter solution.`, format: false };
    }
    return null;
  }

  /** Runs one call (or explains why not) and returns its tool message. */
  private async runCall(task: CodingTask, call: ToolCall, problem: string | null, info: Record<string, unknown>): Promise<ChatMessage> {
    const name = call.name.slice(0, MAX_NAME_CHARS);
    if (problem !== null) return { role: 'tool', name, content: problem };
    const code = call.arguments.code as string;
    const submit = call.name === SUBMIT;
    const tests = toSandboxTests(task.entry, submit ? task.hiddenTests : task.publicTests);
    let result: SandboxResult;
    try {
      result = await this.sandbox(code, tests, this.sandboxLimits);
    } catch (e) {
      // The sandbox itself failed (not the code): say so; a failed submit still ends the episode.
      info.sandboxError = errorText(e);
      if (submit) this.done = true;
      return { role: 'tool', name, content: `Error: the sandbox failed (${errorText(e)}); the code was not run.` };
    }
    if (result.status === 'crashed') info.sandboxError = result.error;
    if (result.status === 'timeout' || result.status === 'memory-exceeded') info.sandboxLimit = result.status;
    if (!submit) {
      info.publicPassed = result.passed;
      info.publicTotal = tests.length;
      return { role: 'tool', name, content: runTestsObservation(result) };
    }
    this.submission = result;
    this.done = true;
    info.hiddenPassed = result.passed;
    info.hiddenTotal = tests.length;
    info.sandboxStatus = result.status;
    return { role: 'tool', name, content: submitObservation(result) };
  }

  private success(): boolean {
    const s = this.submission;
    return s !== null && s.tests.length > 0 && s.passed === s.tests.length;
  }

  private reward(): Reward {
    const s = this.submission;
    const testsPassed = s && s.tests.length > 0 ? s.passed / s.tests.length : 0;
    const progress = testsPassed > 0; // the shaping terms pay only alongside a passing hidden test
    const components = {
      format: progress && this.turns > 0 ? this.wellFormedTurns / this.turns : 0,
      compiles: progress && s?.compiled ? 1 : 0,
      tests_passed: testsPassed,
      success: this.success() ? 1 : 0,
    };
    return weightedReward(components, this.weights);
  }
}

/** The task's tests in the sandbox's form. */
export function toSandboxTests(entry: string, tests: CodingTest[]): SandboxTest[] {
  return tests.map((t) => ({ entry, args: t.args, expected: t.expected }));
}
