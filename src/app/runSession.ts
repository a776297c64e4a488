// A run's life in the page: start (holding the tab lock, with a run record in the history and
// autosave to its own checkpoint database), the worker's events into the view, the store (batched)
// and watching tabs, stop, and what happens after — done, stopped, failed, or the GPU device lost
// (then the run can resume from its last checkpoint). Also resuming a run from the history and
// watching a run another tab is training.
import type { PipelineConfig } from '../pipeline/config';
import type { EpisodeView, PageRunEvent, PageRunResult, WorkerFailure } from '../workers/runEvents';
import { describeEta, estimateRemaining, type StageTimes } from './eta';
import type { GpuClient } from './gpuClient';
import { initialProgress, progressAfter, type RunProgress } from './runProgress';
import { type RunRecord, RunStore } from './runStore';
import type { RunView } from './runView';
import type { RunAnnouncement, TabLink } from './tabs';
import type { ErrorBox } from './ui/errorBox';
import type { Notices } from './ui/notices';
import type { RunControls, RunSettings, RunState } from './ui/runControls';

export interface SessionUi {
  controls: RunControls;
  notices: Notices;
  errors: ErrorBox;
  /** Called whenever the state changes (the page enables and disables its forms). */
  stateChanged(s: RunState): void;
  /** The run history changed (list it again). */
  historyChanged(): void;
  /** A run finished: the worker holds a trained model now. */
  trained(): void;
  /** Whether runs start from the loaded model. */
  useLoadedModel(): boolean;
  /** Loads a config's `start.bundled` model and ticks it for the run (no-op if it is loaded and ticked); false when it failed. */
  loadStart(bundledId: string): Promise<boolean>;
  /** Unticks a model that an earlier config's start loaded (this config names none). */
  releaseConfigStart(): void;
  adapterName(): string;
}

export interface StartOptions {
  config: PipelineConfig;
  title: string;
  settings: RunSettings;
  /** Continue this run from its newest checkpoint. */
  resumeOf?: RunRecord;
  samples?: number;
  /** Also told every event (the headless API). */
  onEvent?: (e: PageRunEvent) => void;
}

const FLUSH_MS = 2000;
/** A device loss reported this long after a run failed is still taken as its cause. */
const LATE_LOSS_MS = 10_000;
const hasAsync = (c: PipelineConfig) => c.stages.some((s) => s.kind === 'grpo' && s.staleness !== undefined);

