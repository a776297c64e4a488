// The TabForge page: what it does and an editor for any pipeline (examples, task sets, stages and
// their hyper-parameters; shareable as a link), Start/Stop with progress and a live time estimate,
// charts, evaluations, a trajectory browser and a playground; runs kept in this browser's storage
// (autosave, resume after a reload or a lost GPU, history and comparison, export); one run per
// browser across tabs. Training runs in a GPU Worker (Comlink). URL parameters:
// ?adapter=core|compatibility|auto, ?run=selfcheck, #pipeline=<base64url JSON>&autostart=1.
// `window.tabforge` lets headless drivers (npm run demo, Playwright) run the same thing on the page.
import './styles.css';
import type { FeatureLevelChoice } from '../gpu/device';
import { PRESETS } from '../model/config';
import { countParameters } from '../model/parameters';
import type { CheckResult } from '../ops/selfCheck';
import type { PipelineConfig } from '../pipeline/config';
import { requestPersistentStorage, storageStatus } from '../storage/browserStorage';
import type { AdapterReport, DemoRequest } from '../workers/gpu.worker';
import type { PageRunEvent, PageRunResult, WorkerFailure } from '../workers/runEvents';
import { GpuClient } from './gpuClient';
import { checkTrainable, formatCount } from './modelSource';
import { autostartHold, describeStages } from './pipelineDraft';
import { readProbe, saveProbe } from './probeCache';
import { RunSession } from './runSession';
import { RunStore } from './runStore';
import { RunView } from './runView';
import { hashWithoutAutostart, readShareLink, shareUrl } from './shareLink';
import { installSwarm, swarmHooks } from './swarmHooks';
import { TabLink } from './tabs';
import { createChartsPanel } from './ui/chartsPanel';
import { h, panel } from './ui/dom';
import { downloadBlob } from './ui/download';
import { createErrorBox } from './ui/errorBox';
import { createHeader } from './ui/header';
import { createHistoryPanel } from './ui/historyPanel';
import { createIntro } from './ui/intro';
import { createModelPanel } from './ui/modelPanel';
import { createNotices } from './ui/notices';
import { createPipelineEditor } from './ui/pipelineEditor';
import { createPlayground } from './ui/playground';
import { createResultsPanel } from './ui/resultsPanel';
import { type AdapterChoice, createRunControls, type RunState } from './ui/runControls';
import { createRunLog } from './ui/runLog';
import { createTrajectoryBrowser } from './ui/trajectoryBrowser';
import { trainingShapeOf } from './trainingShape';

const params = new URLSearchParams(location.search);

// ---- layout ----------------------------------------------------------------------------------
const header = createHeader();
const errors = createErrorBox();
const notices = createNotices();
const editor = createPipelineEditor();
const controls = createRunControls();
const runLog = createRunLog();
const model = createModelPanel();
const charts = createChartsPanel();
const results = createResultsPanel();
const browser = createTrajectoryBrowser();
const tabs = new TabLink();
const gpu = new GpuClient({
  onLost: (f) => {
    const forRun = session.deviceLost(f);
    header.setAdapter(f);
    // a run's loss gets its own notice (with its checkpoint) from the session; this one is for an idle page
    if (!forRun && session.state !== 'running' && session.state !== 'stopping' && !notices.has('device')) {
      idleLoss = true;
      notices.show('device', 'The GPU device was lost (the driver reset or the GPU was removed); a new one is being acquired.');
    }
    void initGpu(controls.settings()?.adapter ?? 'auto');
  },
  onRestart: () => {
    if (session.state === 'no-gpu' && gpu.report) session.setState('idle');
    // a forced stop replaced the worker: only a model that was loaded is gone, and the adapter is new
    if (model.hasModel()) model.forget('The GPU worker was restarted to stop a run, so the loaded model is gone: load it again to use it.');
    header.setAdapter(gpu.report ?? { code: 'no-adapter', message: 'the restarted GPU worker has no device' });
    refresh();
  },
});
/** The device notice shown is the idle one (cleared once a new device is there). */
let idleLoss = false;
const playground = createPlayground((a, onMessage) => gpu.playground(a, onMessage));
const view = new RunView({ charts, browser, results, log: runLog });
const historyPanel = createHistoryPanel({
  view: (id) => void session.viewRun(id).then((r) => r && editor.set(r.config, r.title)),
  resume: (id) => void session.resume(id),
  remove: async (id) => {
    await session.store?.remove(id);
    void listHistory();
  },
  load: async (id) => {
    const r = await session.store?.get(id);
    if (!r || !session.store) return null;
    const v = new RunView({ charts: { refresh: () => {}, restyle: () => {}, chart: () => null as never, el: h('div') }, browser: { add: () => {}, reset: () => {}, count: 0, el: h('div') }, results: { reset: () => {}, addEval: () => {}, setResult: () => {}, el: h('div') }, log: { add: () => {}, clear: () => {}, lines: 0, el: h('details') } });
    v.load(r.config, await session.store.events(id), []);
    return { record: r, series: v.series };
  },
});

