// The GPU worker: owns its own GPUDevice (a device cannot cross workers) and exposes the kernel
// self-check and the demo run to the page through Comlink. The page may hand it a loaded model
// (Float32Arrays, transferred, not copied); runs then start from those weights (runDemo's `initial`).
import * as Comlink from 'comlink';
import { acquireDevice, describeContext, type FeatureLevelChoice } from '../gpu/device';
import { GpuError } from '../gpu/errors';
import { GpuRuntime } from '../gpu/runtime';
import { type ModelConfig, validateModelConfig } from '../model/config';
import { countParameters, parameterTable } from '../model/parameters';
import '../ops/allChecks';
import { type CheckResult, runSelfCheck } from '../ops/selfCheck';
import { DEFAULT_MODEL_CHECK, type ModelCheckEvent, type ModelCheckOptions, type ModelCheckReport, runModelCheck } from './modelCheck';
import { DEFAULT_DEMO, type DemoEvent, type DemoOptions, type DemoSummary, runDemo } from '../pipeline/demoPipeline';

export interface AdapterReport {
  description: string;
  featureLevel: 'core' | 'compatibility';
  features: { shaderF16: boolean; subgroups: boolean; timestampQuery: boolean };
  vendor: string;
  architecture: string;
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
  maxComputeInvocationsPerWorkgroup: number;
}

/** Errors cross the worker boundary as plain objects; the page rebuilds them with their code. */
export interface WorkerFailure {
  /** GpuErrorCode, 'stopped' (the user stopped the run), 'busy', or 'error'. */
  code: string;
  message: string;
}

/** runDemo's options as the page sends them (a loaded model stays in the worker: `useLoadedModel`). */
export interface PageRunOptions extends Partial<Omit<DemoOptions, 'initial'>> {
  /** Smoke run: QUICK_DEMO's stage sizes and no kernel self-check (explicit options win). */
  quick?: boolean;
  /** Start from the model given to loadModel() instead of the preset's seeded initial weights. */
  useLoadedModel?: boolean;
}

/** A smoke run of every stage: seconds per stage on a CPU adapter. */
export const QUICK_DEMO: Partial<DemoOptions> = { sftSteps: 3, rlSteps: 2, tasksPerStep: 2, groupSize: 4, evalTasks: 4, skipSelfCheck: true };

/** A run's summary; `model` says what was trained ("preset nano" or "loaded: <source>"). */
export type PageRunSummary = DemoSummary;

/** A loaded model as it crosses to the worker: parallel names/arrays so the arrays can be transferred. */
export interface ModelTransfer {
  cfg: ModelConfig;
  names: string[];
  arrays: Float32Array[];
  /** Where it came from, for labels. */
  source: string;
}

let rt: GpuRuntime | null = null;
let loaded: { cfg: ModelConfig; params: Map<string, Float32Array>; source: string } | null = null;
let running = false;
let stopRequested = false;

class RunStopped extends Error {}

function requireRuntime(): GpuRuntime {
  if (!rt) throw new Error('GPU worker: call init() before using the GPU');
  return rt;
}

function asFailure(e: unknown): WorkerFailure {
  if (e instanceof RunStopped) return { code: 'stopped', message: e.message };
  if (e instanceof GpuError) return { code: e.code, message: e.message };
  return { code: 'error', message: e instanceof Error ? e.message : String(e) };
}

const api = {
  /** Acquires (or re-acquires, releasing the previous one) the device; `onLost` hears a device loss. */
  async init(opts: { featureLevel?: FeatureLevelChoice } = {}, onLost?: (f: WorkerFailure) => void): Promise<AdapterReport | WorkerFailure> {
    if (running) return { code: 'busy', message: 'a run is in progress: stop it before changing the GPU adapter' };
    try {
      if (rt) {
        rt.destroy();
        rt.ctx.device.destroy();
        rt = null;
      }
      const ctx = await acquireDevice({ featureLevel: opts.featureLevel ?? 'auto' });
      rt = new GpuRuntime(ctx, { timing: false });
      const mine = rt;
      void ctx.lost.then((err) => {
        if (rt === mine && err) onLost?.({ code: err.code, message: err.message });
      });
      return {
        description: describeContext(ctx),
        featureLevel: ctx.featureLevel,
        features: ctx.features,
        vendor: ctx.adapterInfo.vendor,
        architecture: ctx.adapterInfo.architecture,
        maxStorageBufferBindingSize: ctx.limits.maxStorageBufferBindingSize,
        maxBufferSize: ctx.limits.maxBufferSize,
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
    if (running) return { code: 'busy', message: 'a run is already in progress: stop it first' };
    running = true;
    try {
      return await runModelCheck(requireRuntime(), { ...DEFAULT_MODEL_CHECK, ...opts }, (e) => onEvent?.(e));
    } catch (e) {
      return asFailure(e);
    } finally {
      running = false;
    }
  },

  /** Asks the current run to stop at its next event (SFT or GRPO step, evaluation, kernel check). */
  stop(): boolean {
    if (running) stopRequested = true;
    return running;
  },

  /** The demo pipeline (self-check → SFT → evaluation → GRPO → evaluation → sample); events stream through onEvent. */
  async runDemo(opts: PageRunOptions, onEvent: (e: DemoEvent) => void): Promise<PageRunSummary | WorkerFailure> {
    if (running) return { code: 'busy', message: 'a run is already in progress: stop it first' };
    running = true;
    stopRequested = false;
    const emit = (e: DemoEvent) => {
      if (stopRequested) throw new RunStopped(`run stopped by the user during '${e.kind === 'stage' ? e.stage : e.kind}'`);
      onEvent(e);
    };
    try {
      const { quick, useLoadedModel, ...explicit } = opts;
      const options: DemoOptions = { ...DEFAULT_DEMO, ...(quick ? QUICK_DEMO : {}), ...explicit };
      if (useLoadedModel) {
        if (!loaded) throw new Error('no loaded model in the GPU worker: load one first (or untick "start from the loaded model")');
        options.initial = { cfg: loaded.cfg, params: loaded.params, label: loaded.source };
      }
      return await runDemo(requireRuntime(), options, emit);
    } catch (e) {
      return asFailure(e);
    } finally {
      running = false;
      stopRequested = false;
    }
  },
};

export type GpuWorkerApi = typeof api;

Comlink.expose(api);
