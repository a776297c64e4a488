// Page for the real-model check (src/workers/modelCheck.ts) through the GPU worker: a person picks a
// Qwen3 folder or gives a URL; Playwright and `npm run big-model-check` call window.modelCheck.run.
import * as Comlink from 'comlink';
import type { FeatureLevelChoice } from '../gpu/device';
import type { ModelCheckEvent, ModelCheckOptions, ModelCheckReport, ModelCheckSource } from '../workers/modelCheck';
import type { AdapterReport, GpuWorkerApi, WorkerFailure } from '../workers/gpu.worker';

const log = document.getElementById('log')!;
const bytes = document.getElementById('bytes') as HTMLProgressElement;
const level = document.getElementById('level') as HTMLSelectElement;
const say = (line: string) => (log.textContent += `${line}\n`);

const worker = Comlink.wrap<GpuWorkerApi>(new Worker(new URL('../workers/gpu.worker.ts', import.meta.url), { type: 'module', name: 'tabforge-gpu' }));
let adapterLevel: FeatureLevelChoice | null = null;

const modelCheck = {
  ready: true,
  /** Acquires the worker's device at `featureLevel`, then runs the check; progress goes to the page log. */
  async run(source: ModelCheckSource, options: Partial<Omit<ModelCheckOptions, 'source'>> = {}, featureLevel: FeatureLevelChoice = 'auto'): Promise<{ adapter: AdapterReport; report: ModelCheckReport } | WorkerFailure> {
    const adapter = await worker.init({ featureLevel });
    if ('code' in adapter) return adapter;
    adapterLevel = featureLevel;
    say(`adapter: ${adapter.description} (storage bindings ${adapter.maxStorageBufferBindingSize} B)`);
    const onEvent = (e: ModelCheckEvent) => {
      if (e.kind === 'progress') {
        bytes.max = e.totalBytes;
        bytes.value = e.loadedBytes;
      } else say(`${e.stage}${e.detail ? `: ${e.detail}` : ''}`);
    };
    const report = await worker.modelCheck({ ...options, source }, Comlink.proxy(onEvent));
    if ('code' in report) {
      say(`failed (${report.code}): ${report.message}`);
      return report;
    }
    say(JSON.stringify(report, null, 1));
    return { adapter, report };
  },
  /** The level of the last successful init. */
  level: () => adapterLevel,
};

document.getElementById('folder')!.addEventListener('change', (ev) => {
  const files = [...((ev.target as HTMLInputElement).files ?? [])];
  if (files.length) void modelCheck.run({ kind: 'files', files }, {}, level.value as FeatureLevelChoice);
});
document.getElementById('fromUrl')!.addEventListener('click', () => {
  const base = (document.getElementById('url') as HTMLInputElement).value.trim().replace(/\/?$/, '/');
  void modelCheck.run({ kind: 'url', base: new URL(base, location.href).href }, {}, level.value as FeatureLevelChoice);
});
document.getElementById('random')!.addEventListener('click', () => void modelCheck.run({ kind: 'random', layers: 2, seed: 1 }, {}, level.value as FeatureLevelChoice));

declare global {
  interface Window {
    modelCheck: typeof modelCheck;
  }
}
window.modelCheck = modelCheck;