const leftColumn = h('div', { class: 'col' }, editor.el, panel('Run', 'run-panel', controls.el, runLog.el), model.el, historyPanel.el);
document.getElementById('app')!.replaceChildren(
  header.el, errors.el, notices.el, createIntro(),
  h('main', { class: 'layout' },
    leftColumn,
    h('div', { class: 'col wide' }, charts.el, results.el, browser.el, playground.el)),
);
header.onTheme(() => charts.restyle());

const store = await RunStore.open().catch((e: unknown) => {
  errors.show('Storage', `this browser gives the page no storage (${(e as Error).message}): runs will not survive a reload`);
  return null;
});
const session = new RunSession(gpu, store, tabs, view, {
  controls, notices, errors,
  stateChanged: () => refresh(),
  historyChanged: () => void listHistory(),
  trained: () => void gpu.trainedModel().then((m) => {
    playground.setModel(m);
    model.setTrained(m?.label ?? null);
  }),
  useLoadedModel: () => model.useLoaded(),
  loadStart: (id) => model.ensureBundled(id),
  releaseConfigStart: () => model.releaseConfigStart(),
  adapterName: () => gpu.report?.name ?? 'unknown',
});
tabs.onAsked = () => session.flush();

async function listHistory(): Promise<void> {
  if (store) historyPanel.show(await store.list(), session.shown?.id ?? null, session.state === 'running' || session.state === 'stopping');
}

/** Start, the forms and the fit estimate after any change (state, an edit, a model load). */
function refresh(): void {
  const s: RunState = session.state;
  const busy = s === 'running' || s === 'stopping';
  const r = editor.read();
  editor.setDisabled(busy);
  model.setDisabled(busy);
  playground.setBusy(busy);
  const settingsOk = controls.settings() !== null;
  const why = s === 'elsewhere' ? 'Another tab of this browser is training: one run at a time shares this browser\'s storage.'
    : !r.config ? 'Fix the fields marked in the pipeline to start.' : !settingsOk ? 'Fix the run settings to start.' : '';
  controls.setState(s, r.config !== null && settingsOk, why);
  const a = gpu.report;
  const limits = a ? { maxBufferSize: a.maxBufferSize, maxStorageBufferBindingSize: a.maxStorageBufferBindingSize } : null;
  const shape = r.config ? trainingShapeOf(r.config) : null;
  model.updateFit(limits, shape);
  if (!r.config || !shape) controls.setEstimate('', null);
  else if (model.useLoaded()) controls.setEstimate('', { ok: true, lines: ['starts from the loaded model (see Load model for its fit)'] });
  else controls.setEstimate(`preset ${r.config.preset}, ${formatCount(countParameters(PRESETS[r.config.preset]))} parameters`, checkTrainable(PRESETS[r.config.preset], shape, limits, `preset ${r.config.preset}`));
}
editor.onChange(() => refresh());
model.onStateChange(refresh);

// ---- GPU adapter -------------------------------------------------------------------------------
async function initGpu(choice: AdapterChoice | FeatureLevelChoice): Promise<AdapterReport | WorkerFailure> {
  header.setAdapter('pending', choice === 'auto' ? 'timing the adapters…' : undefined);
  let level: FeatureLevelChoice = choice;
  let how = choice === 'auto' ? '' : 'chosen in Run settings';
  if (choice === 'auto') {
    const cached = readProbe();
    const signature = await gpu.signature().catch(() => '');
    if (cached && cached.signature === signature) {
      level = cached.choice;
      how = `auto: ${cached.reason} (measured earlier)`;
    } else {
      const p = await gpu.probe();
      if ('code' in p) how = `auto (the probe failed: ${p.message})`;
      else {
        level = p.choice;
        how = `auto: ${p.reason}`;
        saveProbe(p);
      }
    }
  }
  const r = await gpu.init(level);
  header.setAdapter(r, 'code' in r ? undefined : how);
  if ('code' in r) {
    errors.show('GPU', r.message);
    session.setState('no-gpu');
    controls.setStatus('No GPU: training is unavailable in this browser (see the error above).');
  } else {
    errors.clear('GPU');
    if (idleLoss) notices.clear('device');
    idleLoss = false;
    if (session.state === 'no-gpu') session.setState('idle');
    if (session.state === 'idle') controls.setStatus('Ready.');
  }
  refresh();
  return r;
}
controls.onAdapter((a) => {
  if (session.state === 'idle' || session.state === 'no-gpu') void initGpu(a);
});

