// Source of the browser sandbox: a classic dedicated Worker made from a Blob URL, one per run.
// Before it reads the job it captures what it needs (postMessage, eval, a timer, JSON) and then
// removes EVERY global that is not an ECMAScript built-in (an allowlist, so new web APIs are removed
// too): no fetch, XHR, WebSocket, EventSource, FontFace, importScripts, workers, channels, storage,
// navigator, timers or postMessage; the same globals a Node vm context has. If a global survives
// removal, the worker refuses to run the code (fail closed).
//
// import() is syntax, not a global, and fetches over the network from a worker; it is refused
// before it can run: the code and every string given to eval or the Function constructors (plain,
// async, generator, async generator) is checked for an import call.
//
// The user's code runs as an indirect eval in this worker's global scope (a fresh realm per run, so
// prototype pollution dies with the worker), followed by the harness's test calls. After the last
// test the worker posts 'returned', lets the code's promise callbacks run, and posts 'done' from a
// timer; code that never lets the timer fire is stopped by the host (browserSandbox.ts).
import { HARNESS_NAME, HARNESS_SOURCE } from './harnessSource';

/** The job the host posts (as JSON text). */
export interface BrowserWorkerJob {
  /** User code plus the exporter lines (harnessSource.exporterSource). */
  code: string;
  /** JSON config for the harness installer (HarnessConfig). */
  harnessConfig: string;
}

/** The globals code in the sandbox may see: ECMAScript's, as in a Node vm context (console is the harness's). */
export const ALLOWED_GLOBALS = [
  'Object', 'Function', 'Array', 'Number', 'parseFloat', 'parseInt', 'Infinity', 'NaN', 'undefined', 'Boolean', 'String',
  'Symbol', 'Date', 'Promise', 'RegExp', 'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError',
  'SyntaxError', 'TypeError', 'URIError', 'SuppressedError', 'globalThis', 'JSON', 'Math', 'Intl', 'ArrayBuffer',
  'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array', 'Float16Array', 'Float32Array',
  'Float64Array', 'Uint8ClampedArray', 'BigUint64Array', 'BigInt64Array', 'DataView', 'Map', 'BigInt', 'Set', 'Iterator',
  'WeakMap', 'WeakSet', 'Proxy', 'Reflect', 'FinalizationRegistry', 'WeakRef', 'DisposableStack', 'AsyncDisposableStack',
  'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape', 'eval', 'isFinite',
  'isNaN', 'Temporal', 'console',
];

