// Source of the Node sandbox process (CommonJS, started with `node -e`). ONE process per run: the
// host pre-starts it, sends one job on stdin, reads the reports from stdout and kills it afterwards,
// so nothing one run does to the process (patched built-ins, timers, open handles) can reach another.
//
// Layers, outermost first:
//   - the process: V8's heap limit (--max-old-space-size), the permission model (no file system,
//     child processes, workers, addons or WASI), an empty environment, no IPC channel; the host
//     watches its RSS, CPU time and wall clock and SIGKILLs it (nodeSandbox.ts);
//   - the lockdown (CHILD_LOCKDOWN_SOURCE), before any job: no network (sockets, DNS, HTTP, the
//     inspector), no signals to other processes, no `require`/`module` globals;
//   - the vm context, fresh per job: only ECMAScript built-ins, strings in and out, import() answered
//     by a callback that throws a primitive (a host-realm error would hand the code the host's
//     Function constructor: `e.constructor.constructor('return process')()`).
//
// Protocol: the process writes `{"t":"ready"}` when it can take a job; the host writes the job (JSON)
// to stdin and closes it; the process writes one SandboxMessage (grade.ts) per line to stdout:
// the harness's reports, `{"t":"returned"}` once the code's synchronous part is over, and
// `{"t":"done"}` once the event loop is empty (a loop left in a promise callback never gets there:
// the host stops it). Timeouts, syntax errors and top-level throws end with `done` directly.
import { HARNESS_NAME, HARNESS_SOURCE } from './harnessSource';

/** First argument of the process: JSON of these options. */
export interface NodeChildOptions {
  /** Longest job accepted on stdin, in bytes. */
  maxJobBytes: number;
  /** Where the host cannot read the process's RSS (no /proc): a watchdog thread kills the process past this growth, in MiB. */
  watchdogRssHeadroomMb?: number;
}

/** One job as the host sends it (JSON text on stdin). */
export interface NodeChildJob {
  /** User code plus the exporter lines (harnessSource.exporterSource). */
  code: string;
  /** Number of lines of the user's own code (syntax errors past it are reported as at its end). */
  userLines: number;
  /** JSON config for the harness installer (HarnessConfig). */
  harnessConfig: string;
  /** Wall-clock budget for loading the code and running every test, in milliseconds. */
  timeoutMs: number;
}

/** The message the import() callback rejects with (a string: primitives belong to no realm). */
export const IMPORT_DENIED = 'import() is not available in the sandbox: write plain JavaScript without modules';

/**
 * `lockDownChild(require)`: run in the sandbox process's own realm before any job. Whatever code
 * might escape the vm context then finds no network, no way to signal other processes (the host is
 * one kill(ppid) away) and no `require`. Exported on its own so tests can run it in a bare process.
 */
export const CHILD_LOCKDOWN_SOURCE = String.raw`
function lockDownChild(req) {
  'use strict';
  const denied = (what) => function denied() { throw new Error(what + ' is not available in the coding sandbox'); };
  const replace = (obj, name, what) => {
    if (obj === null || obj === undefined) return;
    Object.defineProperty(obj, name, { value: denied(what), writable: false, enumerable: false, configurable: false });
  };
  const NET = 'network access';
  // Every TCP client and server (http, https, http2, tls, fetch) goes through these.
  const net = req('net');
  for (const name of ['connect', 'createConnection', 'createServer']) replace(net, name, NET);
  replace(net.Socket.prototype, 'connect', NET);
  replace(net.Server.prototype, 'listen', NET);
  const dgram = req('dgram');
  replace(dgram, 'createSocket', NET);
  for (const name of ['bind', 'connect', 'send']) replace(dgram.Socket.prototype, name, NET);
  const dns = req('dns');
  for (const mod of [dns, dns.promises]) {
    for (const name of Object.keys(mod)) if (typeof mod[name] === 'function' && /^(lookup|resolve|reverse)/.test(name)) replace(mod, name, NET);
    for (const name of Object.getOwnPropertyNames(mod.Resolver.prototype)) if (/^(resolve|reverse)/.test(name)) replace(mod.Resolver.prototype, name, NET);
  }
  const inspector = req('inspector');
  replace(inspector, 'open', 'the inspector');
  // Signals: process.kill(process.ppid) would kill the host; _debugProcess opens another process's inspector.
  for (const name of ['kill', '_kill', '_debugProcess', '_debugEnd']) replace(process, name, 'sending signals');
  replace(req('worker_threads'), 'Worker', 'starting threads');
  for (const name of ['require', 'module', 'exports', '__filename', '__dirname', 'fetch', 'WebSocket', 'EventSource']) {
    try { delete globalThis[name]; } catch (_) {}
    if (typeof globalThis[name] !== 'undefined') throw new Error('the sandbox could not remove the global ' + name);
  }
}
`;

