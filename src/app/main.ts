// The TabForge page: run configuration (shareable as a link), Start/Stop, progress, live SFT loss and
// GRPO success/reward charts, test success rates, the run summary and a sample episode, plus
// loading a model from files or a URL. Training runs in a GPU Worker (Comlink). URL parameters:
// ?adapter=core|compatibility|auto, ?run=selfcheck, #config=<base64url JSON>&autostart=1 (share links).
// `window.tabforge` lets headless drivers (npm run demo, Playwright) run the same thing; its runs show
// on the page too.
import './styles.css';
import type { FeatureLevelChoice } from '../gpu/device';
import { routingToolChats } from '../data/toolChats';
import type { CheckResult } from '../ops/selfCheck';
import type { DemoEvent } from '../pipeline/demoPipeline';
import type { AdapterReport, PageRunOptions, PageRunSummary, WorkerFailure } from '../workers/gpu.worker';
import { PRESETS } from '../model/config';
import { countParameters } from '../model/parameters';
import { GpuClient, STOP_GRACE_MS } from './gpuClient';
import { checkTrainable, formatCount } from './modelSource';
import { DEFAULT_RUN_CONFIG, DEMO_TRAINING_SHAPE, type RunConfig } from './runConfig';
import { initialProgress, progressAfter } from './runProgress';
import { parseSampleText } from './sampleMessages';
import { autostartHold, readShareLink } from './shareLink';
import { createConfigForm } from './ui/configForm';
import { h, panel } from './ui/dom';
import { createErrorBox } from './ui/errorBox';
import { createGrpoChart } from './ui/grpoChart';
import { createHeader } from './ui/header';
import { createLossChart } from './ui/lossChart';
import { createModelPanel } from './ui/modelPanel';
import { createRunControls, type RunState } from './ui/runControls';
import { createRunLog } from './ui/runLog';
import { createSampleViewer } from './ui/sampleViewer';
import { createSummaryPanel } from './ui/summaryPanel';
import { installSwarm } from './swarmHooks';

const params = new URLSearchParams(location.search);

// ---- layout ----------------------------------------------------------------------------------
const header = createHeader();
const errors = createErrorBox();
const form = createConfigForm();
const controls = createRunControls();
const runLog = createRunLog();
const model = createModelPanel();
const chart = createLossChart();
const grpoChart = createGrpoChart();
const summary = createSummaryPanel();
const sample = createSampleViewer();
const app = document.getElementById('app')!;
app.replaceChildren(
  header.el,
  errors.el,
  h('main', { class: 'layout' },
    h('div', { class: 'col' }, form.el, panel('Run', 'run-panel', controls.el, runLog.el), model.el),
    h('div', { class: 'col wide' }, chart.el, grpoChart.el, summary.el, sample.el)),
);

// ---- GPU worker --------------------------------------------------------------------------------
const gpu = new GpuClient({
  onLost: (f) => {
    errors.show('GPU', f.message);
    header.setAdapter(f);
    setState('no-gpu');
  },
  onRestart: () => model.forget('The GPU worker was restarted to stop a run, so the loaded model is gone: load it again to use it.'),
});

let state: RunState = 'no-gpu';
function setState(s: RunState): void {
  state = s;
  controls.setState(s, form.read().ok);
  form.setDisabled(s === 'running' || s === 'stopping');
  model.setDisabled(s === 'running' || s === 'stopping');
}

/** Re-checks what the next run needs against the adapter, for the run panel and the model panel. */
function refreshFit(): void {
  const r = form.read();
  const a = gpu.report;
  const limits = a ? { maxBufferSize: a.maxBufferSize, maxStorageBufferBindingSize: a.maxStorageBufferBindingSize } : null;
  model.updateFit(limits, r.ok ? DEMO_TRAINING_SHAPE : null);
  if (!r.ok) controls.setEstimate('', null);
  else if (model.useLoaded()) controls.setEstimate('', { ok: true, lines: ['starts from the loaded model (see Load model for its fit)'] });
  else {
    const { preset } = r.config;
    controls.setEstimate(`preset ${preset}, ${formatCount(countParameters(PRESETS[preset]))} parameters`, checkTrainable(PRESETS[preset], DEMO_TRAINING_SHAPE, limits, `preset ${preset}`));
  }
  controls.setState(state, r.ok);
}
form.onChange(refreshFit);

