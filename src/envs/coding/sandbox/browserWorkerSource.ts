// Source of the browser sandbox: a classic dedicated Worker made from a Blob URL, one per run.
// Before it reads the job it captures what it needs (postMessage, eval, JSON) and then removes
// every way out of the worker: network (fetch, XMLHttpRequest, WebSocket, EventSource, WebTransport),
// storage (indexedDB, caches, cookieStore), more workers and channels, importScripts, navigator,
// timers, wasm and shared memory, and postMessage itself (so code cannot forge results). If any of
// the critical names survives removal, the worker refuses to run the code (fail closed).
// The user's code then runs as an indirect eval in this worker's global scope (a fresh realm per
// run, so prototype pollution dies with the worker), followed by the harness's test calls.
import { HARNESS_NAME, HARNESS_SOURCE } from './harnessSource';

/** The job the host posts (as JSON text). */
export interface BrowserWorkerJob {
  /** User code plus the exporter lines (harnessSource.exporterSource). */
  code: string;
  /** JSON config for the harness installer (HarnessConfig). */
  harnessConfig: string;
}

/** Globals removed before user code runs; those in CRITICAL_GLOBALS must be gone or the run is refused. */
export const REMOVED_GLOBALS = [
  'fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'WebTransport', 'EventSource', 'importScripts',
  'indexedDB', 'caches', 'cookieStore', 'Worker', 'SharedWorker', 'BroadcastChannel', 'MessageChannel',
  'navigator', 'location', 'Notification', 'postMessage', 'close', 'setTimeout', 'setInterval',
  'requestAnimationFrame', 'OffscreenCanvas', 'createImageBitmap', 'WebAssembly', 'SharedArrayBuffer', 'Atomics',
  'RTCPeerConnection', 'webkitRequestFileSystem', 'webkitRequestFileSystemSync', 'webkitResolveLocalFileSystemURL',
];
export const CRITICAL_GLOBALS = [
  'fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'WebTransport', 'EventSource', 'importScripts',
  'indexedDB', 'caches', 'cookieStore', 'Worker', 'SharedWorker', 'BroadcastChannel', 'navigator', 'postMessage',
];

const WORKER_BODY = String.raw`
(function () {
  'use strict';
  var post = self.postMessage.bind(self);
  var listen = self.addEventListener.bind(self);
  var jsonParse = JSON.parse;
  var jsonStringify = JSON.stringify;
  var indirectEval = self.eval;
  var SyntaxErrorCtor = SyntaxError;
  var getPrototypeOf = Object.getPrototypeOf;
  var hasOwn = Object.prototype.hasOwnProperty;
  var defineProperty = Object.defineProperty;

  function removeGlobal(name) {
    for (var o = self; o !== null && o !== Object.prototype; o = getPrototypeOf(o)) {
      if (hasOwn.call(o, name)) { try { delete o[name]; } catch (_) {} }
    }
    if (typeof self[name] !== 'undefined') {
      try { defineProperty(self, name, { value: undefined, writable: false, configurable: false, enumerable: false }); } catch (_) {}
    }
  }
  for (var i = 0; i < REMOVED_GLOBALS.length; i++) removeGlobal(REMOVED_GLOBALS[i]);
  var survivors = [];
  for (var j = 0; j < CRITICAL_GLOBALS.length; j++) {
    if (typeof self[CRITICAL_GLOBALS[j]] !== 'undefined') survivors.push(CRITICAL_GLOBALS[j]);
  }

  listen('message', function onJob(event) {
    var job = jsonParse(event.data);
    if (survivors.length > 0) {
      post(jsonStringify({ t: 'fatal', error: 'the sandbox worker could not remove ' + survivors.join(', ') + ' and refused to run the code; use a current Chromium or Firefox' }));
      return;
    }
    try {
      installHarness(job.harnessConfig);
    } catch (e) {
      post(jsonStringify({ t: 'fatal', error: 'the sandbox harness could not be installed: ' + String(e && e.message) }));
      return;
    }
    var H = self[HARNESS_NAME];
    try {
      indirectEval(job.code + '\n//# sourceURL=solution.js');
    } catch (e) {
      var kind = e instanceof SyntaxErrorCtor ? 'syntax' : 'runtime';
      var error = H.describeError(e);
      post(H.takeOutput());
      post('{"t":"loaded","ok":false,"kind":"' + kind + '","error":' + jsonStringify(error) + '}');
      post('{"t":"done"}');
      return;
    }
    var report = H.loadReport();
    post(report);
    if (jsonParse(report).ok) {
      var n = jsonParse(job.harnessConfig).calls.length;
      for (var k = 0; k < n; k++) post(H.run(k));
    }
    post(H.takeOutput());
    post('{"t":"done"}');
  }, { once: true });
  post('{"t":"ready"}');
})();
`;

/** The full worker program text (put in a Blob and started as a classic Worker). */
export const BROWSER_WORKER_SOURCE = [
  `var installHarness = ${HARNESS_SOURCE};`,
  `var HARNESS_NAME = ${JSON.stringify(HARNESS_NAME)};`,
  `var REMOVED_GLOBALS = ${JSON.stringify(REMOVED_GLOBALS)};`,
  `var CRITICAL_GLOBALS = ${JSON.stringify(CRITICAL_GLOBALS)};`,
  WORKER_BODY,
].join('\n');
