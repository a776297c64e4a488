// Source of the Node sandbox process (CommonJS, started with `node -e`). One process serves many
// runs; each run gets a fresh `vm` context, so globals and prototypes changed by one run are gone in
// the next. The process is the isolation boundary: V8's heap limit (--max-old-space-size) makes a
// heap bomb kill only this process, a watchdog thread kills it when its RSS grows past the limit
// (ArrayBuffers live outside the heap), and the permission model (when Node has it) denies file
// system and child-process access even to code that escaped the vm context.
//
// Messages: the host sends one job as JSON text; the process answers {id, m} where m is the JSON text
// of a SandboxMessage (grade.ts). Nothing but strings crosses the vm boundary.
import { HARNESS_NAME, HARNESS_SOURCE } from './harnessSource';

/** First argument of the process: JSON of these options. */
export interface NodeChildOptions {
  /** The process kills itself when its RSS grows more than this many MiB above its size at start. */
  rssHeadroomMb: number;
}

/** One job as the host sends it (JSON text). */
export interface NodeChildJob {
  /** Matches replies to the job. */
  id: number;
  /** User code plus the exporter lines (harnessSource.exporterSource). */
  code: string;
  /** Number of lines of the user's own code (syntax errors past it are reported as at its end). */
  userLines: number;
  /** JSON config for the harness installer (HarnessConfig). */
  harnessConfig: string;
  /** Wall-clock budget for the whole job, in milliseconds. */
  timeoutMs: number;
}

const CHILD_BODY = String.raw`
'use strict';
const vm = require('vm');
const util = require('util');
const { Worker } = require('worker_threads');
const options = JSON.parse(process.argv[1]);

// RSS watchdog: runs on its own thread, so it works while user code blocks the main thread.
const rssLimit = process.memoryUsage.rss() + options.rssHeadroomMb * 1024 * 1024;
const watchdog = new Worker(
  "const { workerData } = require('worker_threads');" +
  "const fs = require('fs');" +
  "setInterval(() => { if (process.memoryUsage.rss() > workerData.limit) {" +
  "  try { fs.writeSync(2, '\\nTABFORGE_SANDBOX_MEMORY_LIMIT\\n'); } catch (_) {}" +
  "  process.kill(process.pid, 'SIGKILL'); } }, 10);",
  { eval: true, workerData: { limit: rssLimit } });
watchdog.unref();

process.on('disconnect', () => process.exit(0));
// A promise the user's code left rejected (e.g. import('fs')) must not end the process.
process.on('unhandledRejection', () => {});

function isTimeout(e) {
  if (!util.types.isNativeError(e)) return false;
  const d = Object.getOwnPropertyDescriptor(e, 'code');
  return d !== undefined && d.value === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}

function syntaxMessage(e, userLines) {
  let message = 'SyntaxError';
  try { message = String(e.name) + ': ' + String(e.message); } catch (_) {}
  let stack = '';
  try { stack = String(e.stack); } catch (_) {}
  const m = /^solution\.js:(\d+)/.exec(stack);
  if (m !== null) message += Number(m[1]) > userLines ? ' (at the end of the code)' : ' (line ' + m[1] + ')';
  return message;
}

function runJob(job, send) {
  const deadline = Date.now() + job.timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const sandbox = Object.create(null);
  const context = vm.createContext(sandbox, {
    name: 'tabforge-sandbox',
    codeGeneration: { strings: true, wasm: false },
    microtaskMode: 'afterEvaluate',
  });
  vm.runInContext('(' + HARNESS_SOURCE + ')(' + JSON.stringify(job.harnessConfig) + ')', context);
  // Only calls that can run user code get a vm timeout: each timed call starts a watchdog thread.
  const harness = (call) => {
    const r = vm.runInContext(HARNESS_NAME + '.' + call, context, { timeout: left() });
    if (typeof r !== 'string') throw new Error('sandbox harness returned a non-string');
    return r;
  };
  const untimed = (call) => String(vm.runInContext(HARNESS_NAME + '.' + call, context));
  const sendLines = (text) => { for (const line of text.split('\n')) if (line !== '') send(line); };
  // After a timeout, microtasks the code queued may still be pending: recover progress under a short limit.
  const recover = (call, fallback) => { try { return String(vm.runInContext(HARNESS_NAME + '.' + call, context, { timeout: 200 })); } catch (_) { return fallback; } };
  const stop = (loadKind) => {
    sendLines(recover('completed()', ''));
    send(recover('takeOutput()', '{"t":"output"}'));
    if (loadKind !== undefined) send(JSON.stringify({ t: 'loaded', ok: false, kind: loadKind }));
    send(JSON.stringify({ t: 'done', stop: 'timeout' }));
  };

  let script;
  try {
    script = new vm.Script(job.code, { filename: 'solution.js' });
  } catch (e) {
    send(JSON.stringify({ t: 'loaded', ok: false, kind: 'syntax', error: syntaxMessage(e, job.userLines) }));
    send(JSON.stringify({ t: 'done' }));
    return;
  }
  try {
    script.runInContext(context, { timeout: left() });
  } catch (e) {
    if (isTimeout(e)) return stop('timeout');
    // Describe the thrown value inside the context, where reading it may run user getters under the time limit.
    sandbox.__tabforge_thrown = e;
    let error = 'an exception that could not be described';
    try { error = harness('describeError(globalThis.__tabforge_thrown)'); } catch (e2) { if (isTimeout(e2)) return stop('timeout'); }
    send(untimed('takeOutput()'));
    send(JSON.stringify({ t: 'loaded', ok: false, kind: 'runtime', error }));
    send(JSON.stringify({ t: 'done' }));
    return;
  }
  const report = untimed('loadReport()');
  send(report);
  if (!JSON.parse(report).ok) { send(JSON.stringify({ t: 'done' })); return; }
  let all;
  try {
    all = harness('runAll()');
  } catch (e) {
    if (isTimeout(e)) return stop();
    throw e;
  }
  sendLines(all);
  send(JSON.stringify({ t: 'done' }));
}

process.on('message', (text) => {
  let job;
  try { job = JSON.parse(text); } catch (_) { return; }
  const send = (m) => process.send({ id: job.id, m });
  try {
    runJob(job, send);
  } catch (e) {
    send(JSON.stringify({ t: 'fatal', error: 'sandbox process error: ' + String(e && e.message) }));
  }
});
process.send({ ready: true });
`;

/** The full program text for `node -e`. */
export const NODE_CHILD_SOURCE = `const HARNESS_SOURCE = ${JSON.stringify(HARNESS_SOURCE)};\nconst HARNESS_NAME = ${JSON.stringify(HARNESS_NAME)};\n${CHILD_BODY}`;
