// The code sandbox's interface, shared by the Node and browser back-ends. The host sends strings
// (code, JSON arguments) and receives JSON strings back; it grades results itself, so expected
// values never enter the sandbox and untrusted code cannot see or forge them.

/** One unit test: call `entry(...args)` and compare the result with `expected` (deep, JSON-like). */
export interface SandboxTest {
  /** Name of the top-level function under test (a plain identifier). */
  entry: string;
  /** Arguments, JSON-serialisable; the sandbox receives them as a JSON string. */
  args: unknown[];
  /** Expected return value, JSON-serialisable; numbers compare with a 1e-9 relative tolerance. */
  expected: unknown;
}

/** Resource limits for one sandbox run (one piece of code against a list of tests). */
export interface SandboxLimits {
  /** Wall-clock budget for loading the code and running every test, in milliseconds. */
  timeoutMs: number;
  /** JS heap limit in MiB (Node: enforced by V8 plus an RSS watchdog; browser: not enforced, see browserSandbox.ts). */
  memoryMb: number;
  /** Maximum characters of console output kept; the rest is dropped and `outputTruncated` set. */
  maxOutputChars: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 2000, memoryMb: 64, maxOutputChars: 4000 };

/** How one test ended. */
export type SandboxTestStatus =
  | 'passed' // returned a value deep-equal to the expected one
  | 'failed' // returned a different value (or one that is not plain JSON data)
  | 'error' // threw
  | 'timeout' // was running when the time limit hit
  | 'memory' // was running when the memory limit hit
  | 'not-run'; // never started (code did not load, or an earlier test used up the budget)

export interface SandboxTestResult {
  /** Position of the test in the list given to runInSandbox. */
  index: number;
  /** How the test ended. */
  status: SandboxTestStatus;
  /** The value returned, rendered as text (JSON for plain data), when the function returned. */
  got?: string;
  /** The error thrown, as `Name: message (line N)`, when the function threw. */
  error?: string;
  /** One line a person or a model can read: what was called, what was expected, what happened. */
  message: string;
}

/** How the run as a whole ended. */
export type SandboxStatus =
  | 'ok' // the code loaded and every test ran (some may have failed)
  | 'compile-error' // syntax error, top-level throw, or an entry function missing
  | 'timeout' // the wall-clock budget ran out
  | 'memory-exceeded' // the memory limit was hit
  | 'crashed'; // the sandbox itself failed (could not start, lockdown refused, died unexpectedly)

export interface SandboxResult {
  /** Which back-end ran the code. */
  backend: 'node' | 'browser';
  /** How the run ended. */
  status: SandboxStatus;
  /** True when the code parsed, its top level ran, and every entry function was defined. */
  compiled: boolean;
  /** Why the code did not load (syntax error with line, top-level error, missing function), if so. */
  compileError?: string;
  /** One result per test, in order. */
  tests: SandboxTestResult[];
  /** Number of tests with status 'passed'. */
  passed: number;
  /** Captured console output (console.log/info/warn/error/debug), capped at maxOutputChars. */
  output: string;
  /** True when console output went over maxOutputChars and was cut. */
  outputTruncated: boolean;
  /** Sandbox-level problem in words (timeout, memory, crash), when status is not 'ok'/'compile-error'. */
  error?: string;
  /** Wall-clock time of the run as seen by the host, in milliseconds. */
  durationMs: number;
}

/** The one function every back-end provides. Never rejects because of the code under test. */
export type SandboxRunner = (code: string, tests: SandboxTest[], limits?: Partial<SandboxLimits>) => Promise<SandboxResult>;
