import { afterAll, describe, expect, it } from 'vitest';
import { closeSandbox, detectSandboxBackend, runInSandbox } from './index';
import { closeNodeSandbox, NodeSandboxPool, runInNodeSandbox } from './nodeSandbox';
import type { SandboxTest } from './types';

const ADD: SandboxTest[] = [
  { entry: 'add', args: [1, 2], expected: 3 },
  { entry: 'add', args: [2, 2], expected: 4 },
  { entry: 'add', args: [0.1, 0.2], expected: 0.3 },
];
const GOOD = 'function add(a, b) { return a + b; }';

/** The host must keep working after every hostile run: a normal run right afterwards passes. */
async function expectHostHealthy(): Promise<void> {
  const r = await runInNodeSandbox(GOOD, ADD);
  expect(r.status).toBe('ok');
  expect(r.passed).toBe(3);
}

afterAll(() => closeNodeSandbox());

describe('node sandbox: ordinary code', () => {
  it('passes correct code, including const arrow functions', async () => {
    for (const code of [GOOD, 'const add = (a, b) => a + b', 'let add = function (a, b) { return b + a }']) {
      const r = await runInNodeSandbox(code, ADD);
      expect(r).toMatchObject({ backend: 'node', status: 'ok', compiled: true, passed: 3 });
      expect(r.tests.map((t) => t.status)).toEqual(['passed', 'passed', 'passed']);
    }
  });

  it('reports expected vs got for a wrong answer', async () => {
    const r = await runInNodeSandbox('function add(a, b) { return a - b; }', ADD);
    expect(r.status).toBe('ok');
    expect(r.passed).toBe(0);
    expect(r.tests[0]).toMatchObject({ status: 'failed', got: '-1', message: 'add(1, 2): expected 3, got -1' });
  });

  it('reports syntax errors with their line and refuses to grade', async () => {
    const r = await runInNodeSandbox('function add(a, b) {\n  return a + ;\n}', ADD);
    expect(r.status).toBe('compile-error');
    expect(r.compiled).toBe(false);
    expect(r.compileError).toContain('SyntaxError');
    expect(r.compileError).toContain('(line 2)');
    expect(r.tests.every((t) => t.status === 'not-run')).toBe(true);
  });

  it('reports a missing entry, a top-level throw and module syntax with a hint', async () => {
    const missing = await runInNodeSandbox('function plus(a, b) { return a + b }', ADD);
    expect(missing.status).toBe('compile-error');
    expect(missing.compileError).toContain('add is not defined');
    const notFn = await runInNodeSandbox('const add = 5', ADD);
    expect(notFn.compileError).toContain('add is a number, not a function');
    const thrown = await runInNodeSandbox('function add() {}\nthrow new TypeError("boom")', ADD);
    expect(thrown.compileError).toBe('TypeError: boom (line 2)');
    const esm = await runInNodeSandbox('export function add(a, b) { return a + b }', ADD);
    expect(esm.compileError).toContain('no import/export');
  });

  it('reports errors thrown by the function with the line', async () => {
    const r = await runInNodeSandbox('function add(a, b) {\n  if (a === 2) null.x;\n  return a + b;\n}', ADD);
    expect(r.tests[0].status).toBe('passed');
    expect(r.tests[1].status).toBe('error');
    expect(r.tests[1].error).toMatch(/^TypeError: .*null.* \(line 2\)$/);
  });

  it('marks values that are not plain JSON data as failures, and survives cycles and getters', async () => {
    const tests: SandboxTest[] = [0, 1, 2, 3, 4, 5].map((i) => ({ entry: 'f', args: [i], expected: [1] }));
    const code = `function f(i) {
      if (i === 0) return undefined;
      if (i === 1) return [NaN];
      if (i === 2) return new Map([[1, 1]]);
      if (i === 3) { const a = [1]; a.push(a); return a; }
      if (i === 4) return { get x() { return 1; } };
      return [1, , 3];
    }`;
    const r = await runInNodeSandbox(code, tests);
    expect(r.tests.map((t) => t.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed', 'failed']);
    expect(r.tests[0].got).toBe('undefined');
    expect(r.tests[1].got).toBe('[NaN]');
    expect(r.tests[2].got).toBe('[object Map]');
    expect(r.tests[3].got).toContain('…');
    expect(r.tests[4].got).toBe('{"x":[Getter]}');
    expect(r.tests[5].got).toBe('[1,<empty>,3]');
  });

  it('runs in parallel without mixing results', async () => {
    const codes = ['function add(a, b) { return a + b }', 'function add(a, b) { return a * b }'];
    const results = await Promise.all([0, 1, 2, 3].map((i) => runInNodeSandbox(codes[i % 2], ADD)));
    expect(results.map((r) => r.passed)).toEqual([3, 1, 3, 1]); // 2 * 2 = 4 passes
  });

  it('is what runInSandbox picks in Node', async () => {
    expect(detectSandboxBackend()).toBe('node');
    const r = await runInSandbox(GOOD, ADD);
    expect(r).toMatchObject({ backend: 'node', passed: 3 });
    await closeSandbox();
  });
});

describe('node sandbox: limits', () => {
  it('stops an infinite loop inside a test at the time limit, keeping earlier results', async () => {
    const r = await runInNodeSandbox('function add(a, b) { if (a === 2) for (;;) {} return a + b; }', ADD, { timeoutMs: 500 });
    expect(r.status).toBe('timeout');
    expect(r.compiled).toBe(true);
    expect(r.tests.map((t) => t.status)).toEqual(['passed', 'timeout', 'not-run']);
    expect(r.tests[1].message).toContain('500 ms time limit');
    expect(r.durationMs).toBeLessThan(3000);
    await expectHostHealthy();
  });

  it('stops an infinite loop at top level and one in microtasks', async () => {
    const top = await runInNodeSandbox('function add(a, b) { return a + b }\nwhile (true) {}', ADD, { timeoutMs: 300 });
    expect(top.status).toBe('timeout');
    expect(top.compiled).toBe(false);
    expect(top.compileError).toContain('time limit');
    const micro = await runInNodeSandbox('function add(a, b) { const spin = () => Promise.resolve().then(spin); spin(); return a + b }', ADD, { timeoutMs: 300 });
    expect(micro.status).toBe('timeout');
    await expectHostHealthy();
  });

  it('stops an uninterruptible built-in (huge fill) by killing the process', async () => {
    const r = await runInNodeSandbox('function add() { return new Array(3e8).fill(7).length }', ADD, { timeoutMs: 300, memoryMb: 512 });
    expect(['timeout', 'memory-exceeded']).toContain(r.status);
    expect(r.tests[0].status).not.toBe('passed');
    await expectHostHealthy();
  });

  it('stops a heap memory bomb and reports it', async () => {
    const r = await runInNodeSandbox('function add() { const a = []; for (let i = 0; ; i++) a.push({ i, s: "x" + i }); }', ADD, { timeoutMs: 20_000, memoryMb: 32 });
    expect(r.status).toBe('memory-exceeded');
    expect(r.error).toContain('32 MB');
    expect(r.tests[0]).toMatchObject({ status: 'memory' });
    expect(r.tests[0].message).toContain('exceeded the 32 MB memory limit');
    await expectHostHealthy();
  });

  it('stops an ArrayBuffer memory bomb (outside the JS heap) and reports it', async () => {
    const code = 'function add() { const keep = []; for (;;) { const b = new Uint8Array(2e7); b.fill(1); keep.push(b); } }';
    const r = await runInNodeSandbox(code, ADD, { timeoutMs: 20_000, memoryMb: 32 });
    expect(r.status).toBe('memory-exceeded');
    await expectHostHealthy();
  });

  it('caps huge console output', async () => {
    const r = await runInNodeSandbox('function add(a, b) { for (let i = 0; i < 1e5; i++) console.log("spam", i, { i }); return a + b }', ADD, { maxOutputChars: 1000 });
    expect(r.status).toBe('ok');
    expect(r.passed).toBe(3);
    expect(r.output.length).toBeLessThanOrEqual(1000);
    expect(r.output.startsWith('spam 0 {"i":0}\n')).toBe(true);
    expect(r.outputTruncated).toBe(true);
    const small = await runInNodeSandbox('function add(a, b) { console.error("e", a); return a + b }', ADD.slice(0, 1));
    expect(small.output).toBe('e 1\n');
    expect(small.outputTruncated).toBe(false);
  });
});

describe('node sandbox: isolation', () => {
  it('has no fetch, require, process, module or host globals', async () => {
    (globalThis as Record<string, unknown>).__tabforgeHostSecret = 'secret';
    const names = ['fetch', 'require', 'process', 'module', 'Buffer', 'setTimeout', 'XMLHttpRequest', 'WebSocket', 'importScripts', '__tabforgeHostSecret', 'WebAssembly', 'SharedArrayBuffer'];
    const r = await runInNodeSandbox('function probe(name) { return typeof globalThis[name] + "/" + (() => { try { return typeof eval(name) } catch (e) { return e.name } })() }', names.map((n) => ({ entry: 'probe', args: [n], expected: 'undefined/ReferenceError' })));
    expect(r.tests.filter((t) => t.status !== 'passed').map((t) => t.message)).toEqual([]);
    delete (globalThis as Record<string, unknown>).__tabforgeHostSecret;
  });

  it('reports calls to fetch and require as errors with a hint', async () => {
    const r = await runInNodeSandbox('function add(a, b) { if (a === 1) return fetch("http://example.com"); return require("fs").readFileSync("/etc/passwd", "utf8") }', ADD.slice(0, 2));
    expect(r.tests[0].error).toContain('fetch is not defined');
    expect(r.tests[1].error).toContain('require is not defined');
    expect(r.tests[1].error).toContain('no modules');
  });

  it('cannot reach the host through constructors, dynamic import or stack frames', async () => {
    const escapes = [
      'this.constructor.constructor("return typeof process")()',
      'Object.getPrototypeOf(globalThis).constructor.constructor("return typeof process")()',
      '(function () { return this })().constructor.constructor("return typeof require")()',
      // Every frame's receiver and function (the harness's and Node's are strict, so hidden) must lead nowhere.
      '(() => { const reach = (x) => { try { return x.constructor.constructor("return typeof process")() } catch { return "undefined" } }; Error.prepareStackTrace = (e, frames) => frames.some((f) => reach(f.getThis()) !== "undefined" || reach(f.getFunction()) !== "undefined") ? "leak" : "undefined"; return new Error().stack })()',
    ];
    const tests = escapes.map((_, i) => ({ entry: 'tryEscape', args: [i], expected: 'undefined' }));
    const code = `function tryEscape(i) { return [${escapes.map((e) => `() => ${e}`).join(', ')}][i](); }`;
    const r = await runInNodeSandbox(code, tests);
    expect(r.tests.map((t) => t.message)).toEqual(tests.map((t) => `tryEscape(${t.args[0]}) returned "undefined" as expected`));
    const imp = await runInNodeSandbox('function add() { return import("node:fs") }', ADD.slice(0, 1));
    expect(imp.tests[0].status).toBe('failed');
    expect(imp.tests[0].got).toContain('Promise');
    await expectHostHealthy(); // the rejected import must not take the sandbox process down
  });

  it('keeps prototype pollution inside the run', async () => {
    const code = 'Object.prototype.polluted = 1; Array.prototype.polluted = 2; String.prototype.trim = () => "x";\nfunction add(a, b) { return a + b + ({}).polluted - 1 }';
    const r = await runInNodeSandbox(code, ADD);
    expect(r.passed).toBe(3);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect(' a '.trim()).toBe('a');
    // The next run (same process, fresh context) does not see it either.
    const next = await runInNodeSandbox('function probe() { return [typeof ({}).polluted, " a ".trim()] }', [{ entry: 'probe', args: [], expected: ['undefined', 'a'] }]);
    expect(next.passed).toBe(1);
  });

  it('cannot forge results by replacing the built-ins the harness uses', async () => {
    const tamper = 'JSON.stringify = () => "3"; JSON.parse = () => 3; Array.prototype.push = () => 0; Object.prototype.toJSON = () => 3; Object.defineProperty = () => {}; Reflect.apply = () => 3; String.prototype.slice = () => "3";';
    const wrong = await runInNodeSandbox(`${tamper}\nfunction add(a, b) { return a * 100 }`, ADD);
    expect(wrong.passed).toBe(0);
    const right = await runInNodeSandbox(`${tamper}\nfunction add(a, b) { return a + b }`, ADD);
    expect(right.passed).toBe(3);
    const harness = await runInNodeSandbox('function add(a, b) { globalThis.__tabforge_harness = null; delete globalThis.__tabforge_harness; return a * 9 }', ADD);
    expect(harness.passed).toBe(0);
  });

  it('works with a private pool of one process', async () => {
    const pool = new NodeSandboxPool({ size: 1 });
    try {
      const results = await Promise.all([0, 1, 2].map(() => pool.run(GOOD, ADD)));
      expect(results.map((r) => r.passed)).toEqual([3, 3, 3]);
    } finally {
      pool.close();
    }
  });
});
