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
