// A Hugging Face Qwen3 folder made ready for a pipeline run (the runner's opts.weights and
// opts.tokenizer): config.json and every shard header checked (model/hfFolder), the folder's own
// tokenizer checked against the model's vocabulary (tokenizer/modelTokenizer), the run's memory plan
// checked against the adapter BEFORE a byte of weights is read (model/memoryPlan), then the weights
// streamed into a frozen f16 base with LoRA adapters on every projection of every layer — only the
// adapters train. loadLoraModel does these steps for any plan: the pipeline's (loadModelForPipeline)
// and the model check's (workers/modelCheck.ts).
import { GpuError } from '../gpu/errors';
import type { GpuRuntime } from '../gpu/runtime';
import type { ModelConfig } from '../model/config';
import { type HfFolder, inspectHfFolder, type LoadProgress, loadHfWeights } from '../model/hfFolder';
import { type LoraConfig, LoraAdapters } from '../model/lora';
import { attachLora } from '../model/loraAttach';
import { checkMemoryPlan, formatMemoryPlan, type MemoryPlan, planMemory } from '../model/memoryPlan';
import type { ModelFileSource } from '../model/modelFiles';
import { LORA_TARGETS } from '../model/parameters';
import type { GpuWeights } from '../model/weights';
import { tokenizerForModelFolder } from '../tokenizer/modelTokenizer';
import type { Tokenizer } from '../tokenizer/types';
import type { PipelineConfig } from './config';
import { trainingShape } from './loopSettings';

/** Episodes an evaluation decodes at once (pipeline/evaluation.ts: one generate() call per 64). */
const EVAL_ROWS_PER_CALL = 64;

export interface LoadModelOptions {
  /** LoRA rank r; alpha = 2·r (s = 2, PEFT's usual pairing). */
  rank: number;
  /** Seeds the adapters' A matrices (B starts at 0: the loaded model's outputs are unchanged). */
  seed: number;
  /** GPU memory the run may use in all (WebGPU does not report it; unset: only the binding limits are checked). */
  budgetBytes?: number;
  /** Hears the memory plan (before loading) and the folder's warnings. */
  log?: (line: string) => void;
  onProgress?: (p: LoadProgress) => void;
}

export interface LoadedModel {
  cfg: ModelConfig;
  /** The f16 base with the adapters attached: pass as the runner's opts.weights. */
  weights: GpuWeights;
  adapters: LoraAdapters;
  tokenizer: Tokenizer;
  /** "tokenizer.json in <folder>" or "bundled Qwen3 tokenizer". */
  tokenizerSource: string;
  plan: MemoryPlan;
  /** Frees the adapters and the base. */
  release(): void;
}

/** The LoRA setup of a loaded model: rank r, alpha 2r, every projection, f16 base. */
export function loraFor(rank: number): LoraConfig {
  return { rank, alpha: 2 * rank, targets: LORA_TARGETS, baseDtype: 'f16' };
}

/**
 * The memory plan of running `cfg` on `model` with LoRA rank r: the largest training batch (SFT rows or
 * a GRPO micro-batch), GRPO's loss buffers and KL reference adapters, and the KV cache of the most rows
 * decoded at once (a GRPO step's tasks × G, or an evaluation's batch) over the whole context.
 */
export function pipelineMemoryPlan(cfg: PipelineConfig, model: ModelConfig, rank: number, limits?: BindingLimits): MemoryPlan {
  const shape = trainingShape(cfg);
  const grpo = cfg.stages.some((s) => s.kind === 'grpo');
  const rows = Math.max(1, ...cfg.stages.map((s) => (s.kind === 'grpo' ? s.tasksPerStep * s.groupSize : s.kind === 'eval' ? Math.min(s.n, EVAL_ROWS_PER_CALL) : 1)));
  return planMemory(model, {
    batch: shape.batch, seqLen: shape.seqLen, lora: { rank, targets: LORA_TARGETS }, baseDtype: 'f16', klReference: shape.referenceCopy, grpo,
    decode: { rows, length: cfg.context.maxTotalTokens }, limits,
  });
}

/** The two binding limits the memory plan reads (copied from the adapter's). */
export type BindingLimits = { maxStorageBufferBindingSize: number; maxBufferSize: number };

