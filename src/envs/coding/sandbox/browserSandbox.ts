// Browser back-end: one dedicated Worker per run, made from a Blob URL (browserWorkerSource.ts);
// the host terminates it at the time limit. Importable in the page: no Node modules here.
//
// What is enforced in the browser:
//   - time: wall clock from the worker's first message; past timeoutMs the worker is terminated
//     and the test that was running is reported as timed out (tests finished before keep results);
//   - isolation: a fresh worker realm per run (prototype pollution dies with it), network/storage/
//     worker/channel globals removed before the code runs, results sent as strings and graded here;
//   - leftover work: after the code returned from its last test ('returned'), the worker gets
//     SETTLE_WALL_MS to say 'done'; a loop left in a promise callback is stopped there and the
//     run does not count (grade.ts);
//   - output: console output capped at maxOutputChars inside the worker AND here; message size,
//     count and total characters capped here (RunCollector), whatever the worker sends.
// What is NOT enforced: memory. A page cannot cap a worker's heap. A memory bomb ends as a
// RangeError thrown by the engine (array/string too long), as a timeout when allocation is slow,
// or — in the worst case — as an out-of-memory crash of the worker (reported as 'crashed') or of
// the tab. `limits.memoryMb` is accepted for interface parity and otherwise ignored here.
import { BROWSER_WORKER_SOURCE, type BrowserWorkerJob } from './browserWorkerSource';
import { MAX_RESULT_CHARS, RunCollector, SETTLE_WALL_MS, type RunEnding } from './grade';
import { HARNESS_NAME, checkEntryName, exporterSource, type HarnessConfig } from './harnessSource';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, type SandboxResult, type SandboxTest } from './types';

const START_TIMEOUT_MS = 10_000; // a worker that has not said 'ready' by then counts as failed
const READY = '{"t":"ready"}';

/** Runs `code` against `tests` in a locked-down Web Worker; never rejects because of the code. */
export function runInBrowserSandbox(code: string, tests: SandboxTest[], limits: Partial<SandboxLimits> = {}): Promise<SandboxResult> {
  const lim: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...limits };
  const entries = [...new Set(tests.map((t) => t.entry))];
  entries.forEach(checkEntryName);
  const config: HarnessConfig = {
    name: HARNESS_NAME,
    maxOutputChars: lim.maxOutputChars,
    maxResultChars: MAX_RESULT_CHARS,
    entries,
    calls: tests.map((t) => ({ e: t.entry, a: t.args })),
  };
  const job: BrowserWorkerJob = { code: code + exporterSource(HARNESS_NAME, entries), harnessConfig: JSON.stringify(config) };
  const collector = new RunCollector(tests, lim, 'browser', Date.now());

  let url: string;
  let worker: Worker;
  try {
    url = URL.createObjectURL(new Blob([BROWSER_WORKER_SOURCE], { type: 'text/javascript' }));
    worker = new Worker(url);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return Promise.resolve(collector.finish({ kind: 'crashed', error: `could not start a Worker from a Blob URL (${why}); the page's Content-Security-Policy must allow worker-src blob:` }));
  }

  return new Promise<SandboxResult>((resolve) => {
    let settled = false;
    const finish = (ending: RunEnding) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(settle);
      worker.terminate();
      URL.revokeObjectURL(url);
      resolve(collector.finish(ending));
    };
    let settle: ReturnType<typeof setTimeout> | undefined;
    let timer = setTimeout(() => finish({ kind: 'crashed', error: `the sandbox worker did not start within ${START_TIMEOUT_MS} ms` }), START_TIMEOUT_MS);
    worker.onmessage = (event: MessageEvent) => {
      if (event.data === READY) {
        // The clock starts when the worker is up, so worker start-up time is not charged to the code.
        clearTimeout(timer);
        timer = setTimeout(() => finish({ kind: 'timeout' }), lim.timeoutMs);
        return;
      }
      if (collector.accept(event.data)) return finish(collector.violation !== undefined ? { kind: 'crashed', error: collector.violation } : { kind: 'done' });
      if (collector.returned && settle === undefined) settle = setTimeout(() => finish({ kind: 'timeout' }), SETTLE_WALL_MS);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      finish({ kind: 'crashed', error: `the sandbox worker failed: ${event.message || 'unknown error (possibly out of memory)'}` });
    };
    worker.onmessageerror = () => finish({ kind: 'crashed', error: 'the sandbox worker sent a message that could not be read' });
    worker.postMessage(JSON.stringify(job));
  });
}
