// The coding environment's browser sandbox (runInBrowserSandbox: a locked-down Blob Worker per run)
// in real headless Chromium, through src/app/sandbox-test.html. No GPU involved (a few seconds per project).
import { expect, type Page, test } from '@playwright/test';
import type { SandboxLimits, SandboxResult, SandboxTest } from '../src/envs/coding';

async function open(page: Page): Promise<void> {
  await page.goto('/sandbox-test.html');
  await page.waitForFunction(() => window.sandboxTest?.ready === true);
}

function run(page: Page, code: string, tests: SandboxTest[], limits: Partial<SandboxLimits> = {}): Promise<SandboxResult> {
  return page.evaluate(([c, t, l]) => window.sandboxTest.run(c, t, l), [code, tests, limits] as const);
}

const ADD = 'function add(a, b) { return a + b; }';
const ADD_TESTS: SandboxTest[] = [
  { entry: 'add', args: [1, 2], expected: 3 },
  { entry: 'add', args: [-5, 5], expected: 0 },
  { entry: 'add', args: [0.1, 0.2], expected: 0.3 },
];

test('a correct solution passes its tests', async ({ page }) => {
  await open(page);
  const r = await run(page, ADD, ADD_TESTS);
  expect(r, JSON.stringify(r)).toMatchObject({ backend: 'browser', status: 'ok', compiled: true, passed: 3 });
  expect(r.tests.map((t) => t.status)).toEqual(['passed', 'passed', 'passed']);

  const wrong = await run(page, 'function add(a, b) { return a - b; }', ADD_TESTS.slice(0, 1));
  expect(wrong).toMatchObject({ status: 'ok', passed: 0 });
  expect(wrong.tests[0]).toMatchObject({ status: 'failed' });
  expect(wrong.tests[0].message).toMatch(/add\(1, 2\).*expected 3.*got -1/);
});

test('an infinite loop is stopped by the time limit and reported; the page keeps working', async ({ page }) => {
  await open(page);
  const beatsBefore = await page.evaluate(() => window.sandboxTest.beats());
  const t0 = Date.now();
  const r = await run(page, 'function spin(n) { while (true) { n++; } }', [{ entry: 'spin', args: [0], expected: 1 }], { timeoutMs: 500 });
  const wall = Date.now() - t0;
  expect(r, JSON.stringify(r)).toMatchObject({ status: 'timeout', compiled: true, passed: 0 });
  expect(r.tests[0].status).toBe('timeout');
  expect(r.error).toMatch(/time/i);
  expect(wall).toBeLessThan(10_000);
  // The page's own thread kept beating while the worker spun (a 50 ms interval over ≥ 500 ms).
  expect(await page.evaluate(() => window.sandboxTest.beats())).toBeGreaterThan(beatsBefore + 5);

  // A loop at the top level (before any test can run) is stopped the same way.
  const top = await run(page, 'while (true) {}\nfunction add(a, b) { return a + b; }', ADD_TESTS, { timeoutMs: 500 });
  expect(top.status).toBe('timeout');
  expect(top.passed).toBe(0);

  // Afterwards the sandbox and the page still work.
  const again = await run(page, ADD, ADD_TESTS);
  expect(again).toMatchObject({ status: 'ok', passed: 3 });
  await expect(page.locator('#runs li')).toHaveCount(3);
  await expect(page.locator('#runs li').last()).toHaveText(/^ok: 3\/3 passed/);
});

test('fetch, importScripts, XMLHttpRequest (and other ways out) are unavailable inside', async ({ page }) => {
  await open(page);
  const probe = `function probe() {
    return [typeof fetch, typeof importScripts, typeof XMLHttpRequest, typeof WebSocket, typeof indexedDB, typeof Worker, typeof navigator, typeof postMessage];
  }
  function callFetch() { return fetch('/'); }
  function callImport() { importScripts('/x.js'); return 'imported'; }
  function callXhr() { var x = new XMLHttpRequest(); x.open('GET', '/'); return 'opened'; }`;
  const r = await run(page, probe, [
    { entry: 'probe', args: [], expected: Array(8).fill('undefined') },
    { entry: 'callFetch', args: [], expected: null },
    { entry: 'callImport', args: [], expected: null },
    { entry: 'callXhr', args: [], expected: null },
  ]);
  expect(r.status, JSON.stringify(r)).toBe('ok');
  expect(r.tests[0], JSON.stringify(r.tests[0])).toMatchObject({ status: 'passed' });
  for (const t of r.tests.slice(1)) {
    expect(t.status, JSON.stringify(t)).toBe('error');
    expect(t.error).toMatch(/not defined|not a function|not a constructor/);
  }
  // And the page's own fetch still works.
  expect(await page.evaluate(async () => (await fetch('/sandbox-test.html')).status)).toBe(200);
});

// ---- the attack list of issue 13, in the browser back-end ------------------------------------
const GOOD_TWICE = async (page: Page) => {
  for (let i = 0; i < 2; i++) {
    const r = await run(page, ADD, ADD_TESTS);
    expect(r, JSON.stringify(r)).toMatchObject({ status: 'ok', passed: 3 });
  }
};

/** Counts requests from the page and its workers whose path starts with /probe-. */
async function countProbes(page: Page): Promise<() => string[]> {
  const seen: string[] = [];
  await page.context().route('**/probe-*', (route) => {
    seen.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/javascript', body: 'export default 1;' });
  });
  return () => seen;
}

