// Host-side half of a sandbox run, shared by both back-ends: reads the JSON messages the sandbox
// sends, compares returned values with the expected ones (which never enter the sandbox), and
// assembles the SandboxResult with one readable message per test.
import type { SandboxLimits, SandboxResult, SandboxStatus, SandboxTest, SandboxTestResult } from './types';

/** What a sandbox sends to the host, one JSON text per message (see harnessSource.ts). */
export type SandboxMessage =
  | { t: 'loaded'; ok: boolean; kind?: 'syntax' | 'runtime' | 'timeout' | 'missing-entry'; error?: string; out?: string; trunc?: boolean }
  | { t: 'call'; i: number; ms?: number; ok: boolean; plain?: boolean; text?: string; error?: string; out?: string; trunc?: boolean }
  | { t: 'output'; out?: string; trunc?: boolean }
  | { t: 'done'; stop?: 'timeout' }
  | { t: 'fatal'; error: string };

/** How the host saw the run end. */
export type RunEnding =
  | { kind: 'done' } // the sandbox said it finished (or stopped at its own time limit)
  | { kind: 'timeout' } // the time budget ran out
  | { kind: 'memory' } // the memory limit was hit
  | { kind: 'crashed'; error: string }; // anything else: could not start, died, refused to run

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

  constructor(
    private readonly tests: SandboxTest[],
    private readonly limits: SandboxLimits,
    private readonly backend: 'node' | 'browser',
    private readonly startedAt: number,
  ) {}

  /** Feeds one message (JSON text); returns true when it was the final 'done' message. */
  accept(text: unknown): boolean {
    const m = parseMessage(text);
    if (m === undefined || this.finished) return false;
    if ('out' in m && typeof m.out === 'string') this.output += m.out;
    if ('trunc' in m && m.trunc === true) this.outputTruncated = true;
    if (m.t === 'loaded') this.loaded = m;
    else if (m.t === 'call' && Number.isInteger(m.i) && m.i >= 0 && m.i < this.tests.length) this.calls.set(m.i, m);
    else if (m.t === 'fatal') this.fatal = String(m.error);
    if (m.t === 'done' && m.stop === 'timeout') this.stoppedByTimeout = true;
    return m.t === 'done' || m.t === 'fatal';
  }

  /** True when the sandbox reported that it stopped at its own time limit. */
  stoppedByTimeout = false;

  /** Builds the result; `ending` says how the host saw the run stop. Call once. */
  finish(ending: RunEnding): SandboxResult {
    this.finished = true;
    if (this.fatal !== undefined && ending.kind === 'done') ending = { kind: 'crashed', error: this.fatal };
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
        tests.push(this.grade(i, call));
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
    const error = status === 'timeout' ? `time limit of ${this.limits.timeoutMs} ms reached`
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
