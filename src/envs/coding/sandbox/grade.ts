// Host-side half of a sandbox run, shared by both back-ends: reads the JSON messages the sandbox
// sends, compares returned values with the expected ones (which never enter the sandbox), and
// assembles the SandboxResult with one readable message per test.
import type { SandboxLimits, SandboxResult, SandboxStatus, SandboxTest, SandboxTestResult } from './types';

/** What a sandbox sends to the host, one JSON text per message (see harnessSource.ts). */
export type SandboxMessage =
  | { t: 'loaded'; ok: boolean; kind?: 'syntax' | 'runtime' | 'timeout' | 'missing-entry'; error?: string; out?: string; trunc?: boolean }
  | { t: 'call'; i: number; ms?: number; ok: boolean; plain?: boolean; text?: string; error?: string; out?: string; trunc?: boolean }
  | { t: 'output'; out?: string; trunc?: boolean }
  | { t: 'returned' } // the code's synchronous part (load + every test) returned; only queued work may remain
  | { t: 'done'; stop?: 'timeout' }
  | { t: 'fatal'; error: string };

/** How the host saw the run end. */
export type RunEnding =
  | { kind: 'done' } // the sandbox said it finished (or stopped at its own time limit)
  | { kind: 'timeout' } // the time budget ran out
  | { kind: 'memory' } // the memory limit was hit
  | { kind: 'crashed'; error: string }; // anything else: could not start, died, refused to run, broke a host-side limit

/**
 * After the code returned from its last test, this much more time (Node: CPU time of the sandbox
 * process; browser: wall time) is allowed for the sandbox to finish. Honest code needs a few ms;
 * code that left a loop in a promise callback is stopped here instead of at the full time limit.
 */
export const SETTLE_CPU_MS = 100;
/** Wall-time settle window where CPU time cannot be read (browser; Node without /proc): generous, since a busy host reads late. */
export const SETTLE_WALL_MS = 1000;

/** Longest text of one returned value the harness renders (both back-ends). */
export const MAX_RESULT_CHARS = 2000;

/**
 * Host-side caps on what one run may send, whatever the sandbox claims: the harness never comes
 * near them (its own caps are maxOutputChars and MAX_RESULT_CHARS); a sandbox past them is broken
 * or compromised and is stopped. JSON escapes cost up to 6 characters per character.
 */
export function messageCaps(tests: number, limits: SandboxLimits): { maxMessageChars: number; maxTotalChars: number; maxMessages: number } {
  const perTest = MAX_RESULT_CHARS + 1000; // value + error text + JSON fields
  return {
    maxMessageChars: 6 * (limits.maxOutputChars + perTest) + 1024,
    maxTotalChars: 6 * (limits.maxOutputChars + tests * perTest) + 4096,
    maxMessages: tests + 8,
  };
}

const LEFTOVER_WORDS = 'the code kept running after its tests returned (work left in a promise callback?)';
const MAX_CALL_CHARS = 160; // characters of a rendered call `f(args…)` in messages
const MAX_VALUE_CHARS = 300; // characters of an expected/got value in messages
const REL_TOL = 1e-9;

/** Deep equality over JSON data; numbers equal within a relative tolerance of 1e-9. */
export function jsonDeepEqual(expected: unknown, got: unknown): boolean {
  if (typeof expected === 'number' && typeof got === 'number') {
    return expected === got || Math.abs(expected - got) <= REL_TOL * Math.max(1, Math.abs(expected), Math.abs(got));
  }
  if (expected === null || got === null || typeof expected !== 'object' || typeof got !== 'object') return expected === got;
  if (Array.isArray(expected) !== Array.isArray(got)) return false;
  if (Array.isArray(expected) && Array.isArray(got)) {
    return expected.length === got.length && expected.every((e, i) => jsonDeepEqual(e, got[i]));
  }
  const e = expected as Record<string, unknown>;
  const g = got as Record<string, unknown>;
  const keys = Object.keys(e);
  if (keys.length !== Object.keys(g).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(g, k) && jsonDeepEqual(e[k], g[k]));
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** `entry(arg1, arg2)` with JSON arguments, shortened for messages. */
export function renderCall(test: SandboxTest): string {
  return clip(`${test.entry}(${test.args.map((a) => JSON.stringify(a)).join(', ')})`, MAX_CALL_CHARS);
}

/** Adds a hint to errors a model commonly causes by writing module code or Node code. */
export function withHint(error: string): string {
  if (/\b(import|export)\b/.test(error)) return `${error} (the sandbox runs a plain script: no import/export; define a top-level function)`;
  if (/\b(require|process|module|fetch)\b.*not defined/.test(error)) return `${error} (the sandbox has only built-in JavaScript: no modules, I/O or network)`;
  return error;
}

function parseMessage(text: unknown): SandboxMessage | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const m = JSON.parse(text) as unknown;
    if (m === null || typeof m !== 'object' || typeof (m as { t?: unknown }).t !== 'string') return undefined;
    return m as SandboxMessage;
  } catch {
    return undefined;
  }
}

