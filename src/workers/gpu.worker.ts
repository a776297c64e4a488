// The GPU worker: owns its own GPUDevice (a device cannot cross workers) and exposes the kernel
// self-check and the demo run to the page through Comlink. The page may hand it a loaded model
// (Float32Arrays, transferred, not copied); runs then start SFT from those weights.
import * as Comlink from 'comlink';
import { routingToolChats, type ToolChat } from '../data/toolChats';
import { acquireDevice, describeContext, type FeatureLevelChoice } from '../gpu/device';
import { GpuError } from '../gpu/errors';
import { GpuRuntime } from '../gpu/runtime';
import { type ModelConfig, validateModelConfig } from '../model/config';
import { checkFits, countParameters, estimateMemory, parameterTable } from '../model/parameters';
import { GpuWeights } from '../model/weights';
import '../ops/allChecks';
import { type CheckResult, runSelfCheck } from '../ops/selfCheck';
import { ByteTokenizer, encodeConversation, withCompactTools } from '../tokenizer';
import { DEFAULT_DEMO, type DemoEvent, type DemoOptions, type DemoSummary, runDemo, toolCallAccuracy } from '../train/demoPipeline';
import { DEFAULT_SFT, trainSft } from '../train/sft';

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

/** runDemo's options as the page sends them. */
export interface PageRunOptions extends Partial<DemoOptions> {
  /** Smoke run: 8 training / 2 held-out conversations, no kernel self-check (explicit options win). */
  quick?: boolean;
  /** Start SFT from the model given to loadModel() instead of the preset's seeded initial weights. */
  useLoadedModel?: boolean;
}

export const QUICK_DEMO: Partial<DemoOptions> = { trainConversations: 8, evalTasks: 2, skipSelfCheck: true };

/** A run's summary; `model` says what was trained ("preset nano" or "loaded: <source>"). */
export type PageRunSummary = DemoSummary & { model: string };

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

  /** Asks the current run to stop at its next event (SFT step, evaluation, kernel check). */
  stop(): boolean {
    if (running) stopRequested = true;
    return running;
  },

  /** The demo pipeline (self-check → SFT → evaluation); events stream through onEvent. */
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
        return await runDemoFromModel(requireRuntime(), options, loaded, emit);
      }
      return { ...(await runDemo(requireRuntime(), options, emit)), model: `preset ${options.preset}` };
    } catch (e) {
      return asFailure(e);
    } finally {
      running = false;
      stopRequested = false;
    }
  },
};

// ---- runs from a loaded model ----------------------------------------------------------------
// demoPipeline.runDemo always starts from PRESETS[preset] with seeded weights. Until it takes
// initial weights as an option (the hook is proposed in the page's issue note), this mirrors its
// stages for a loaded checkpoint; keep the two in step.

const tok = new ByteTokenizer();

function toDoc(c: ToolChat) {
  const { messages, tools } = withCompactTools(c.messages, c.tools);
  const seq = encodeConversation(tok, messages, tools);
  return { ids: seq.ids, mask: seq.assistantMask };
}

async function runDemoFromModel(
  rt: GpuRuntime, opts: DemoOptions, model: NonNullable<typeof loaded>, emit: (e: DemoEvent) => void,
): Promise<PageRunSummary> {
  const t0 = performance.now();
  const { cfg } = model;
  if (cfg.tokenizer !== 'byte' || cfg.vocabSize < tok.vocabSize) {
    throw new Error(`the loaded model (${cfg.tokenizer} tokenizer, vocab ${cfg.vocabSize}) cannot train on the demo's byte-tokenized data: it needs the byte tokenizer and vocab_size ≥ ${tok.vocabSize}`);
  }
  if (opts.seqLen > cfg.maxPositionEmbeddings) {
    throw new Error(`seq len ${opts.seqLen} is longer than the loaded model's max_position_embeddings ${cfg.maxPositionEmbeddings}: lower seq len`);
  }
  let failures = 0;
  if (!opts.skipSelfCheck) {
    emit({ kind: 'stage', stage: 'self-check', detail: 'kernels vs float64 reference' });
    const results = await runSelfCheck(rt, { onResult: (r) => emit({ kind: 'check', name: r.name, ok: r.ok, relErr: r.relErr }) });
    failures = results.filter((r) => !r.ok).length;
    if (failures > 0) throw new Error(`demo: ${failures} kernel self-check(s) failed on this adapter; the results above say which`);
  }
  emit({ kind: 'stage', stage: 'data', detail: `${opts.trainConversations} tool-calling conversations` });
  const train = await routingToolChats(opts.trainConversations, opts.seed, 'train');
  const heldout = await routingToolChats(opts.evalTasks, opts.seed, 'heldout');
  const parameters = countParameters(cfg);
  const problem = checkFits(estimateMemory(cfg, { batch: opts.batchSize, seqLen: opts.seqLen, optimizer: 'adamw', weightDtype: 'f32' }),
    { maxBufferSize: rt.ctx.limits.maxBufferSize, maxStorageBufferBindingSize: rt.ctx.limits.maxStorageBufferBindingSize }, { label: 'the loaded model' });
  if (problem) throw new GpuError('limit-too-small', `the loaded model (${parameters} parameters) does not fit this device: ${problem}`);
  emit({ kind: 'stage', stage: 'model', detail: `loaded from ${model.source}: ${(parameters / 1e6).toFixed(2)} M parameters` });
  const w = new GpuWeights(rt, cfg, model.params);
  try {
    emit({ kind: 'stage', stage: 'eval', detail: 'held-out tool calls before training' });
    const before = await toolCallAccuracy(rt, w, heldout, opts.seed);
    emit({ kind: 'eval', label: 'before SFT', success: before.correct, total: heldout.length });

    emit({ kind: 'stage', stage: 'sft', detail: `loaded model, ${parameters} parameters, ${opts.sftSteps} steps` });
    const history = await trainSft(
      rt, w, { train: train.map(toDoc), padId: tok.padId },
      { ...DEFAULT_SFT, batchSize: opts.batchSize, seqLen: opts.seqLen, steps: opts.sftSteps, lr: opts.lr, warmupSteps: Math.min(10, opts.sftSteps), pack: false, seed: opts.seed },
      (metrics) => emit({ kind: 'sft', metrics, totalSteps: opts.sftSteps }),
    );

    emit({ kind: 'stage', stage: 'eval', detail: 'held-out tool calls after SFT' });
    const after = await toolCallAccuracy(rt, w, heldout, opts.seed);
    emit({ kind: 'eval', label: 'after SFT', success: after.correct, total: heldout.length });
    emit({ kind: 'sample', text: `user: ${heldout[0].messages[1].content}\nassistant: ${after.texts[0]}` });

    const summary: PageRunSummary = {
      preset: opts.preset, model: `loaded: ${model.source}`, parameters, selfCheckFailures: failures,
      firstLoss: history[0]?.loss ?? Number.NaN, finalLoss: history.at(-1)?.loss ?? Number.NaN,
      heldoutSuccessBefore: before.correct / heldout.length, heldoutSuccessAfter: after.correct / heldout.length,
      seconds: (performance.now() - t0) / 1000,
    };
    emit({ kind: 'done', summary });
    return summary;
  } finally {
    w.destroy();
  }
}

export type GpuWorkerApi = typeof api;

Comlink.expose(api);
