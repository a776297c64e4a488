// The page's handle on the GPU worker (Comlink): the adapter probe, one init at a time (cached per
// requested level), runs that can be stopped, the playground and export, and loaded models handed
// over as transferables. Stop asks the worker to stop at its next event; a worker that does not
// answer within STOP_GRACE_MS (a long first step compiling kernels) is terminated and a fresh one
// started on the same adapter.
import * as Comlink from 'comlink';
import type { FeatureLevelChoice } from '../gpu/device';
import type { CheckResult } from '../ops/selfCheck';
import type { PipelineConfig } from '../pipeline/config';
import type { ProbeResult } from '../workers/adapterProbe';
import type { AdapterReport, DemoRequest, GpuWorkerApi, ModelTransfer } from '../workers/gpu.worker';
import type { PlaygroundRequest } from '../workers/playground';
import type { EpisodeView, MessageView, PageRunEvent, PageRunRequest, PageRunResult, WorkerFailure } from '../workers/runEvents';
import type { LoadedModelInfo } from './modelSource';

export const STOP_GRACE_MS = 15_000;

export interface GpuClientEvents {
  /** The device was lost. */
  onLost?: (f: WorkerFailure) => void;
  /** A forced stop restarted the worker: a loaded model and the trained model are gone. */
  onRestart?: () => void;
}

export class GpuClient {
  private worker!: Worker;
  private api!: Comlink.Remote<GpuWorkerApi>;
  private initChain: Promise<unknown> = Promise.resolve();
  private adapter: { level: FeatureLevelChoice; report: AdapterReport } | null = null;
  /** The run in progress: how to end it from here, and a promise that settles with it. */
  private current: { force: (f: WorkerFailure) => void; settled: Promise<void>; open: boolean } | null = null;

  constructor(private readonly events: GpuClientEvents = {}) {
    this.spawn();
  }

  private spawn(): void {
    this.worker = new Worker(new URL('../workers/gpu.worker.ts', import.meta.url), { type: 'module', name: 'tabforge-gpu' });
    this.api = Comlink.wrap<GpuWorkerApi>(this.worker);
  }

  /** The adapter of the last successful init, if any. */
  get report(): AdapterReport | null {
    return this.adapter?.report ?? null;
  }

  get level(): FeatureLevelChoice | null {
    return this.adapter?.level ?? null;
  }

  probe(): Promise<ProbeResult | WorkerFailure> {
    return this.api.probe();
  }

  signature(): Promise<string> {
    return this.api.signature();
  }

  /** Acquires a device at `level`; the same level twice returns the first answer. Calls queue. */
  init(level: FeatureLevelChoice = 'auto'): Promise<AdapterReport | WorkerFailure> {
    const next = this.initChain.then(async () => {
      if (this.adapter?.level === level) return this.adapter.report;
      const lost = (f: WorkerFailure) => {
        this.adapter = null; // the next init acquires a new device
        this.events.onLost?.(f);
      };
      const r = await this.api.init({ featureLevel: level }, Comlink.proxy(lost));
      this.adapter = 'code' in r ? null : { level, report: r };
      return r;
    });
    this.initChain = next.catch(() => undefined);
    return next;
  }

  selfCheck(filter?: string, onResult?: (r: CheckResult) => void): Promise<CheckResult[]> {
    return this.api.selfCheck(filter, onResult ? Comlink.proxy(onResult) : undefined);
  }

  /** Moves the model's arrays to the worker (they are detached here afterwards). */
  async loadModel(m: Pick<LoadedModelInfo, 'cfg' | 'params' | 'source'>): Promise<{ parameters: number }> {
    const names = [...m.params.keys()];
    const arrays = names.map((n) => m.params.get(n)!);
    const buffers = [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
    const transfer: ModelTransfer = { cfg: m.cfg, names, arrays, source: m.source };
    const r = await this.api.loadModel(Comlink.transfer(transfer, buffers));
    if ('code' in r) throw new Error(r.message);
    return r;
  }

  unloadModel(): Promise<void> {
    return this.api.unloadModel();
  }

  demoConfig(opts: DemoRequest): Promise<{ config: PipelineConfig; selfCheck: boolean; samples: number }> {
    return this.api.demoConfig(opts);
  }

  /** Runs a pipeline; resolves with the result or a failure (code 'stopped' after stop()). */
  run(req: PageRunRequest, onEvent: (e: PageRunEvent) => void): Promise<PageRunResult | WorkerFailure> {
    let force!: (f: WorkerFailure) => void;
    const forced = new Promise<WorkerFailure>((resolve) => (force = resolve));
    // a terminated worker's last events can still arrive after the forced result: they are dropped
    const entry = { force, settled: Promise.resolve(), open: true };
    const run = Promise.race([this.api.run(req, Comlink.proxy((e: PageRunEvent) => void (entry.open && onEvent(e)))), forced]);
    entry.settled = run.then(() => undefined, () => undefined);
    this.current = entry;
    return run.finally(() => {
      if (this.current === entry) this.current = null;
    });
  }

  requestSave(): void {
    void this.api.requestSave().catch(() => undefined);
  }

  /** Stops the current run: politely first, then by restarting the worker. */
  async stop(graceMs = STOP_GRACE_MS): Promise<'stopped' | 'restarted' | 'idle'> {
    const run = this.current;
    if (!run) return 'idle';
    void this.api.stop().catch(() => undefined); // not awaited: a stuck worker must not block the restart
    const sleep = new Promise<false>((resolve) => setTimeout(() => resolve(false), graceMs));
    if (await Promise.race([run.settled.then(() => true as const), sleep])) return 'stopped';
    await this.restart(`the GPU worker did not stop within ${graceMs / 1000} s, so it was restarted`);
    return 'restarted';
  }

  playground(req: Omit<PlaygroundRequest, 'context'>, onMessage: (m: MessageView) => void): Promise<EpisodeView | WorkerFailure> {
    return this.api.playground(req, Comlink.proxy(onMessage));
  }

  trainedModel(): Promise<{ label: string; config: PipelineConfig } | null> {
    return this.api.trainedModel();
  }

  exportTrained(): Promise<{ blob: Blob; name: string } | WorkerFailure> {
    return this.api.exportTrained();
  }

  deviceLost(): Promise<boolean> {
    return this.api.deviceLost();
  }

  /** Test hook (window.tabforge.loseDevice): the worker destroys its device. */
  loseDevice(): Promise<boolean> {
    return this.api.loseDevice();
  }

  /** Terminates the worker and starts a fresh one on the same adapter level. */
  private async restart(why: string): Promise<void> {
    const level = this.adapter?.level ?? 'auto';
    if (this.current) this.current.open = false;
    this.current?.force({ code: 'stopped', message: `run stopped: ${why}` });
    this.current = null;
    this.api[Comlink.releaseProxy]();
    this.worker.terminate();
    this.adapter = null;
    this.initChain = Promise.resolve();
    this.spawn();
    await this.init(level);
    this.events.onRestart?.();
  }
}