/** Collects one run's messages and turns them into a SandboxResult when the run ends. */
export class RunCollector {
  private loaded?: Extract<SandboxMessage, { t: 'loaded' }>;
  private readonly calls = new Map<number, Extract<SandboxMessage, { t: 'call' }>>();
  private output = '';
  private outputTruncated = false;
  private fatal?: string;
  private finished = false;
  private messages = 0;
  private totalChars = 0;
  /** Host-side caps for this run (messageCaps). */
  readonly caps: ReturnType<typeof messageCaps>;
  /** True when the sandbox reported that it stopped at its own time limit. */
  stoppedByTimeout = false;
  /** True once the code's synchronous part returned ('returned'): from here on, only leftover work runs. */
  returned = false;
  /** Set when the sandbox broke a host-side cap (message size, count, total); the host must stop it. */
  violation?: string;

  constructor(
    private readonly tests: SandboxTest[],
    private readonly limits: SandboxLimits,
    private readonly backend: 'node' | 'browser',
    private readonly startedAt: number,
  ) {
    this.caps = messageCaps(tests.length, limits);
  }

  /** Feeds one message (JSON text); returns true when the run is over ('done', 'fatal' or a cap broken). */
  accept(text: unknown): boolean {
    if (this.finished || this.violation !== undefined) return false;
    if (typeof text === 'string') {
      this.messages++;
      this.totalChars += text.length;
      const broken = text.length > this.caps.maxMessageChars ? `a message of ${text.length} characters (the cap is ${this.caps.maxMessageChars})`
        : this.totalChars > this.caps.maxTotalChars ? `more than ${this.caps.maxTotalChars} characters in all`
        : this.messages > this.caps.maxMessages ? `more than ${this.caps.maxMessages} messages`
        : undefined;
      if (broken !== undefined) {
        this.violation = `the sandbox sent ${broken} for ${this.tests.length} tests and was stopped`;
        return true;
      }
    }
    const m = parseMessage(text);
    if (m === undefined) return false;
    if ('out' in m && typeof m.out === 'string') this.addOutput(m.out);
    if ('trunc' in m && m.trunc === true) this.outputTruncated = true;
    // First report wins: a later message cannot overwrite a result the host already has.
    if (m.t === 'loaded') this.loaded ??= m;
    else if (m.t === 'call' && Number.isInteger(m.i) && m.i >= 0 && m.i < this.tests.length && !this.calls.has(m.i)) this.calls.set(m.i, m);
    else if (m.t === 'fatal') this.fatal = clip(String(m.error), MAX_VALUE_CHARS);
    else if (m.t === 'returned') this.returned = true;
    if (m.t === 'done' && m.stop === 'timeout') this.stoppedByTimeout = true;
    return m.t === 'done' || m.t === 'fatal';
  }

  /** Every test has a report (or the code failed to load): nothing is left for the code to do. */
  allReported(): boolean {
    return (this.loaded !== undefined && !this.loaded.ok) || this.calls.size === this.tests.length;
  }

  private addOutput(out: string): void {
    const room = this.limits.maxOutputChars - this.output.length;
    if (out.length > room) {
      this.output += out.slice(0, Math.max(0, room));
      this.outputTruncated = true;
    } else {
      this.output += out;
    }
  }