export interface LoraModelOptions extends LoadModelOptions {
  /** The run's memory plan, from the model, its tokenizer and the adapter's limits; checked before a byte of weights is read. */
  plan: (model: ModelConfig, tokenizer: Tokenizer, limits: BindingLimits) => MemoryPlan;
  /** The plan's heading as printed. */
  planTitle: (plan: MemoryPlan) => string;
  /** Names the run in a refusal: "<subject> needs … MiB". */
  subject: string;
  /** A folder whose config.json gives a non-Qwen3 vocabulary must ship a tokenizer.json (then read as Qwen3's); the refusal's advice. Unset: the tokenizer config.json implies. */
  requireQwen3Tokenizer?: string;
  /** The tokenizer where the folder has none (default: the preset one of its kind). */
  bundledTokenizer?: () => Promise<Tokenizer>;
  /** Hears the formatted plan (default: each line to `log`). */
  onPlan?: (lines: string[]) => void;
  /** Hears the folder just before its weights are read. */
  onLoad?: (folder: HfFolder) => void;
}

export interface LoadedLoraModel extends LoadedModel {
  /** The folder's and the tokenizer's warnings (each also sent to `log` as "warning: …"). */
  warnings: string[];
  /** The plan as printed. */
  planLines: string[];
  /** Bytes of the weight files read. */
  loadedBytes: number;
}

/**
 * A Hugging Face Qwen3 folder ready to train with LoRA: inspected (config.json and every shard header),
 * its tokenizer checked against the vocabulary, the caller's memory plan checked against the adapter
 * (GpuError 'limit-too-small', having allocated nothing), then streamed into a frozen f16 base with
 * adapters on every projection. Shared by the pipeline (loadModelForPipeline) and the model check.
 */
export async function loadLoraModel(rt: GpuRuntime, src: ModelFileSource, o: LoraModelOptions): Promise<LoadedLoraModel> {
  const log = o.log ?? (() => {});
  const folder = await inspectHfFolder(src); // config.json and every shard's header, checked against each other
  let model = folder.cfg;
  if (o.requireQwen3Tokenizer !== undefined && model.tokenizer !== 'qwen3') {
    // readHfConfig guesses 'byte' for vocabularies under 150 000; a folder's own tokenizer.json decides instead (checked against vocab_size below)
    if (!(await src.has('tokenizer.json'))) {
      throw new Error(`${src.where}: config.json describes a model with vocab_size ${model.vocabSize} (tokenizer '${model.tokenizer}') and the folder has no tokenizer.json: ${o.requireQwen3Tokenizer}`);
    }
    model = { ...model, tokenizer: 'qwen3' };
  }
  const tok = await tokenizerForModelFolder(src, model, o.bundledTokenizer);
  const warnings = [...folder.warnings, ...tok.warnings];
  for (const w of warnings) log(`warning: ${w}`);

  // copied field by field: GPUSupportedLimits keeps them as prototype getters, which a spread drops
  const limits = { maxStorageBufferBindingSize: rt.ctx.limits.maxStorageBufferBindingSize, maxBufferSize: rt.ctx.limits.maxBufferSize };
  const plan = o.plan(model, tok.tokenizer, limits);
  const planLines = formatMemoryPlan(plan, o.planTitle(plan));
  if (o.onPlan) o.onPlan(planLines);
  else for (const line of planLines) log(line);
  const problem = checkMemoryPlan(plan, { ...limits, budgetBytes: o.budgetBytes }, o.subject);
  if (problem) throw new GpuError('limit-too-small', problem);

  o.onLoad?.(folder);
  const weights = await loadHfWeights(rt, src, { ...folder, cfg: model }, { f16Base: true }, o.onProgress);
  let adapters: LoraAdapters | undefined;
  try {
    adapters = new LoraAdapters(rt, model, loraFor(o.rank), undefined, o.seed);
    attachLora(rt, weights, adapters);
  } catch (e) {
    adapters?.destroy();
    weights.destroy();
    throw e;
  }
  const a = adapters;
  return {
    cfg: model, weights, adapters: a, tokenizer: tok.tokenizer, tokenizerSource: tok.source, plan, warnings, planLines, loadedBytes: folder.totalBytes,
    release: () => {
      a.destroy();
      weights.destroy();
    },
  };
}

/** Inspects, checks and loads the folder for `cfg`; throws (having allocated nothing) on any mismatch or a plan that does not fit. */
export function loadModelForPipeline(rt: GpuRuntime, src: ModelFileSource, cfg: PipelineConfig, o: LoadModelOptions): Promise<LoadedModel> {
  return loadLoraModel(rt, src, {
    ...o,
    requireQwen3Tokenizer: 'a model to train with --model is a Qwen3 model with its Qwen3 tokenizer; add its tokenizer.json and tokenizer_config.json',
    plan: (model, _tokenizer, limits) => pipelineMemoryPlan(cfg, model, o.rank, limits),
    planTitle: (plan) => `memory plan (LoRA r ${o.rank} on an f16 base, ${plan.layout.tokens} tokens per micro-batch)`,
    subject: `this run on ${src.where}`,
  });
}