async function initGpu(level: FeatureLevelChoice): Promise<AdapterReport | WorkerFailure> {
  header.setAdapter('pending');
  const r = await gpu.init(level);
  header.setAdapter(r);
  if ('code' in r) {
    errors.show('GPU', r.message);
    setState('no-gpu');
    controls.setStatus('No GPU: training is unavailable in this browser (see the error above).');
  } else {
    errors.clear('GPU');
    if (state === 'no-gpu') setState('idle');
    controls.setStatus('Ready.');
  }
  refreshFit();
  return r;
}

// ---- runs -----------------------------------------------------------------------------------
function showReference(seed: number): void {
  // The test task the sample answers (routing task 0 of the test split), as the expert solves it.
  void routingToolChats(1, seed, 'test').then(([chat]) => {
    sample.show('reference', 'Expert reference for the same task', chat.messages.map((m) => ({ role: m.role, content: m.content, name: m.name })));
  });
}

function onRunEvent(e: DemoEvent): void {
  switch (e.kind) {
    case 'stage':
      runLog.add(`== ${e.stage}${e.detail ? `: ${e.detail}` : ''}`);
      break;
    case 'check':
      runLog.add(`${e.ok ? 'ok  ' : 'FAIL'} ${e.name} (rel err ${e.relErr.toExponential(1)})`, e.ok ? 'ok' : 'bad');
      break;
    case 'sft':
      chart.push(e.metrics.step, e.metrics.loss, e.metrics.evalLoss);
      break;
    case 'grpo': {
      const g = e.progress;
      grpoChart.push(g);
      if (g.skipped) runLog.add(`GRPO step ${g.step}: update skipped (${g.reason ?? 'no reason given'})`);
      break;
    }
    case 'eval':
      summary.addEval(e.label, e.success, e.total);
      runLog.add(`${e.label}: ${e.success}/${e.total} test tasks solved, reward ${e.reward.toFixed(3)}`);
      break;
    case 'sample':
      sample.show('model', `Trained model, test request (${e.success ? 'solved' : 'not solved'})`, parseSampleText(e.text));
      break;
    case 'done':
      break;
  }
}

/** Runs the demo in the worker with the page showing it; the window.tabforge API goes through here too. */
async function run(opts: PageRunOptions, onEvent?: (e: DemoEvent) => void): Promise<PageRunSummary | WorkerFailure> {
  if (state !== 'idle') return { code: 'busy', message: state === 'no-gpu' ? 'no GPU device: see the error box' : 'a run is already in progress' };
  errors.clear('Run');
  chart.reset();
  grpoChart.reset();
  summary.reset();
  sample.reset();
  runLog.clear();
  setState('running');
  const selfCheck = !(opts.skipSelfCheck ?? opts.quick ?? false);
  let progress = initialProgress();
  controls.setProgress(progress);
  let sawDone: () => void = () => undefined;
  const doneEvent = new Promise<void>((resolve) => (sawDone = resolve));
  let ended = false;
  const r = await gpu.runDemo(opts, (e) => {
    onEvent?.(e);
    progress = progressAfter(progress, e, selfCheck);
    if (!ended) controls.setProgress(progress); // once ended, the status line tells how
    onRunEvent(e);
    if (e.kind === 'done') sawDone();
  });
  // Events come through their own MessagePort, so the result can overtake the last of them.
  if (!('code' in r)) await Promise.race([doneEvent, new Promise((resolve) => setTimeout(resolve, 3000))]);
  ended = true;
  if ('code' in r) {
    if (r.code === 'stopped') controls.setStatus(`Stopped: ${r.message}.`);
    else {
      errors.show('Run', r.message);
      controls.setStatus('Failed: see the error above.');
    }
  } else {
    summary.setSummary(r);
    showReference(opts.seed ?? DEFAULT_RUN_CONFIG.seed);
  }
  setState(gpu.report ? 'idle' : 'no-gpu');
  return r;
}

function startFromForm(): void {
  const r = form.read();
  if (!r.ok) return;
  const { quick, ...rest }: RunConfig = r.config;
  void run({ ...rest, quick, useLoadedModel: model.useLoaded() });
}