// ---- runs -------------------------------------------------------------------------------------
function startFromForm(): void {
  const r = editor.read();
  const settings = controls.settings();
  if (!r.config || !settings) return;
  void session.start({ config: r.config, title: editor.title(), settings });
}
controls.onStart(startFromForm);
controls.onStop(() => void session.stop());
controls.onShare(async (autostart) => {
  const r = editor.read();
  return r.config ? shareUrl(location.href, r.config, { autostart }) : null;
});
model.onLoaded(async (m) => {
  await gpu.loadModel(m);
  errors.clear('Load model');
});
model.onError((message) => (message ? errors.show('Load model', message) : errors.clear('Load model')));
model.onUnload(() => void gpu.unloadModel());
model.onExport(async () => {
  const r = await gpu.exportTrained();
  if ('code' in r) throw new Error(r.message);
  downloadBlob(r.blob, r.name);
});

window.addEventListener('beforeunload', (e) => {
  if ((session.state === 'running' || session.state === 'stopping') && session.unsavedSteps > 0) {
    e.preventDefault();
    e.returnValue = ''; // Chromium shows its own "leave site?" text
  }
});
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden' && session.state === 'running') {
    gpu.requestSave(); // a checkpoint after the current step, in case the tab is discarded
    void session.flush();
  }
});
window.addEventListener('pagehide', () => void session.flush());

// ---- share links ---------------------------------------------------------------------------------
function applyShareLink(): { autostart: boolean; config: PipelineConfig | null } {
  const link = readShareLink(location.hash, location.search);
  if (link.kind === 'none') return { autostart: false, config: null };
  if (link.kind === 'invalid') {
    errors.show('Share link', link.error);
    return { autostart: false, config: null };
  }
  errors.clear('Share link');
  if (link.converted) notices.show('link', link.converted);
  editor.set(link.config);
  // the address bar keeps the pipeline but not autostart: a reload must not start the run again
  if (link.autostart) window.history.replaceState(null, '', location.pathname + location.search + hashWithoutAutostart(location.hash));
  return { autostart: link.autostart, config: link.config };
}
function autostartFromLink(config: PipelineConfig): void {
  const hold = autostartHold(config);
  if (hold === null) startFromForm();
  else controls.setStatus(hold);
}
window.addEventListener('hashchange', () => {
  if (session.state === 'running' || session.state === 'stopping') return; // the form is the run's while it trains
  const link = applyShareLink();
  if (link.autostart && link.config && session.state === 'idle') autostartFromLink(link.config);
});