  /** Builds the result; `ending` says how the host saw the run stop. Call once. */
  finish(ending: RunEnding): SandboxResult {
    this.finished = true;
    if (this.violation !== undefined) ending = { kind: 'crashed', error: this.violation };
    if (this.fatal !== undefined && ending.kind === 'done') ending = { kind: 'crashed', error: this.fatal };
    if (ending.kind === 'done' && this.loaded?.ok === true && !this.allReported()) ending = { kind: 'crashed', error: 'the sandbox ended without reporting every test' };
    // The code returned from every test but did not finish: it left work running (a loop in a promise
    // callback) until a limit stopped it. Such a run does not count, whatever its tests returned.
    const leftover = this.returned && ending.kind !== 'done';
    const compiled = this.loaded?.ok === true;
    const loadFailed = this.loaded !== undefined && !this.loaded.ok;
    const limitWords = ending.kind === 'memory' ? `exceeded the ${this.limits.memoryMb} MB memory limit` : `did not finish within the ${this.limits.timeoutMs} ms time limit (an infinite loop, or too slow)`;
    let compileError: string | undefined;
    if (loadFailed) {
      compileError = this.loaded!.kind === 'timeout' ? `top-level code ${limitWords}` : withHint(this.loaded!.error ?? 'the code did not load');
    }
    // A run killed from outside (memory, hard deadline) before reporting: where it stopped is unknown,
    // so the first unreported test carries the limit and the code does not count as compiled.
    const stoppedByLimit = !loadFailed && (ending.kind === 'timeout' || ending.kind === 'memory');

    const tests: SandboxTestResult[] = [];
    let stopped = false; // set once the run's end has been attributed to a test
    for (let i = 0; i < this.tests.length; i++) {
      const call = this.calls.get(i);
      if (call !== undefined) {
        const graded = this.grade(i, call);
        tests.push(leftover && graded.status === 'passed' ? this.uncounted(graded, ending) : graded);
        continue;
      }
      const test = this.tests[i];
      const rendered = renderCall(test);
      if (stoppedByLimit && !stopped) {
        stopped = true;
        tests.push({ index: i, status: ending.kind as 'timeout' | 'memory', message: `${rendered} ${limitWords}` });
        continue;
      }
      const why = compileError !== undefined ? `the code did not load (${compileError})`
        : ending.kind === 'crashed' ? `the sandbox failed (${ending.error})`
        : 'the time or memory budget was used up by an earlier test';
      tests.push({ index: i, status: 'not-run', message: `${rendered} was not run: ${why}` });
    }

    let status: SandboxStatus;
    if (ending.kind === 'timeout') status = 'timeout';
    else if (ending.kind === 'memory') status = 'memory-exceeded';
    else if (ending.kind === 'crashed') status = 'crashed';
    else if (loadFailed) status = this.loaded!.kind === 'timeout' ? 'timeout' : 'compile-error';
    else if (!compiled) status = 'crashed';
    else status = tests.some((t) => t.status === 'timeout') ? 'timeout' : 'ok';
    const stopWhy = ending.kind === 'crashed' ? ` (${ending.error})` : ending.kind === 'memory' ? ` at the ${this.limits.memoryMb} MB memory limit` : '';
    const error = leftover ? `${LEFTOVER_WORDS} and was stopped${stopWhy}, so no test counts`
      : status === 'timeout' ? `time limit of ${this.limits.timeoutMs} ms reached`
      : status === 'memory-exceeded' ? `memory limit of ${this.limits.memoryMb} MB reached`
      : status === 'crashed' ? (ending.kind === 'crashed' ? ending.error : 'the sandbox stopped before loading the code')
      : undefined;
    return {
      backend: this.backend,
      status,
      compiled,
      ...(compileError !== undefined ? { compileError } : {}),
      tests,
      passed: tests.filter((t) => t.status === 'passed').length,
      output: this.output,
      outputTruncated: this.outputTruncated,
      ...(error !== undefined ? { error } : {}),
      durationMs: Date.now() - this.startedAt,
    };
  }

  /** A test that returned the right value in a run that then did not finish: reported, not counted. */
  private uncounted(graded: SandboxTestResult, ending: RunEnding): SandboxTestResult {
    const status = ending.kind === 'memory' ? 'memory' : ending.kind === 'crashed' ? 'error' : 'timeout';
    return { ...graded, status, message: `${graded.message}, but ${LEFTOVER_WORDS}: not counted` };
  }

  private grade(index: number, call: Extract<SandboxMessage, { t: 'call' }>): SandboxTestResult {
    const test = this.tests[index];
    const rendered = renderCall(test);
    const expected = clip(JSON.stringify(test.expected), MAX_VALUE_CHARS);
    if (!call.ok) {
      const error = withHint(String(call.error ?? 'unknown error'));
      return { index, status: 'error', error, message: `${rendered} threw ${error}` };
    }
    const text = String(call.text ?? '');
    const got = clip(text, MAX_VALUE_CHARS);
    if (call.plain !== true) {
      return { index, status: 'failed', got, message: `${rendered}: expected ${expected}, got ${got} (not plain JSON data)` };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { index, status: 'failed', got, message: `${rendered}: expected ${expected}, got ${got} (unreadable result)` };
    }
    if (jsonDeepEqual(test.expected, value)) return { index, status: 'passed', got, message: `${rendered} returned ${got} as expected` };
    return { index, status: 'failed', got, message: `${rendered}: expected ${expected}, got ${got}` };
  }
}
