// The GPU worker: owns its own GPUDevice (a device cannot cross workers) and exposes to the page,
// through Comlink: the adapter probe, the kernel self-check, pipeline runs (pageRun.ts) with
// autosave and resume, the playground on the last trained model, its export as a zip, and models
// the page loaded (Float32Arrays, transferred, not copied).
import * as Comlink from 'comlink';
import { acquireDevice, type FeatureLevelChoice } from '../gpu/device';
import { GpuError } from '../gpu/errors';
import { GpuRuntime } from '../gpu/runtime';
import { type ModelConfig, validateModelConfig } from '../model/config';
import { countParameters, parameterTable } from '../model/parameters';
import type { GpuWeights } from '../model/weights';
import '../ops/allChecks';
import { type CheckResult, runSelfCheck } from '../ops/selfCheck';
import type { PipelineConfig } from '../pipeline/config';
import { demoConfig, demoDefaults, type DemoOptions } from '../pipeline/demoPipeline';
import { exportFiles, exportZip } from '../storage/export/exportModel';
import { tokenizerForModel } from '../tokenizer';
import { adapterName, adapterSignature, probeAdapters, type ProbeResult } from './adapterProbe';
import { type LoadedModel, pageRun, RunStopped } from './pageRun';
import { playground, type PlaygroundRequest } from './playground';
import type { EpisodeView, MessageView, PageRunEvent, PageRunRequest, PageRunResult, WorkerFailure } from './runEvents';
import { workerPool } from './workerPool';
import { DEFAULT_MODEL_CHECK, type ModelCheckEvent, type ModelCheckOptions, type ModelCheckReport, runModelCheck } from './modelCheck';

export type { WorkerFailure } from './runEvents';

export interface AdapterReport {
  /** A readable adapter name (the browser may give none: then what kind it is). */
  name: string;
  featureLevel: 'core' | 'compatibility';
  features: { shaderF16: boolean; subgroups: boolean; timestampQuery: boolean };
  vendor: string;
  architecture: string;
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
  maxComputeInvocationsPerWorkgroup: number;
}

/** `npm run demo`'s options as the page passes them on (DEFAULT_DEMO fills the rest). */
export interface DemoRequest extends Partial<Omit<DemoOptions, 'initial' | 'start'>> {
  /** A bundled model id, or null for the preset's seeded init (SEEDED_DEMO); absent: DEFAULT_DEMO's (the copy base, for nano). */
  start?: string | null;
  /** Smoke run: QUICK_DEMO's stage sizes and no kernel self-check (explicit options win). */
  quick?: boolean;
}

/** A smoke run of every stage: seconds per stage on a CPU adapter. */
export const QUICK_DEMO: Partial<DemoOptions> = { sftExamples: 16, sftSteps: 3, rlSteps: 2, tasksPerStep: 2, groupSize: 4, evalTasks: 4, skipSelfCheck: true };

/** A loaded model as it crosses to the worker: parallel names/arrays so the arrays can be transferred. */
export interface ModelTransfer {
  cfg: ModelConfig;
  names: string[];
  arrays: Float32Array[];
  /** Where it came from, for labels. */
  source: string;
}

let rt: GpuRuntime | null = null;
let level: FeatureLevelChoice = 'auto';
let loaded: LoadedModel | null = null;
/** The last finished run's weights (playground, export); released when the next run starts. */
let trained: { weights: GpuWeights; config: PipelineConfig; label: string } | null = null;
let running = false;
let stopRequested = false;
let saveRequested = false;

function requireRuntime(): GpuRuntime {
  if (!rt) throw new Error('GPU worker: call init() before using the GPU');
  return rt;
}

function asFailure(e: unknown): WorkerFailure {
  if (e instanceof RunStopped) return { code: 'stopped', message: e.message };
  if (e instanceof GpuError) return { code: e.code, message: e.message };
  return { code: 'error', message: e instanceof Error ? e.message : String(e) };
}

function releaseTrained(): void {
  trained?.weights.destroy();
  trained = null;
}

