// The sandbox entry point: picks the back-end for where the code runs (Node: process pool with vm
// contexts; browser: locked-down Blob Worker) behind the one SandboxRunner signature.
import { runInBrowserSandbox } from './browserSandbox';
import { RunCollector } from './grade';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, type SandboxResult, type SandboxTest } from './types';

export type { SandboxLimits, SandboxResult, SandboxRunner, SandboxStatus, SandboxTest, SandboxTestResult, SandboxTestStatus } from './types';
export { DEFAULT_SANDBOX_LIMITS } from './types';
export { runInBrowserSandbox } from './browserSandbox';
export { jsonDeepEqual } from './grade';

/** Which back-end this JavaScript runtime supports, if any. */
export function detectSandboxBackend(): 'node' | 'browser' | 'none' {
  const proc = (globalThis as { process?: { versions?: { node?: unknown } } }).process;
  if (typeof proc?.versions?.node === 'string') return 'node';
  if (typeof Worker !== 'undefined' && typeof Blob !== 'undefined' && typeof URL?.createObjectURL === 'function') return 'browser';
  return 'none';
}

// A computed specifier keeps the Node back-end (child_process) out of browser bundles.
const NODE_BACKEND_MODULE = './nodeSandbox';

/** Runs `code` against `tests` in the sandbox for this runtime. Never rejects because of the code. */
export async function runInSandbox(code: string, tests: SandboxTest[], limits: Partial<SandboxLimits> = {}): Promise<SandboxResult> {
  const backend = detectSandboxBackend();
  if (backend === 'node') {
    const node = (await import(/* @vite-ignore */ NODE_BACKEND_MODULE)) as typeof import('./nodeSandbox');
    return node.runInNodeSandbox(code, tests, limits);
  }
  if (backend === 'browser') return runInBrowserSandbox(code, tests, limits);
  const collector = new RunCollector(tests, { ...DEFAULT_SANDBOX_LIMITS, ...limits }, 'browser', Date.now());
  return collector.finish({ kind: 'crashed', error: 'no sandbox back-end here: run in Node ≥ 20 or in a browser with Worker and Blob' });
}

/** Stops the Node back-end's processes if it was used (no-op in the browser). */
export async function closeSandbox(): Promise<void> {
  if (detectSandboxBackend() !== 'node') return;
  const node = (await import(/* @vite-ignore */ NODE_BACKEND_MODULE)) as typeof import('./nodeSandbox');
  node.closeNodeSandbox();
}