/** Matches an import call (`import(`, `import /* … *\/ (`, `import\n(`): the one way out that is syntax. */
export const IMPORT_CALL = /\bimport\s*(?:\(|\/[*/])/;

// Everything is inside one function, so the worker's global scope gets no names of ours.
const WORKER_BODY = String.raw`
(function (installHarness, HARNESS_NAME, ALLOWED_GLOBALS, IMPORT_CALL) {
  'use strict';
  var G = self;
  var post = self.postMessage.bind(self);
  var listen = self.addEventListener.bind(self);
  var later = self.setTimeout.bind(self);
  var jsonParse = JSON.parse;
  var jsonStringify = JSON.stringify;
  var indirectEval = self.eval;
  var OriginalFunction = Function;
  var SyntaxErrorCtor = SyntaxError;
  var getPrototypeOf = Object.getPrototypeOf;
  var getOwnPropertyNames = Object.getOwnPropertyNames;
  var getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  var defineProperty = Object.defineProperty;
  var hasOwn = Object.prototype.hasOwnProperty;
  var ObjectProto = Object.prototype;
  var reflectApply = Reflect.apply;
  var reflectConstruct = Reflect.construct;
  var regexpTest = RegExp.prototype.test;
  var arrayJoin = Array.prototype.join;
  var allowed = Object.create(null);
  for (var a = 0; a < ALLOWED_GLOBALS.length; a++) allowed[ALLOWED_GLOBALS[a]] = true;

  // ---- every global that is not ECMAScript goes ------------------------------------------------
  var chain = [];
  for (var o = G; o !== null && o !== ObjectProto; o = getPrototypeOf(o)) chain.push(o);
  function sweep() {
    var left = [];
    for (var c = 0; c < chain.length; c++) {
      var names = getOwnPropertyNames(chain[c]);
      for (var n = 0; n < names.length; n++) {
        var name = names[n];
        if (c === 0 && allowed[name] === true) continue;
        try { delete chain[c][name]; } catch (_) {}
        if (reflectApply(hasOwn, chain[c], [name])) {
          try { defineProperty(chain[c], name, { value: undefined, writable: false, configurable: false, enumerable: false }); } catch (_) {}
          var d = getOwnPropertyDescriptor(chain[c], name);
          // A constant that stays (TEMPORARY = 0) is harmless; an object, function or accessor is not.
          var v = d === undefined ? null : d.value;
          if (d === undefined || d.get !== undefined || d.set !== undefined || (v !== null && (typeof v === 'object' || typeof v === 'function'))) left.push(name);
        }
      }
    }
    return left;
  }
  var survivors = sweep();

  // ---- code generation only through the import check -------------------------------------------
  function checked(source) {
    var text = String(source);
    if (reflectApply(regexpTest, IMPORT_CALL, [text])) throw new SyntaxErrorCtor('import() is not available in the sandbox: write plain JavaScript without modules');
    return text;
  }
  function gateConstructor(Original) {
    var gate = function () {
      var args = [];
      for (var i = 0; i < arguments.length; i++) args.push(checked(arguments[i]));
      return reflectConstruct(Original, args);
    };
    defineProperty(gate, 'prototype', { value: Original.prototype });
    defineProperty(Original.prototype, 'constructor', { value: gate, writable: false, enumerable: false, configurable: false });
    return gate;
  }
  var gates = [];
  var kinds = [OriginalFunction, getPrototypeOf(async function () {}).constructor, getPrototypeOf(function* () {}).constructor, getPrototypeOf(async function* () {}).constructor];
  for (var k = 0; k < kinds.length; k++) gates.push(gateConstructor(kinds[k]));
  defineProperty(G, 'Function', { value: gates[0], writable: false, enumerable: false, configurable: false });
  var evalGate = function (source) { return typeof source === 'string' ? indirectEval(checked(source)) : source; };
  defineProperty(G, 'eval', { value: evalGate, writable: false, enumerable: false, configurable: false });
  var gated = (function () {}).constructor === gates[0] && (async function () {}).constructor === gates[1] &&
    (function* () {}).constructor === gates[2] && (async function* () {}).constructor === gates[3] && G.eval === evalGate;
  if (!gated) survivors.push('an ungated code constructor');

  listen('message', function onJob(event) {
    var job = jsonParse(event.data);
    if (survivors.length > 0) {
      post(jsonStringify({ t: 'fatal', error: 'the sandbox worker could not remove ' + reflectApply(arrayJoin, survivors, [', ']) + ' and refused to run the code; use a current Chromium or Firefox' }));
      return;
    }
    try {
      installHarness(job.harnessConfig);
    } catch (e) {
      post(jsonStringify({ t: 'fatal', error: 'the sandbox harness could not be installed: ' + String(e && e.message) }));
      return;
    }
    var H = G[HARNESS_NAME];
    try {
      indirectEval(checked(job.code) + '\n//# sourceURL=solution.js');
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
      for (var t = 0; t < n; t++) post(H.run(t));
    }
    post(H.takeOutput());
    post('{"t":"returned"}');
    // Promise callbacks the code queued run before this timer; one that never ends keeps it from firing.
    later(function () {
      post(H.takeOutput());
      post('{"t":"done"}');
    }, 0);
  }, { once: true });
  post('{"t":"ready"}');
})`;

/** The full worker program text (put in a Blob and started as a classic Worker). */
export const BROWSER_WORKER_SOURCE = `${WORKER_BODY}(${HARNESS_SOURCE}, ${JSON.stringify(HARNESS_NAME)}, ${JSON.stringify(ALLOWED_GLOBALS)}, ${IMPORT_CALL.toString()});\n`;