// ---- headless API ------------------------------------------------------------------------------
const tabforge = {
  crossOriginIsolated: globalThis.crossOriginIsolated,
  /** Acquires the worker's device ('auto': the faster adapter after a probe); repeated calls with one level reuse it. */
  init: async (featureLevel: FeatureLevelChoice = 'auto') => {
    // after the page's own start-up init: its adapter probe can take seconds, and an init it queued
    // after ours would swap the device out from under the caller (seen: a self-check's device destroyed mid-run)
    await gpuReady;
    return initGpu(featureLevel);
  },
  async selfCheck(filter?: string): Promise<CheckResult[]> {
    await gpuReady; // the same: never on a device the start-up init is about to replace
    runLog.el.setAttribute('open', '');
    return gpu.selfCheck(filter, (r) => runLog.add(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (rel err ${r.relErr.toExponential(2)} ≤ ${r.tol})${r.error ? ` — ${r.error}` : ''}`, r.ok ? 'ok' : 'bad'));
  },
  /** Runs `npm run demo`'s pipeline (DEFAULT_DEMO with these options) on the page; `onEvent` sees every event. */
  async runDemo(opts: DemoRequest = {}, onEvent?: (e: PageRunEvent) => void): Promise<PageRunResult | WorkerFailure> {
    await gpuReady; // a run inits its adapter; the start-up init must not replace that device afterwards
    const d = await gpu.demoConfig(opts);
    editor.set(d.config, 'demo pipeline');
    return session.start({ config: d.config, title: 'demo pipeline', settings: { adapter: 'auto', selfCheck: d.selfCheck, autosaveEvery: 0 }, samples: d.samples, onEvent });
  },
  /** Runs any pipeline config as Start would (settings default to the Run panel's). */
  async run(config: PipelineConfig, opts: { selfCheck?: boolean; autosaveEvery?: number; samples?: number; title?: string } = {}, onEvent?: (e: PageRunEvent) => void): Promise<PageRunResult | WorkerFailure> {
    await gpuReady; // as runDemo
    const s = controls.settings() ?? { adapter: 'auto' as const, selfCheck: false, autosaveEvery: 0 };
    editor.set(config, opts.title);
    return session.start({ config, title: opts.title ?? editor.title(), settings: { ...s, selfCheck: opts.selfCheck ?? false, autosaveEvery: opts.autosaveEvery ?? s.autosaveEvery }, samples: opts.samples, onEvent });
  },
  /** Stops the run in progress as the Stop button does; after `graceMs` the worker is restarted. */
  stop: (graceMs?: number) => session.stop(graceMs),
  /** Test hook: the worker destroys its GPU device (a driver reset). */
  loseDevice: () => gpu.loseDevice(),
  state: () => session.state,
  /** The config of the run shown (running, watched or viewed). */
  shownConfig: (): PipelineConfig | null => session.shown?.config ?? null,
  describe: (c: PipelineConfig) => describeStages(c),
};

declare global {
  interface Window {
    tabforge: typeof tabforge;
    /** performance.now() when the page's interface was built (open time). */
    tabforgeReadyAt?: number;
  }
}
window.tabforge = tabforge;
window.tabforgeReadyAt = performance.now();

// ---- boot ------------------------------------------------------------------------------------
const link = applyShareLink();
session.setState('no-gpu');
void requestPersistentStorage();
void storageStatus().then((s) => historyPanel.el.querySelector('.hint')?.append(` Storage: ${s.summary}.`));
const choice = (params.get('adapter') ?? 'auto') as FeatureLevelChoice;
if (choice !== 'auto') controls.setSettings({ adapter: choice });
const gpuReady = initGpu(choice);
installSwarm({ mount: (el) => leftColumn.append(el), featureLevel: () => choice }); // the swarm panel; a #swarm= link joins its run

/** Another tab training, or an interrupted run of this browser to offer. */
async function bootCheck(): Promise<boolean> {
  if (await TabLink.lockHeld()) {
    session.setState('elsewhere');
    const who = await tabs.whoIsRunning();
    const text = who ? `A run is in progress in another tab of this browser: "${who.title}" (${describeStages(who.config as PipelineConfig)}), started ${new Date(who.startedAt).toLocaleTimeString('en-GB')}.` : 'A run is in progress in another tab of this browser.';
    notices.show('tab', `${text} Only one run at a time trains on this browser's storage, so Start is off here until it ends.`, [
      ...(who ? [{ label: 'Watch it here', testid: 'watch-run', primary: true, run: () => void session.watch(who) }] : []),
      ...(who ? [{ label: swarmHooks().available() ? 'Join it' : 'Train together…', testid: 'join-run', run: () => void swarmHooks().join({ runId: who.runId, config: who.config as PipelineConfig, origin: 'tab' }, (l) => runLog.add(l)).then((o) => notices.show('join', o.message)) }] : []),
    ]);
    return true;
  }
  if (!store) return false;
  const runs = await store.list();
  for (const r of runs.filter((x) => x.status === 'running')) await store.put({ ...r, status: 'interrupted' }); // no tab holds the lock: it died
  const last = (await store.list())[0];
  if (!last) return false;
  if (!link.config) {
    editor.set(last.config, last.title);
    await session.viewRun(last.id);
  }
  if (last.status === 'interrupted') {
    const where = last.lastSaved ? `Its last checkpoint is at stage ${last.lastSaved.stage + 1}, step ${last.lastSaved.step} (${new Date(last.lastSaved.at).toLocaleTimeString('en-GB')}).` : 'It had saved no checkpoint, so it can only start over.';
    notices.show('resume', `Your last run, "${last.title}", stopped when the page was closed or reloaded. ${where}`, [
      ...(last.lastSaved ? [{ label: 'Resume it', testid: 'resume-run', primary: true, run: () => void gpuReady.then(() => session.resume(last.id)) }] : []),
      { label: 'Dismiss', testid: 'dismiss-resume', run: () => notices.clear('resume') },
    ]);
  }
  return false;
}
const elsewhere = await bootCheck();
void listHistory();
void gpuReady.then(async (r) => {
  if ('code' in r) return;
  if (elsewhere) session.setState('elsewhere');
  if (params.get('run') === 'selfcheck') await tabforge.selfCheck();
  else if (link.autostart && link.config && !elsewhere) autostartFromLink(link.config);
});
