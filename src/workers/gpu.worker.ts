// The GPU worker: owns its own GPUDevice (a device cannot cross workers) and exposes the kernel
// self-check (and, later, training) to the page through Comlink.
import * as Comlink from 'comlink';
import { acquireDevice, describeContext, type FeatureLevelChoice } from '../gpu/device';
import { GpuError } from '../gpu/errors';
import { GpuRuntime } from '../gpu/runtime';
import '../ops/allChecks';
import { type CheckResult, runSelfCheck } from '../ops/selfCheck';
import { DEFAULT_DEMO, type DemoEvent, type DemoOptions, type DemoSummary, runDemo } from '../train/demoPipeline';

export interface AdapterReport {
  description: string;
  featureLevel: 'core' | 'compatibility';
  features: { shaderF16: boolean; subgroups: boolean; timestampQuery: boolean };
  vendor: string;
  architecture: string;
  maxStorageBufferBindingSize: number;
  maxComputeInvocationsPerWorkgroup: number;
}

/** Errors cross the worker boundary as plain objects; the page rebuilds them with their code. */
export interface WorkerFailure {
  code: string;
  message: string;
}

let rt: GpuRuntime | null = null;

function requireRuntime(): GpuRuntime {
  if (!rt) throw new Error('GPU worker: call init() before using the GPU');
  return rt;
}

function asFailure(e: unknown): WorkerFailure {
  if (e instanceof GpuError) return { code: e.code, message: e.message };
  return { code: 'error', message: e instanceof Error ? e.message : String(e) };
}

const api = {
  async init(opts: { featureLevel?: FeatureLevelChoice } = {}): Promise<AdapterReport | WorkerFailure> {
    try {
      const ctx = await acquireDevice({ featureLevel: opts.featureLevel ?? 'auto' });
      rt = new GpuRuntime(ctx, { timing: false });
      return {
        description: describeContext(ctx),
        featureLevel: ctx.featureLevel,
        features: ctx.features,
        vendor: ctx.adapterInfo.vendor,
        architecture: ctx.adapterInfo.architecture,
        maxStorageBufferBindingSize: ctx.limits.maxStorageBufferBindingSize,
        maxComputeInvocationsPerWorkgroup: ctx.limits.maxComputeInvocationsPerWorkgroup,
      };
    } catch (e) {
      return asFailure(e);
    }
  },

  async selfCheck(filter?: string, onResult?: (r: CheckResult) => void): Promise<CheckResult[]> {
    return runSelfCheck(requireRuntime(), { filter, onResult });
  },

  /** The demo pipeline (self-check → SFT → evaluation); events stream through onEvent. */
  async runDemo(opts: Partial<DemoOptions>, onEvent: (e: DemoEvent) => void): Promise<DemoSummary | WorkerFailure> {
    try {
      return await runDemo(requireRuntime(), { ...DEFAULT_DEMO, ...opts }, onEvent);
    } catch (e) {
      return asFailure(e);
    }
  },
};

export type GpuWorkerApi = typeof api;

Comlink.expose(api);
