// Test page for the coding environment's browser sandbox (e2e/sandbox.spec.ts): runInBrowserSandbox
// in real Chromium, on window for Playwright. A heartbeat counter shows the page's own thread keeps
// running while sandboxed code spins in its Worker.
import { runInBrowserSandbox, type SandboxLimits, type SandboxResult, type SandboxTest } from '../envs/coding';

const runs = document.getElementById('runs')!;
const beat = document.getElementById('beat')!;
let beats = 0;
setInterval(() => (beat.textContent = String(++beats)), 50);

const sandboxTest = {
  ready: true,
  /** Main-thread heartbeats so far (every 50 ms). */
  beats: () => beats,
  async run(code: string, tests: SandboxTest[], limits: Partial<SandboxLimits> = {}): Promise<SandboxResult> {
    const r = await runInBrowserSandbox(code, tests, limits);
    const li = document.createElement('li');
    li.textContent = `${r.status}: ${r.passed}/${r.tests.length} passed in ${r.durationMs} ms${r.error ? ` — ${r.error}` : ''}`;
    runs.append(li);
    return r;
  },
};

declare global {
  interface Window {
    sandboxTest: typeof sandboxTest;
  }
}
window.sandboxTest = sandboxTest;