/** One exclusive job at a time (a run, the playground): the GPU is shared. */
async function exclusive<T>(job: () => Promise<T>): Promise<T | WorkerFailure> {
  if (running) return { code: 'busy', message: 'a run is in progress: stop it first' };
  running = true;
  stopRequested = false;
  saveRequested = false;
  try {
    return await job();
  } catch (e) {
    return asFailure(e);
  } finally {
    running = false;
    stopRequested = false;
  }
}

const api = {
  /** Times the browser's adapters and says which is faster ('auto'); no device is kept. */
  async probe(): Promise<ProbeResult | WorkerFailure> {
    try {
      return await probeAdapters();
    } catch (e) {
      return asFailure(e);
    }
  },

  /** The browser's adapter pair, to check a cached probe result still applies. */
  async signature(): Promise<string> {
    return navigator.gpu ? adapterSignature() : '';
  },

  /** Acquires (or re-acquires, releasing the previous one) the device; `onLost` hears a device loss. */
  async init(opts: { featureLevel?: FeatureLevelChoice } = {}, onLost?: (f: WorkerFailure) => void): Promise<AdapterReport | WorkerFailure> {
    if (running) return { code: 'busy', message: 'a run is in progress: stop it before changing the GPU adapter' };
    try {
      releaseTrained();
      if (rt) {
        rt.destroy();
        rt.ctx.device.destroy();
        rt = null;
      }
      level = opts.featureLevel ?? 'auto';
      const ctx = await acquireDevice({ featureLevel: level });
      rt = new GpuRuntime(ctx, { timing: false });
      const mine = rt;
      void ctx.lost.then((err) => {
        if (rt === mine && err) {
          rt = null;
          trained = null; // its buffers died with the device
          onLost?.({ code: err.code, message: err.message });
        }
      });
      const i = ctx.adapterInfo;
      return {
        name: adapterName(i, ctx.featureLevel), featureLevel: ctx.featureLevel, features: ctx.features, vendor: i.vendor, architecture: i.architecture,
        maxStorageBufferBindingSize: ctx.limits.maxStorageBufferBindingSize, maxBufferSize: ctx.limits.maxBufferSize,
        maxComputeInvocationsPerWorkgroup: ctx.limits.maxComputeInvocationsPerWorkgroup,
      };
    } catch (e) {
      return asFailure(e);
    }
  },

  async selfCheck(filter?: string, onResult?: (r: CheckResult) => void): Promise<CheckResult[]> {
    return runSelfCheck(requireRuntime(), { filter, onResult });
  },

  /** Keeps a loaded model (its arrays transferred from the page) for later runs; checks names and sizes. */
  loadModel(model: ModelTransfer): { parameters: number } | WorkerFailure {
    try {
      validateModelConfig(model.cfg);
      if (model.names.length !== model.arrays.length) throw new Error(`loadModel: ${model.names.length} names but ${model.arrays.length} arrays`);
      const params = new Map(model.names.map((n, i) => [n, model.arrays[i]]));
      for (const p of parameterTable(model.cfg)) {
        const n = p.shape.reduce((a, b) => a * b, 1);
        const v = params.get(p.name);
        if (!v) throw new Error(`loadModel: tensor '${p.name}' [${p.shape.join(', ')}] is missing`);
        if (v.length !== n) throw new Error(`loadModel: tensor '${p.name}' has ${v.length} values, expected [${p.shape.join(', ')}] = ${n}`);
      }
      loaded = { cfg: model.cfg, params, source: model.source };
      return { parameters: countParameters(model.cfg) };
    } catch (e) {
      return asFailure(e);
    }
  },

  /** Forgets the loaded model: runs start from seeded initial weights again. */
  unloadModel(): void {
    loaded = null;
  },

  /**
   * The real-model path on this device: a Qwen3 folder (picked files, a URL, or a seeded random model
   * of the 0.6B shape) → memory plan → f16 base + LoRA → one SFT and one GRPO step (./modelCheck).
   */
  async modelCheck(opts: Partial<ModelCheckOptions> & Pick<ModelCheckOptions, 'source'>, onEvent?: (e: ModelCheckEvent) => void): Promise<ModelCheckReport | WorkerFailure> {
    return exclusive(() => runModelCheck(requireRuntime(), { ...DEFAULT_MODEL_CHECK, ...opts }, (e) => onEvent?.(e)));
  },

  /** Asks the current run to stop at its next event (SFT or GRPO step, evaluation batch, kernel check). */
  stop(): boolean {
    if (running) stopRequested = true;
    return running;
  },

  /** Asks the current run to save a checkpoint after its current step (the page is being hidden). */
  requestSave(): boolean {
    if (running) saveRequested = true;
    return running;
  },

  /** The pipeline `npm run demo` runs for these options (DEFAULT_DEMO, QUICK_DEMO, then the explicit ones). */
  demoConfig(opts: DemoRequest): { config: PipelineConfig; selfCheck: boolean; samples: number } {
    const { quick, start, ...explicit } = opts;
    const o: DemoOptions = { ...demoDefaults(opts), ...(quick ? QUICK_DEMO : {}), ...explicit, ...(typeof start === 'string' ? { start } : {}) };
    return { config: demoConfig(o), selfCheck: !o.skipSelfCheck, samples: o.samples ?? 3 };
  },

  /** Runs a pipeline (pageRun.ts); events stream through onEvent. The trained model stays here for the playground and export. */
  run(req: PageRunRequest, onEvent: (e: PageRunEvent) => void): Promise<PageRunResult | WorkerFailure> {
    return exclusive(async () => {
      releaseTrained();
      if (req.useLoadedModel && !loaded) throw new Error('no loaded model in the GPU worker: load one first (or untick "start runs from the loaded model")');
      const control = { stopRequested: () => stopRequested, takeSaveRequest: () => (saveRequested ? ((saveRequested = false), true) : false) };
      const pool = req.workerActors ? (o: Parameters<typeof workerPool>[0]) => workerPool({ ...o, featureLevel: level }) : undefined;
      const done = await pageRun(requireRuntime(), req, req.useLoadedModel ? loaded : null, onEvent, control, pool);
      trained = { weights: done.weights, config: done.config, label: done.result.model };
      return done.result;
    });
  },

  /** What the playground and export work on (null before a run finished). */
  trainedModel(): { label: string; config: PipelineConfig } | null {
    return trained ? { label: trained.label, config: trained.config } : null;
  },

  /** Plays a typed request with the last trained model; messages stream through onMessage. */
  playground(req: Omit<PlaygroundRequest, 'context'>, onMessage: (m: MessageView) => void): Promise<EpisodeView | WorkerFailure> {
    return exclusive(async () => {
      if (!trained) throw new Error('no trained model yet: run a pipeline first (the playground talks to the model it trained)');
      return playground(requireRuntime(), trained.weights, { ...req, context: trained.config.context }, onMessage);
    });
  },

  /** The last trained model as an HF folder in a zip (config.json, model.safetensors, generation_config.json). */
  exportTrained(): Promise<{ blob: Blob; name: string } | WorkerFailure> {
    return exclusive(async () => {
      if (!trained) throw new Error('no trained model to export yet: run a pipeline first');
      const w = trained.weights;
      const tok = await tokenizerForModel(w.cfg);
      if (w.cfg.tokenizer !== 'byte') throw new Error(`export from the page covers byte-tokenizer models; this one uses ${w.cfg.tokenizer}: use npm run export on a checkpoint`);
      const name = `tabforge-${trained.config.preset}-seed${trained.config.seed}`;
      const files = exportFiles({ cfg: w.cfg, params: await w.download(), ids: { eosId: tok.imEndId, padId: tok.padId } }, 'hf');
      return { blob: await exportZip(files, name), name: `${name}.zip` };
    });
  },

  /** Whether the device is gone (lost, or none acquired): a failed run may have failed because of it. */
  async deviceLost(): Promise<boolean> {
    const r = rt;
    if (r === null || r.ctx.lostError !== null) return true;
    // the loss is reported asynchronously: a run that failed because of it can end first
    return Promise.race([r.ctx.lost.then((e) => e !== null), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000))]);
  },

  /** Test hook: destroys the device as a driver reset would (the page must say so and offer to resume). */
  loseDevice(): boolean {
    if (!rt) return false;
    rt.ctx.device.destroy();
    return true;
  },
};

export type GpuWorkerApi = typeof api;

Comlink.expose(api);