const CHILD_BODY = String.raw`
const vm = require('vm');
const fs = require('fs');
const util = require('util');
const options = JSON.parse(process.argv[1]);
const stdin = process.stdin;

function writeLines(lines) {
  const bytes = Buffer.from(lines.map((l) => l + '\n').join(''), 'utf8');
  for (let off = 0; off < bytes.length;) {
    try { off += fs.writeSync(1, bytes, off); }
    catch (e) { if (e.code !== 'EAGAIN') throw e; Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); }
  }
}

if (options.watchdogRssHeadroomMb !== undefined) {
  // No /proc for the host to read: watch RSS from a thread that runs while user code blocks the main one.
  const { Worker } = require('worker_threads');
  const watchdog = new Worker(
    "const { workerData } = require('worker_threads');" +
    "const fs = require('fs');" +
    "setInterval(() => { if (process.memoryUsage.rss() > workerData.limit) {" +
    "  try { fs.writeSync(2, '\\nTABFORGE_SANDBOX_MEMORY_LIMIT\\n'); } catch (_) {}" +
    "  process.kill(process.pid, 'SIGKILL'); } }, 10);",
    { eval: true, workerData: { limit: process.memoryUsage.rss() + options.watchdogRssHeadroomMb * 1024 * 1024 } });
  watchdog.unref();
}

// Fail closed: if this Node does not route import() in a context to our callback (it needs
// --experimental-vm-modules), the rejection would be a host-realm error: refuse every job.
function denyImport() { throw ${JSON.stringify(IMPORT_DENIED)}; }
const importProbe = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate' });
try {
  new vm.Script("globalThis.r = 'pending'; import('x').then(() => { r = 'resolved' }, (e) => { r = typeof e })", { importModuleDynamically: denyImport }).runInContext(importProbe);
} catch (_) {}

lockDownChild(require);
process.on('unhandledRejection', () => {}); // a rejected promise the code left behind must not end the process

function isNativeErrorWithCode(e, code) {
  if (!util.types.isNativeError(e)) return false;
  const d = Object.getOwnPropertyDescriptor(e, 'code');
  return d !== undefined && d.value === code;
}

function syntaxMessage(e, userLines) {
  // e was thrown by vm.Script while compiling: a host-realm SyntaxError, no user code involved.
  let message = 'SyntaxError: ' + String(e.message);
  const m = /^solution\.js:(\d+)/.exec(String(e.stack));
  if (m !== null) message += Number(m[1]) > userLines ? ' (at the end of the code)' : ' (line ' + m[1] + ')';
  return message;
}

function runJob(job) {
  const deadline = Date.now() + job.timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const context = vm.createContext(Object.create(null), { name: 'tabforge-sandbox', codeGeneration: { strings: true, wasm: false } });
  const harness = vm.runInContext('(' + HARNESS_SOURCE + ')(' + JSON.stringify(job.harnessConfig) + ')', context);
  // The harness's own calls run no user code (it captured every built-in it uses), so they need no time limit.
  const takeOutput = () => String(harness.takeOutput());
  const lines = (text) => text.split('\n').filter((line) => line !== '');
  const finish = (messages) => { writeLines(messages); process.exit(0); };

  let script;
  try {
    // The harness call rides at the end of the user's script, so loading and testing take one timed call.
    script = new vm.Script(job.code + '\n;' + HARNESS_NAME + '.loadAndRunAll();\n', { filename: 'solution.js', importModuleDynamically: denyImport });
  } catch (e) {
    return finish([JSON.stringify({ t: 'loaded', ok: false, kind: 'syntax', error: syntaxMessage(e, job.userLines) }), '{"t":"done"}']);
  }
  let result;
  try {
    result = script.runInContext(context, { timeout: left() });
  } catch (e) {
    const output = takeOutput();
    if (isNativeErrorWithCode(e, 'ERR_SCRIPT_EXECUTION_TIMEOUT')) {
      const done = lines(String(harness.completed()));
      if (done.length === 0) done.push(JSON.stringify({ t: 'loaded', ok: false, kind: 'timeout' }));
      return finish([...done, output, '{"t":"done","stop":"timeout"}']);
    }
    // A top-level throw: hand the value back to the harness untouched and describe it in there,
    // under the time limit (reading it may run the code's getters).
    let error = 'an exception that could not be described';
    try {
      harness.holdThrown(e);
      error = String(vm.runInContext(HARNESS_NAME + '.describeHeld()', context, { timeout: left() }));
    } catch (e2) {
      if (isNativeErrorWithCode(e2, 'ERR_SCRIPT_EXECUTION_TIMEOUT')) return finish([JSON.stringify({ t: 'loaded', ok: false, kind: 'timeout' }), output, '{"t":"done","stop":"timeout"}']);
    }
    return finish([output, JSON.stringify({ t: 'loaded', ok: false, kind: 'runtime', error }), '{"t":"done"}']);
  }
  if (typeof result !== 'string') return finish(['{"t":"fatal","error":"the sandbox harness did not report (was the script cut short?)"}']);
  writeLines([...lines(result), takeOutput(), '{"t":"returned"}']);
  // Promise callbacks the code queued run now, outside any vm time limit; 'done' follows once they are
  // over. One that never ends is stopped by the host, which has every report already.
  setImmediate(() => finish([takeOutput(), '{"t":"done"}']));
}

function startWhenChecked() {
  const seen = vm.runInContext('r', importProbe);
  if (seen === 'pending') return setImmediate(startWhenChecked);
  if (seen !== 'string') {
    writeLines([JSON.stringify({ t: 'fatal', error: 'this Node version does not let the sandbox intercept import() in a vm context (the probe saw ' + String(seen) + '); use Node 20 or later' })]);
    process.exit(1);
  }
  writeLines(['{"t":"ready"}']);
}

const chunks = [];
let received = 0;
stdin.on('data', (chunk) => {
  received += chunk.length;
  if (received > options.maxJobBytes) {
    writeLines([JSON.stringify({ t: 'fatal', error: 'the job is larger than ' + options.maxJobBytes + ' bytes' })]);
    process.exit(1);
  }
  chunks.push(chunk);
});
stdin.on('end', () => {
  let job;
  try { job = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch (e) {
    writeLines(['{"t":"fatal","error":"the job was not valid JSON"}']);
    process.exit(1);
  }
  try {
    runJob(job);
  } catch (e) {
    writeLines([JSON.stringify({ t: 'fatal', error: 'sandbox process error: ' + (util.types.isNativeError(e) ? String(e.message) : 'a non-error value') })]);
    process.exit(1);
  }
});
startWhenChecked();
`;

/** The full program text for `node -e`. */
export const NODE_CHILD_SOURCE = [
  "'use strict';",
  `const HARNESS_SOURCE = ${JSON.stringify(HARNESS_SOURCE)};`,
  `const HARNESS_NAME = ${JSON.stringify(HARNESS_NAME)};`,
  CHILD_LOCKDOWN_SOURCE,
  CHILD_BODY,
].join('\n');