export class RunSession {
  state: RunState = 'no-gpu';
  /** The run shown (running, watched, or viewed from the history). */
  shown: RunRecord | null = null;
  private running: RunRecord | null = null;
  private pending: { events: PageRunEvent[]; episodes: EpisodeView[] } = { events: [], episodes: [] };
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private eventIndex = 0;
  private progress: RunProgress = initialProgress();
  private times: StageTimes = { start: new Map(), end: new Map() };
  private lost: WorkerFailure | null = null;
  /** The last run that failed, for a device loss reported just after it (see deviceLost). */
  private lastFailure: { r: RunRecord; where: string; at: number } | null = null;
  /** Resolves once the current run has been handed to the GPU worker (start() writes its record first). */
  private dispatched: Promise<void> = Promise.resolve();
  private watching: string | null = null;
  private ticker: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly gpu: GpuClient, readonly store: RunStore | null, private readonly tabs: TabLink, private readonly view: RunView, private readonly ui: SessionUi) {
    tabs.onMessage((m) => {
      if (m.type === 'event' && m.runId === this.watching) {
        if (m.seq === -1 || m.seq >= this.eventIndex) {
          if (m.seq >= 0) this.eventIndex = m.seq + 1;
          this.view.apply(m.event);
          this.tick(m.event);
        }
      } else if (m.type === 'ended' && this.state === 'elsewhere') {
        this.ui.notices.show('tab', `The run in the other tab ended (${m.status}). You can start a run here now.`);
        this.watching = null;
        this.setState(this.gpu.report ? 'idle' : 'no-gpu');
        this.ui.historyChanged();
      }
    });
  }

  setState(s: RunState): void {
    this.state = s;
    this.ui.stateChanged(s);
  }

  /** Steps a reload would lose (the leave-page warning). */
  get unsavedSteps(): number {
    return this.running ? this.running.unsavedSteps : 0;
  }

  private config(): PipelineConfig | null {
    return (this.running ?? this.shown)?.config ?? null;
  }

  /** Progress bar, status line and ETA after an event (this tab's run or a watched one). */
  private tick(e: PageRunEvent): void {
    const cfg = this.config();
    if (!cfg) return;
    this.progress = progressAfter(this.progress, e, cfg, false);
    if (e.kind === 'phase' && e.stage !== null) this.times.start.set(e.stage, e.at);
    if ((e.kind === 'sft' || e.kind === 'grpo') && e.step === e.totalSteps) this.times.end.set(e.stage, e.at);
    if (e.kind === 'eval') this.times.end.set(e.stage, Date.now());
    this.ui.controls.setProgress(this.progress.fraction, this.progress.label);
  }

  private refreshEta(): void {
    const cfg = this.config();
    if (!cfg || this.progress.done) return;
    const waited = (Date.now() - this.progress.phaseStart) / 1000;
    const eta = describeEta(estimateRemaining(cfg, this.view.series, this.times, this.progress.stage === null ? null : { stage: this.progress.stage }, Date.now()));
    this.ui.controls.setEta(waited >= 3 ? `${eta} · ${waited.toFixed(0)} s since the last step` : eta);
  }

  private startTicker(): void {
    this.stopTicker();
    this.ticker = setInterval(() => this.refreshEta(), 1000);
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }

  /** Writes pending events and episodes and the run record (batched every FLUSH_MS). */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const r = this.running;
    if (!this.store || !r) return;
    const { events, episodes } = this.pending;
    this.pending = { events: [], episodes: [] };
    await this.store.append(r.id, events, episodes);
    await this.store.put(r);
  }

  private schedule(): void {
    this.flushTimer ??= setTimeout(() => void this.flush().catch((e) => this.ui.errors.show('Storage', `saving the run history failed: ${(e as Error).message}`)), FLUSH_MS);
  }

  private onEvent(r: RunRecord, e: PageRunEvent): void {
    this.view.apply(e);
    this.tick(e);
    if (e.kind === 'sft' || e.kind === 'grpo') r.unsavedSteps++;
    if (e.kind === 'saved') {
      r.lastSaved = { stage: e.stage, step: e.step, at: Date.now(), id: e.id };
      r.unsavedSteps = 0;
    }
    if (e.kind === 'episodes') {
      this.pending.episodes.push(...e.episodes);
      this.tabs.broadcast(r.id, e, -1);
    } else {
      this.pending.events.push(e);
      this.tabs.broadcast(r.id, e, this.eventIndex++);
    }
    if (e.kind === 'saved' || e.kind === 'done') void this.flush();
    else this.schedule();
  }

  async start(o: StartOptions): Promise<PageRunResult | WorkerFailure> {
    if (this.state !== 'idle') return { code: 'busy', message: this.state === 'no-gpu' ? 'no GPU device: see the error box' : this.state === 'elsewhere' ? 'another tab is running a run on this browser\'s storage' : 'a run is already in progress' };
    // the config names its start weights: load them like a model the user picked (the panel shows them);
    // a resumed run's weights come from its checkpoint instead
    if (o.config.start && !o.resumeOf && !(await this.ui.loadStart(o.config.start.bundled))) {
      return { code: 'error', message: `the config starts from the bundled model ${o.config.start.bundled}, and loading it failed: see the error box` };
    }
    // no start named: a model that only an earlier config's start loaded does not carry over (the user's own stays)
    if (!o.config.start && !o.resumeOf) this.ui.releaseConfigStart();
    const id = o.resumeOf?.id ?? RunStore.newId();
    const release = await this.tabs.acquire({ runId: id, title: o.title, config: o.config, startedAt: Date.now() });
    if (!release) {
      this.ui.notices.show('tab', 'Another tab of this browser started a run a moment ago; starting a second one here would share its storage, so nothing was started.');
      return { code: 'busy', message: 'another tab holds the run lock' };
    }
    const checkpointDb = o.settings.autosaveEvery > 0 && !hasAsync(o.config) ? (o.resumeOf?.checkpointDb ?? `tabforge-ckpt-${id}`) : null;
    const r: RunRecord = o.resumeOf
      ? { ...o.resumeOf, status: 'running', error: null, result: null, unsavedSteps: 0 }
      : { id, createdAt: Date.now(), updatedAt: Date.now(), title: o.title, config: o.config, status: 'running', checkpointDb, lastSaved: null, unsavedSteps: 0, result: null, error: null, adapter: this.ui.adapterName() };
    this.ui.errors.clear('Run');
    this.ui.notices.clear('resume');
    this.ui.notices.clear('device');
    this.running = r;
    this.shown = r;
    this.watching = null;
    this.pending = { events: [], episodes: [] };
    if (o.resumeOf && this.store) {
      const [events, episodes] = await Promise.all([this.store.events(id), this.store.episodes(id)]);
      this.view.load(o.config, events, episodes);
      this.eventIndex = events.length;
    } else {
      this.view.reset(o.config);
      this.eventIndex = 0;
    }
    if (hasAsync(o.config) && o.settings.autosaveEvery > 0) this.view.apply({ kind: 'log', line: 'async GRPO stages are not checkpointed yet: this run keeps no checkpoints' });
    this.progress = initialProgress();
    this.times = { start: new Map(), end: new Map() };
    this.ui.controls.setProgress(0, o.resumeOf ? 'resuming…' : 'starting…');
    this.ui.controls.setEta('');
    let dispatched = () => {};
    this.dispatched = new Promise<void>((resolve) => (dispatched = resolve));
    this.setState('running');
    this.startTicker();
    await this.store?.put(r).catch((e) => {
      dispatched(); // a Stop waiting for the worker's run must not wait forever
      throw e;
    });
    this.ui.historyChanged();
    let sawDone: () => void = () => {};
    const doneEvent = new Promise<void>((resolve) => (sawDone = resolve));
    const running = this.gpu.run({
      config: o.config, selfCheck: o.settings.selfCheck, samples: o.samples ?? 3, useLoadedModel: this.ui.useLoadedModel(),
      checkpoints: checkpointDb ? { dbName: checkpointDb, every: o.settings.autosaveEvery, keepLast: 2 } : undefined,
      resume: o.resumeOf !== undefined, workerActors: true, episodesPerStep: 64,
    }, (e) => {
      o.onEvent?.(e);
      this.onEvent(r, e);
      if (e.kind === 'done') sawDone();
    });
    dispatched();
    const result = await running;
    // events come through their own MessagePort, so the result can overtake the last of them
    if (!('code' in result)) await Promise.race([doneEvent, new Promise((res) => setTimeout(res, 3000))]);
    // a device loss is reported on its own channel and may come after the failure it caused
    else if (result.code !== 'stopped' && !this.lost && (await this.gpu.deviceLost().catch(() => false))) this.lost = { code: 'device-lost', message: result.message };
    this.stopTicker();
    this.finish(r, result);
    await this.flush().catch(() => undefined);
    this.running = null;
    release();
    this.tabs.ended(r.id, r.status);
    this.setState(this.gpu.report ? 'idle' : 'no-gpu');
    this.ui.historyChanged();
    if (!('code' in result)) this.ui.trained();
    return result;
  }

  /** Sets the record's outcome and tells the person what happened and what they can do. */
  private finish(r: RunRecord, result: PageRunResult | WorkerFailure): void {
    const where = this.progress.stage === null ? 'before its first stage' : `in stage ${this.progress.stage + 1}`;
    if (!('code' in result)) {
      r.status = 'done';
      r.result = result;
      this.ui.controls.setEta('');
      return;
    }
    r.error = result.message;
    this.lastFailure = null;
    if (this.lost) {
      this.showLost(r, this.lost, where);
      this.lost = null;
    } else if (result.code === 'stopped') {
      r.status = 'stopped';
      this.ui.controls.setStatus(`Stopped ${where}: ${result.message.replace(/^run stopped(: | by the user )?/, '')}. ${r.lastSaved ? 'Resume it from the run history.' : ''}`);
    } else {
      r.status = 'failed';
      this.ui.errors.show('Run', result.message);
      this.ui.controls.setStatus('Failed: see the error above.');
      this.lastFailure = { r, where, at: Date.now() };
    }
    this.ui.controls.setEta('');
  }

  /** The run stopped because the device was lost: the notice says where, and offers its checkpoint. */
  private showLost(r: RunRecord, f: WorkerFailure, where: string): void {
    r.status = 'interrupted';
    const reason = /lost \(([^)]*)\)/.exec(f.message)?.[1];
    const saved = r.lastSaved ? `its last checkpoint (stage ${r.lastSaved.stage + 1}, step ${r.lastSaved.step}) can resume it` : 'no checkpoint was saved yet, so it would start over';
    this.ui.notices.show('device', `The GPU device was lost${reason ? ` (${reason})` : ''} ${where}, so the run stopped; ${saved}. A new device is being acquired.`,
      r.lastSaved ? [{ label: 'Resume from the checkpoint', testid: 'resume-device', primary: true, run: () => void this.resume(r.id) }] : []);
    this.ui.controls.setStatus(`Stopped: the GPU device was lost ${where}.`);
  }

  /** Stops the run in progress (Stop, window.tabforge.stop). */
  async stop(graceMs?: number): Promise<'stopped' | 'restarted' | 'idle'> {
    if (this.state !== 'running') return 'idle';
    this.setState('stopping');
    this.ui.controls.setStatus('Stopping after the current step (a first step that compiles the kernels can take a while)…');
    await this.dispatched; // a Stop right after Start must reach the worker's run, not find none yet
    return this.gpu.stop(graceMs);
  }

  /**
   * The GPU device was lost: remembered for the run's outcome; a new device is acquired by the caller.
   * The loss is reported on its own channel, so it can come just after the failure it caused: that
   * run is then re-marked as interrupted by the loss. False: no run was concerned (the page is idle).
   */
  deviceLost(f: WorkerFailure): boolean {
    if (this.running) {
      this.lost = f;
      return true;
    }
    const last = this.lastFailure;
    this.lastFailure = null;
    if (!last || Date.now() - last.at > LATE_LOSS_MS) return false;
    this.ui.errors.clear('Run');
    this.showLost(last.r, f, last.where);
    void this.store?.put(last.r).then(() => this.ui.historyChanged());
    return true;
  }

  async resume(id: string): Promise<PageRunResult | WorkerFailure> {
    const r = await this.store?.get(id);
    if (!r) return { code: 'error', message: `run ${id} is not in the history` };
    const settings = this.ui.controls.settings();
    if (!settings) return { code: 'error', message: 'fix the run settings first' };
    return this.start({ config: r.config, title: r.title, settings: { ...settings, autosaveEvery: settings.autosaveEvery || 10 }, resumeOf: r });
  }

  /** Shows a stored run (not running) with its charts, log and episodes. */
  async viewRun(id: string): Promise<RunRecord | null> {
    const r = await this.store?.get(id);
    if (!r || !this.store) return null;
    const [events, episodes] = await Promise.all([this.store.events(id), this.store.episodes(id)]);
    this.shown = r;
    this.view.load(r.config, events, episodes);
    if (r.result) this.view.showResult(r.result);
    this.progress = events.reduce((p, e) => progressAfter(p, e, r.config, false), initialProgress());
    this.ui.controls.setProgress(r.status === 'done' ? 1 : this.progress.fraction, `${r.title}: ${r.status}${r.lastSaved ? ` (checkpoint at stage ${r.lastSaved.stage + 1}, step ${r.lastSaved.step})` : ''}`);
    return r;
  }

  /** Follows a run another tab is training: its history from the store, then its live events. */
  async watch(a: RunAnnouncement): Promise<void> {
    this.watching = a.runId;
    const r = await this.viewRun(a.runId);
    if (!r && this.store) this.view.reset(a.config);
    this.eventIndex = r && this.store ? (await this.store.events(a.runId)).length : 0;
    this.shown = r ?? this.shown;
    this.ui.controls.setStatus(`Watching the run in another tab: ${a.title}.`);
    this.startTicker();
  }
}
