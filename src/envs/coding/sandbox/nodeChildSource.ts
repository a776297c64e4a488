// Source of the Node sandbox process (CommonJS, started with `node -e`). One process serves many
// runs; each run gets a fresh `vm` context, so globals and prototypes changed by one run are gone in
// the next. The process is the isolation boundary: V8's heap limit (--max-old-space-size) makes a
// heap bomb kill only this process, a watchdog thread kills it when its RSS grows past the limit
// (ArrayBuffers live outside the heap), and the permission model (when Node has it) denies file
// system and child-process access even to code that escaped the vm context.
//
// Messages: the host sends one job as JSON text; the process answers once with {id, ms}, where ms
// are the JSON texts of SandboxMessages (grade.ts). Nothing but strings crosses the vm boundary.
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
  // After a timeout, microtasks the code queued may still be pending: read progress under a short limit.
  const recover = (call, fallback) => {
    try { return String(vm.runInContext(HARNESS_NAME + '.' + call, context, { timeout: 200 })); } catch (_) { return fallback; }
  };
  const lines = (text) => text.split('\n').filter((line) => line !== '');

  let script;
  try {
    // The harness call rides at the end of the user's script, so loading and testing take one timed call.
    script = new vm.Script(job.code + '\n;' + HARNESS_NAME + '.loadAndRunAll();\n', { filename: 'solution.js' });
  } catch (e) {
    return send([JSON.stringify({ t: 'loaded', ok: false, kind: 'syntax', error: syntaxMessage(e, job.userLines) }), '{"t":"done"}']);
  }
  let result;
  try {
    result = script.runInContext(context, { timeout: left() });
  } catch (e) {
    const output = recover('takeOutput()', '{"t":"output"}');
    if (isTimeout(e)) {
      const done = lines(recover('completed()', ''));
      if (done.length === 0) done.push(JSON.stringify({ t: 'loaded', ok: false, kind: 'timeout' }));
      return send([...done, output, JSON.stringify({ t: 'done', stop: 'timeout' })]);
    }
    // A top-level throw: describe the value inside the context, where reading it may run user getters under the time limit.
    sandbox.__tabforge_thrown = e;
    let error = 'an exception that could not be described';
    try {
      error = String(vm.runInContext(HARNESS_NAME + '.describeError(globalThis.__tabforge_thrown)', context, { timeout: left() }));
    } catch (e2) {
      if (isTimeout(e2)) return send([JSON.stringify({ t: 'loaded', ok: false, kind: 'timeout' }), output, JSON.stringify({ t: 'done', stop: 'timeout' })]);
    }
    return send([output, JSON.stringify({ t: 'loaded', ok: false, kind: 'runtime', error }), '{"t":"done"}']);
  }
  if (typeof result !== 'string') throw new Error('the sandbox harness did not report (was the script cut short?)');
  send([...lines(result), recover('takeOutput()', '{"t":"output"}'), '{"t":"done"}']);
}

process.on('message', (text) => {
  let job;
  try { job = JSON.parse(text); } catch (_) { return; }
  // All of a job's messages go in one IPC send: one process.send per test costs more than the test.
  const send = (ms) => process.send({ id: job.id, ms });
  try {
    runJob(job, send);
  } catch (e) {
    send([JSON.stringify({ t: 'fatal', error: 'sandbox process error: ' + String(e && e.message) })]);
  }
});
process.send({ ready: true });
`;

/** The full program text for `node -e`. */
export const NODE_CHILD_SOURCE = `const HARNESS_SOURCE = ${JSON.stringify(HARNESS_SOURCE)};\nconst HARNESS_NAME = ${JSON.stringify(HARNESS_NAME)};\n${CHILD_BODY}`;
