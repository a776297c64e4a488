// The TabForge page. For now: acquire a GPU device in a Worker (Comlink), run the kernel
// self-check and show the results. URL parameters: ?adapter=core|compatibility|auto&run=selfcheck
// The page exposes `window.tabforge` so headless runs (npm run demo, Playwright) drive it.
import * as Comlink from 'comlink';
import type { AdapterReport, GpuWorkerApi, WorkerFailure } from '../workers/gpu.worker';
import type { CheckResult } from '../ops/selfCheck';
import type { DemoEvent, DemoOptions, DemoSummary } from '../train/demoPipeline';

const params = new URLSearchParams(location.search);
const app = document.getElementById('app')!;

function log(line: string): void {
  const div = document.createElement('div');
  div.textContent = line;
  app.appendChild(div);
}

function startWorker(): Comlink.Remote<GpuWorkerApi> {
  const worker = new Worker(new URL('../workers/gpu.worker.ts', import.meta.url), { type: 'module', name: 'tabforge-gpu' });
  return Comlink.wrap<GpuWorkerApi>(worker);
}

const gpu = startWorker();

const tabforge = {
  crossOriginIsolated: globalThis.crossOriginIsolated,
  async init(featureLevel: 'auto' | 'core' | 'compatibility' = 'auto'): Promise<AdapterReport | WorkerFailure> {
    const r = await gpu.init({ featureLevel });
    log('code' in r ? `GPU unavailable: ${r.message}` : `adapter: ${r.description}`);
    return r;
  },
  async selfCheck(filter?: string): Promise<CheckResult[]> {
    const results = await gpu.selfCheck(
      filter,
      Comlink.proxy((r: CheckResult) => log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (rel err ${r.relErr.toExponential(2)} ≤ ${r.tol})${r.error ? ` — ${r.error}` : ''}`)),
    );
    return results;
  },
  /** Runs the demo pipeline in the worker; `onEvent` (e.g. exposed by Playwright) sees every event. */
  async runDemo(opts: Partial<DemoOptions> = {}, onEvent?: (e: DemoEvent) => void): Promise<DemoSummary | WorkerFailure> {
    return gpu.runDemo(
      opts,
      Comlink.proxy((e: DemoEvent) => {
        onEvent?.(e);
        if (e.kind === 'stage') log(`== ${e.stage}${e.detail ? `: ${e.detail}` : ''}`);
        else if (e.kind === 'sft' && (e.metrics.step % 10 === 0 || e.metrics.step === e.totalSteps)) log(`step ${e.metrics.step}/${e.totalSteps} loss ${e.metrics.loss.toFixed(4)}`);
        else if (e.kind === 'eval') log(`${e.label}: ${e.success}/${e.total} held-out tool calls exact`);
        else if (e.kind === 'sample') log(e.text);
      }),
    );
  },
};

declare global {
  interface Window {
    tabforge: typeof tabforge;
  }
}
window.tabforge = tabforge;
app.textContent = '';
log(`TabForge — cross-origin isolated: ${String(globalThis.crossOriginIsolated)}`);

if (params.get('run') === 'selfcheck') {
  const level = (params.get('adapter') ?? 'auto') as 'auto' | 'core' | 'compatibility';
  void tabforge.init(level).then((r) => ('code' in r ? null : tabforge.selfCheck()));
}
