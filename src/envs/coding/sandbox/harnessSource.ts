// The in-sandbox test harness, as JavaScript source. Both back-ends evaluate it inside the realm
// where untrusted code will run (a fresh `vm` context in Node, the worker's global in the browser)
// BEFORE that code runs, so it can capture the built-ins it needs; later changes to globals or
// prototypes (Array.prototype.push = …, Object.prototype.toJSON = …) cannot change what it reports.
//
// Protocol: evaluate `(HARNESS_SOURCE)(configJson)` — it installs a frozen harness object under the
// global name in the config (non-writable, non-configurable, non-enumerable) with:
//   exportEntry(name, value)  called by code appended after the user's code (sees `const f = …` too)
//   loadReport()              → JSON text {t:'loaded', ok, kind?, error?, out, trunc}
//   run(i)                    → JSON text {t:'call', i, ok, plain?, text?, error?, ms, out, trunc}
//   loadAndRunAll()           → loadReport() and, if it is ok, run(i) for every test: one report per line
//   completed()               → the lines loadAndRunAll produced so far (after a timeout)
//   describeError(e)          → 'Name: message (line N)' for a value the user's code threw
//   holdThrown(e), describeHeld()  the same for a value the host caught (Node): the host hands it back
//                             without touching it, and the description runs under the vm time limit
//   takeOutput()              → JSON text {t:'output', out, trunc}
// Every report is built by string concatenation from primitives; values are encoded by walking
// own data properties (getters, holes, Map, NaN, undefined… are rendered but marked not plain).
// Written as a string (not a function's toString) so bundlers cannot rewrite it.

/** Config the host passes (as a JSON string) to the harness installer. */
export interface HarnessConfig {
  /** Global name under which the harness is installed (HARNESS_NAME). */
  name: string;
  /** Console output cap in characters. */
  maxOutputChars: number;
  /** Cap on the rendered length of one returned value. */
  maxResultChars: number;
  /** Entry function names the code must define. */
  entries: string[];
  /** One call per test: entry name and JSON arguments. */
  calls: { e: string; a: unknown[] }[];
}