controls.onStart(startFromForm);
/** Stops the run in progress (the Stop button, window.tabforge.stop). */
async function stopRun(graceMs = STOP_GRACE_MS): Promise<'stopped' | 'restarted' | 'idle'> {
  if (state !== 'running') return 'idle';
  setState('stopping');
  controls.setStatus('Stopping after the current step…');
  const how = await gpu.stop(graceMs);
  if (how === 'restarted') {
    // The worker was replaced (and re-initialised on the same adapter level) to end the run.
    const report = gpu.report;
    header.setAdapter(report ?? { code: 'no-adapter', message: 'the restarted GPU worker has no device' });
    if (report) setState('idle');
    else errors.show('GPU', 'the GPU worker was restarted to stop a run and could not get a device again: reload the page');
    controls.setStatus(`Stopped: the GPU worker did not stop within ${graceMs / 1000} s and was restarted.`);
  }
  return how;
}
controls.onStop(() => void stopRun());

// ---- model loading -------------------------------------------------------------------------
model.onLoaded(async (m) => {
  await gpu.loadModel(m);
  errors.clear('Load model');
});
model.onError((message) => (message ? errors.show('Load model', message) : errors.clear('Load model')));
model.onUnload(() => void gpu.unloadModel());
model.onStateChange(refreshFit);

// ---- share links -------------------------------------------------------------------------------
function applyShareLink(): boolean {
  const link = readShareLink(location.hash, location.search);
  if (link.kind === 'none') {
    form.set(DEFAULT_RUN_CONFIG);
    return false;
  }
  form.set(link.config);
  if (link.kind === 'invalid') {
    errors.show('Share link', link.error);
    return false;
  }
  errors.clear('Share link');
  return link.autostart;
}
/** Starts an autostart link's run, unless it is a long one: that waits for the person to press Start. */
function autostartFromLink(): void {
  const r = form.read();
  const hold = r.ok ? autostartHold(r.config) : null;
  if (hold === null) startFromForm();
  else controls.setStatus(hold);
}
window.addEventListener('hashchange', () => {
  if (state === 'running' || state === 'stopping') return;
  if (applyShareLink() && state === 'idle') autostartFromLink();
});

// ---- headless API ----------------------------------------------------------------------------
const tabforge = {
  crossOriginIsolated: globalThis.crossOriginIsolated,
  /** Acquires the worker's device ('auto': core, else compatibility); repeated calls with one level reuse it. */
  init(featureLevel: FeatureLevelChoice = 'auto'): Promise<AdapterReport | WorkerFailure> {
    return initGpu(featureLevel);
  },
  async selfCheck(filter?: string): Promise<CheckResult[]> {
    runLog.el.setAttribute('open', '');
    return gpu.selfCheck(filter, (r) => runLog.add(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (rel err ${r.relErr.toExponential(2)} ≤ ${r.tol})${r.error ? ` — ${r.error}` : ''}`, r.ok ? 'ok' : 'bad'));
  },
  /** Runs the demo pipeline in the worker; `onEvent` (e.g. exposed by Playwright) sees every event. */
  runDemo(opts: PageRunOptions = {}, onEvent?: (e: DemoEvent) => void): Promise<PageRunSummary | WorkerFailure> {
    return run(opts, onEvent);
  },
  /** Stops the run in progress as the Stop button does; after `graceMs` the worker is restarted. */
  stop: (graceMs?: number) => stopRun(graceMs),
};

declare global {
  interface Window {
    tabforge: typeof tabforge;
  }
}
window.tabforge = tabforge;

// ---- boot ------------------------------------------------------------------------------------
const autostart = applyShareLink();
setState('no-gpu');
const level = (params.get('adapter') ?? 'auto') as FeatureLevelChoice;
installSwarm({ mount: (el) => app.querySelector('main .col')!.append(el), featureLevel: () => level }); // the swarm panel; a #swarm= link joins its run
void initGpu(level).then(async (r) => {
  if ('code' in r) return;
  if (params.get('run') === 'selfcheck') await tabforge.selfCheck();
  else if (autostart) autostartFromLink();
});