test('no way out to the network: import() in every form, fetch, XHR, WebSocket, EventSource, FontFace, importScripts', async ({ page }) => {
  await open(page);
  const probes = await countProbes(page);
  // The code as given: an import call is refused before anything runs.
  const direct = await run(page, "import('/probe-direct.js');\nfunction add(a, b) { return a + b; }", ADD_TESTS);
  expect(direct.status, JSON.stringify(direct)).toBe('compile-error');
  expect(direct.compileError).toContain('import() is not available');
  const spaced = await run(page, 'function add(a, b) { return import /* x */ ("/probe-spaced.js"); }', ADD_TESTS);
  expect(spaced.status).toBe('compile-error');
  // Import calls built at run time, through every code constructor.
  const I = "'imp' + 'ort(\"/probe-' + which + '.js\")'";
  const code = `function attempt(which) {
    try {
      let p;
      if (which === 'eval') p = eval(${I});
      if (which === 'indirect') p = (0, eval)(${I});
      if (which === 'Function') p = new Function('return ' + ${I})();
      if (which === 'ctor') p = (() => {}).constructor('return ' + ${I})();
      if (which === 'async') p = (async () => {}).constructor('return ' + ${I})();
      if (which === 'generator') p = (function* () {}).constructor('yield ' + ${I})().next().value;
      if (which === 'fetch') p = fetch('/probe-fetch');
      if (which === 'xhr') { const x = new XMLHttpRequest(); x.open('GET', '/probe-xhr'); x.send(); }
      if (which === 'websocket') new WebSocket('ws://' + '127.0.0.1:9/probe-ws');
      if (which === 'eventsource') new EventSource('/probe-es');
      if (which === 'fontface') p = new FontFace('x', 'url(/probe-font.woff)').load();
      if (which === 'fonts') p = self.fonts.load('12px x');
      if (which === 'importScripts') importScripts('/probe-is.js');
      if (which === 'beacon') navigator.sendBeacon('/probe-beacon');
      return p === undefined ? 'no' : 'called';
    } catch (e) { return e.name; }
  }`;
  const ways = ['eval', 'indirect', 'Function', 'ctor', 'async', 'generator', 'fetch', 'xhr', 'websocket', 'eventsource', 'fontface', 'fonts', 'importScripts', 'beacon'];
  const r = await run(page, code, ways.map((w) => ({ entry: 'attempt', args: [w], expected: 'blocked' })));
  expect(r.status, JSON.stringify(r)).toBe('ok');
  const got = Object.fromEntries(r.tests.map((t, i) => [ways[i], t.got]));
  for (const w of ['eval', 'indirect', 'Function', 'ctor', 'async', 'generator']) expect(got[w], w).toBe('"SyntaxError"');
  for (const w of ['fetch', 'xhr', 'websocket', 'eventsource', 'fontface', 'fonts', 'importScripts', 'beacon']) expect(got[w], w).toMatch(/"(ReferenceError|TypeError)"/);
  await page.waitForTimeout(300);
  expect(probes()).toEqual([]);
  // The page's own module loading is untouched.
  expect(await page.evaluate((url) => import(url).then((m: { default: number }) => m.default), '/probe-page.js')).toBe(1);
  expect(probes()).toHaveLength(1);
});

test('patched postMessage, prototypes and JSON cannot forge this run or poison the next two', async ({ page }) => {
  await open(page);
  const tamper = `try { self.postMessage = () => {}; } catch (e) {}
    JSON.stringify = () => '3'; JSON.parse = () => 3; Object.prototype.toJSON = () => 3; Array.prototype.push = () => 0;
    String.prototype.slice = () => '3'; Reflect.apply = () => 3; Object.defineProperty = () => {};`;
  const wrong = await run(page, `${tamper}\nfunction add(a, b) { return 999; }`, ADD_TESTS);
  expect(wrong.passed, JSON.stringify(wrong)).toBe(0);
  expect(wrong.tests[0].got).toBe('999');
  await GOOD_TWICE(page);
});

test('Promise.resolve().then(() => { while (true) {} }); return x + 1 does not pass and is stopped soon; setTimeout does not exist', async ({ page }) => {
  await open(page);
  const tests = [{ entry: 'inc', args: [1], expected: 2 }, { entry: 'inc', args: [5], expected: 6 }];
  const t0 = Date.now();
  const r = await run(page, 'function inc(x) { Promise.resolve().then(() => { while (true) {} }); return x + 1 }', tests, { timeoutMs: 5000 });
  expect(r, JSON.stringify(r)).toMatchObject({ status: 'timeout', passed: 0 });
  expect(r.tests.map((t) => t.status)).toEqual(['timeout', 'timeout']);
  expect(r.error).toContain('no test counts');
  expect(Date.now() - t0).toBeLessThan(3000); // the settle window, not the 5 s limit
  const timer = await run(page, 'function inc(x) { setTimeout(() => { for (;;) {} }, 10); return x + 1 }', tests);
  expect(timer.tests[0].status).toBe('error');
  expect(timer.tests[0].error).toContain('setTimeout is not defined');
  await GOOD_TWICE(page);
});

test('40 MB of console output or a 40 MB result stay within the caps', async ({ page }) => {
  await open(page);
  const r = await run(page, 'const s = "x".repeat(4e7); function add(a, b) { console.log(s); console.log(s); return s; }', ADD_TESTS);
  expect(r.output.length).toBeLessThanOrEqual(4000);
  expect(r.outputTruncated).toBe(true);
  expect(r.tests[0].got!.length).toBeLessThan(400);
  expect(r.passed).toBe(0);
  await GOOD_TWICE(page);
});