export const HARNESS_SOURCE = String.raw`(function installHarness(configJson) {
  'use strict';
  var G = globalThis;
  var O = Object;
  var defineProperty = O.defineProperty;
  var getOwnPropertyDescriptor = O.getOwnPropertyDescriptor;
  var getPrototypeOf = O.getPrototypeOf;
  var create = O.create;
  var freeze = O.freeze;
  var ObjectProto = O.prototype;
  var hasOwn = ObjectProto.hasOwnProperty;
  var objectToString = ObjectProto.toString;
  var apply = Reflect.apply;
  var ownKeys = Reflect.ownKeys;
  var isArray = Array.isArray;
  var jsonParse = JSON.parse;
  var jsonStringify = JSON.stringify;
  var toStr = String;
  var strSlice = String.prototype.slice;
  var regexpExec = RegExp.prototype.exec;
  var isFiniteNumber = Number.isFinite;
  var dateNow = Date.now;
  var LINE_RE = /solution\.js:(\d+)/;
  var MAX_DEPTH = 64;
  var MAX_ERROR_CHARS = 500;

  var config = jsonParse(configJson);
  var maxOut = config.maxOutputChars;
  var maxResult = config.maxResultChars;
  var entries = config.entries;
  var calls = config.calls;
  var exported = create(null);

  // Built-ins that reach outside the realm or bypass the heap limit (shared memory, wasm memory).
  var REMOVE = ['SharedArrayBuffer', 'Atomics', 'WebAssembly'];
  for (var r = 0; r < REMOVE.length; r++) { try { delete G[REMOVE[r]]; } catch (_) {} }

  // ---- console capture -------------------------------------------------------------------
  var pending = '';
  var kept = 0;
  var truncated = false;
  function write(text) {
    if (truncated) return;
    var room = maxOut - kept;
    if (text.length > room) { text = apply(strSlice, text, [0, room]); truncated = true; }
    pending += text;
    kept += text.length;
  }
  function formatArgs(args) {
    var line = '';
    for (var i = 0; i < args.length; i++) {
      var a = args[i];
      if (i > 0) line += ' ';
      line += typeof a === 'string' ? a : encode(a, 1000).text;
    }
    return line;
  }
  function log() {
    if (truncated) return;
    write(formatArgs(arguments) + '\n');
  }
  var consoleObject = create(ObjectProto);
  var methods = ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table'];
  for (var m = 0; m < methods.length; m++) defineProperty(consoleObject, methods[m], { value: log, writable: true, enumerable: true, configurable: true });
  defineProperty(G, 'console', { value: consoleObject, writable: true, enumerable: false, configurable: true });

  function outputFields() {
    var text = pending;
    pending = '';
    return '"out":' + jsonStringify(text) + ',"trunc":' + (truncated ? 'true' : 'false');
  }

  // ---- value encoding ------------------------------------------------------------------------
  function encode(value, limit) {
    var st = create(null);
    st.plain = true; st.text = ''; st.over = false; st.limit = limit;
    encodeInto(value, 0, st);
    return st;
  }
  function emit(st, s) {
    if (st.over) return;
    if (st.text.length + s.length > st.limit) {
      st.text += apply(strSlice, s, [0, st.limit - st.text.length]) + '…';
      st.over = true;
      st.plain = false;
      return;
    }
    st.text += s;
  }
  function describeObject(v) {
    var tag = apply(objectToString, v, []);
    if (tag === '[object Promise]') return 'Promise {…} (return the value itself: tests do not await)';
    return tag;
  }
  function encodeInto(v, depth, st) {
    if (st.over) return;
    var t = typeof v;
    if (v === null) return emit(st, 'null');
    if (t === 'string') return emit(st, jsonStringify(v));
    if (t === 'boolean') return emit(st, v ? 'true' : 'false');
    if (t === 'number') {
      if (isFiniteNumber(v)) return emit(st, jsonStringify(v));
      st.plain = false;
      return emit(st, toStr(v));
    }
    if (t === 'undefined') { st.plain = false; return emit(st, 'undefined'); }
    if (t === 'bigint') { st.plain = false; return emit(st, toStr(v) + 'n'); }
    if (t === 'symbol') { st.plain = false; return emit(st, toStr(v)); }
    if (t === 'function') { st.plain = false; return emit(st, '[Function]'); }
    if (depth >= MAX_DEPTH) { st.plain = false; return emit(st, '[…too deep or circular]'); }
    if (isArray(v)) {
      var len = getOwnPropertyDescriptor(v, 'length').value;
      emit(st, '[');
      for (var i = 0; i < len && !st.over; i++) {
        if (i > 0) emit(st, ',');
        var d = getOwnPropertyDescriptor(v, i);
        if (d === undefined) { st.plain = false; emit(st, '<empty>'); }
        else if (apply(hasOwn, d, ['value'])) encodeInto(d.value, depth + 1, st);
        else { st.plain = false; emit(st, '[Getter]'); }
      }
      return emit(st, ']');
    }
    var proto = getPrototypeOf(v);
    if (proto !== ObjectProto && proto !== null) { st.plain = false; return emit(st, describeObject(v)); }
    var keys = ownKeys(v);
    var first = true;
    emit(st, '{');
    for (var k = 0; k < keys.length && !st.over; k++) {
      var key = keys[k];
      if (typeof key !== 'string') continue;
      var desc = getOwnPropertyDescriptor(v, key);
      if (desc === undefined || !desc.enumerable) continue;
      if (!first) emit(st, ',');
      first = false;
      emit(st, jsonStringify(key) + ':');
      if (apply(hasOwn, desc, ['value'])) encodeInto(desc.value, depth + 1, st);
      else { st.plain = false; emit(st, '[Getter]'); }
    }
    return emit(st, '}');
  }

  // ---- errors --------------------------------------------------------------------------------
  function clip(s) { return s.length > MAX_ERROR_CHARS ? apply(strSlice, s, [0, MAX_ERROR_CHARS]) + '…' : s; }
  function describeError(e) {
    try {
      if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
        var name = '', message = '', stack = '';
        try { name = toStr(e.name); } catch (_) {}
        try { message = toStr(e.message); } catch (_) {}
        try { stack = toStr(e.stack); } catch (_) {}
        var text = (name && name !== 'undefined' ? name : 'Error') + (message && message !== 'undefined' ? ': ' + message : '');
        var match = apply(regexpExec, LINE_RE, [stack]);
        if (match !== null) text += ' (line ' + match[1] + ')';
        return clip(text);
      }
      return clip('uncaught ' + typeof e + ': ' + toStr(e));
    } catch (_) {
      return 'an exception that could not be described';
    }
  }

  // ---- the harness object ------------------------------------------------------------------
  function exportEntry(name, value) { exported[name] = value; }
  function loadReport() {
    for (var i = 0; i < entries.length; i++) {
      var fn = exported[entries[i]];
      if (typeof fn !== 'function') {
        var what = fn === undefined ? 'is not defined' : 'is a ' + typeof fn + ', not a function';
        return '{"t":"loaded","ok":false,"kind":"missing-entry","error":' +
          jsonStringify(entries[i] + ' ' + what + ': define a top-level function named ' + entries[i]) + ',' + outputFields() + '}';
      }
    }
    return '{"t":"loaded","ok":true,' + outputFields() + '}';
  }
  function run(i) {
    var call = calls[i];
    var fn = exported[call.e];
    var t0 = dateNow();
    var body;
    if (typeof fn !== 'function') {
      body = '"ok":false,"error":' + jsonStringify(call.e + ' is not a function');
    } else {
      try {
        var value = apply(fn, undefined, call.a);
        var encoded = encode(value, maxResult);
        body = '"ok":true,"plain":' + (encoded.plain ? 'true' : 'false') + ',"text":' + jsonStringify(encoded.text);
      } catch (e) {
        body = '"ok":false,"error":' + jsonStringify(describeError(e));
      }
    }
    return '{"t":"call","i":' + i + ',"ms":' + (dateNow() - t0) + ',' + body + ',' + outputFields() + '}';
  }
  function takeOutput() { return '{"t":"output",' + outputFields() + '}'; }
  // Node appends loadAndRunAll() to the user's script: one timed vm call per run instead of one per
  // test (each timed call starts a watchdog thread); completed() recovers progress after a timeout.
  var reports = '';
  function loadAndRunAll() {
    var load = loadReport();
    reports = load;
    if (apply(regexpExec, /"ok":true/, [load]) === null) return reports;
    for (var i = 0; i < calls.length; i++) reports += '\n' + run(i);
    return reports;
  }
  function completed() { return reports; }
  var held;
  function holdThrown(e) { held = e; }
  function describeHeld() { return describeError(held); }

  var harness = create(null);
  harness.exportEntry = exportEntry;
  harness.loadReport = loadReport;
  harness.run = run;
  harness.describeError = describeError;
  harness.takeOutput = takeOutput;
  harness.loadAndRunAll = loadAndRunAll;
  harness.completed = completed;
  harness.holdThrown = holdThrown;
  harness.describeHeld = describeHeld;
  freeze(harness);
  defineProperty(G, config.name, { value: harness, writable: false, enumerable: false, configurable: false });
  return harness;
})`;

/** Code appended after the user's code: hands each entry function to the harness (works for `const f = …` too). */
export function exporterSource(harnessName: string, entries: string[]): string {
  const lines = entries.map((e) => `${harnessName}.exportEntry(${JSON.stringify(e)}, typeof ${e} === "undefined" ? undefined : ${e});`);
  return `\n;${lines.join('\n')}\n`;
}

/** Global name of the harness inside the sandbox (non-writable there; hidden from enumeration). */
export const HARNESS_NAME = '__tabforge_harness';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Throws (a programming error, not model output) when an entry name is not a plain identifier. */
export function checkEntryName(entry: string): void {
  if (!IDENTIFIER.test(entry)) throw new Error(`sandbox test entry "${entry}" is not a plain JavaScript identifier: use a name like rotateLeft`);
}
