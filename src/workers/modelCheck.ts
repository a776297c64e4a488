// The real-model path end to end, in whatever holds the GPU device (the GPU worker; Node for the
// CLI): a Hugging Face Qwen3 folder (picked files, a URL, or a seeded random model with the exact
// Qwen3-0.6B widths written by our own safetensors writer) → memory plan checked against the
// adapter → streamed into an f16 base (vocabulary in row parts where the bindings are small) →
// its tokenizer (the folder's, or the bundled Qwen3 one) → LoRA on every projection → one SFT step
// on a tool-calling conversation rendered with Qwen3's chat template and full JSON tool schemas →
// one GRPO step (rollouts from the model itself on a small tool environment, the KL reference sharing
// the frozen base). Reports times, losses and the peak of GPU memory held. Inspecting, planning and
// loading are the pipeline's (pipeline/loadModel.ts loadLoraModel) with this check's plan.
import { fakeFamily } from '../eval/fakeFamily';
import type { GpuRuntime } from '../gpu/runtime';
import { type ModelConfig, PRESETS } from '../model/config';
import { hfFolderFiles, seededRows } from '../model/hfFolderWriter';
import { planMemory } from '../model/memoryPlan';
import { BlobFileSource, type ModelFileSource, UrlFileSource } from '../model/modelFiles';
import { countParameters, formatBytes } from '../model/parameters';
import { loadLoraModel, loraFor } from '../pipeline/loadModel';
import { encodeConversation } from '../tokenizer';
import type { TokenSequence, Tokenizer } from '../tokenizer/types';
import { grpoConfig } from '../train/rl/grpo';
import { DEFAULT_GRPO_TRAINER, GrpoTrainer } from '../train/rl/grpoTrainer';
import { modelTurnGenerator } from '../train/rl/modelGenerator';
import { DEFAULT_ROLLOUT, type RolloutConfig, rolloutBatch } from '../train/rl/rollout';
import { DEFAULT_SFT, trainSft } from '../train/sft/sft';

export type ModelCheckSource =
  | { kind: 'random'; layers: number; seed: number }
  | { kind: 'files'; files: File[] }
  | { kind: 'url'; base: string };

export interface ModelCheckOptions {
  source: ModelCheckSource;
  /** LoRA rank (alpha = 2·rank). */
  rank: number;
  /** GRPO samples per task and new tokens per sample. */
  groupSize: number;
  maxNewTokens: number;
  /** Also run the GRPO step (default true); the 28-layer check runs the SFT step only. */
  grpo: boolean;
  seed: number;
}

export const DEFAULT_MODEL_CHECK: Omit<ModelCheckOptions, 'source'> = { rank: 8, groupSize: 2, maxNewTokens: 8, grpo: true, seed: 1 };

export type ModelCheckEvent =
  | { kind: 'stage'; stage: string; detail?: string }
  | { kind: 'progress'; loadedBytes: number; totalBytes: number };

export interface ModelCheckReport {
  model: string;
  layers: number;
  parameters: number;
  /** Row parts of the embedding (1 where one binding holds it). */
  vocabParts: number;
  tokenizer: string;
  warnings: string[];
  /** The memory plan of the GRPO step, as printed. */
  plan: string[];
  seconds: { make: number; load: number; sft: number; grpo: number };
  loadedBytes: number;
  sft: { loss: number; gradNorm: number; tokens: number; scoredTokens: number; skipped: boolean };
  /** Absent when the check ran the SFT step only. */
  grpo?: { loss: number; kl: number; reward: number; tokens: number; policyTokens: number; skipped: boolean; reason?: string };
  /** Most bytes the buffer pool held at once during the check (weights, activations, KV cache, …). */
  peakBytes: number;
}

/** The check's tool-calling conversation (one tool; rendered with its full JSON schema). */
const SFT_TOOLS = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object' as const, properties: { city: { type: 'string' as const } }, required: ['city'] } } }];
const SFT_CHAT = [
  { role: 'user' as const, content: 'Weather in Oslo?' },
  { role: 'assistant' as const, content: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>' },
];

/** A seeded random folder with Qwen3-0.6B's widths and `layers` layers, as Blobs (BF16, sharded at 256 MiB). */
export function randomQwenFolder(layers: number, seed: number): BlobFileSource {
  const cfg = { ...PRESETS['qwen3-0.6b'], numLayers: layers };
  const files = hfFolderFiles(cfg, seededRows(cfg, seed), { dtype: 'BF16', maxShardBytes: 256 * 2 ** 20 });
  return new BlobFileSource(files.map((f) => [f.name, new Blob([...f.chunks()])] as [string, Blob]), `a random Qwen3-0.6B-shape model (${layers} layers, seed ${seed})`);
}

interface CheckShape {
  /** The SFT conversation, tokenized. */
  doc: TokenSequence;
  rollout: RolloutConfig;
  /** Tokens per training row. */
  seqLen: number;
}

function checkShape(cfg: ModelConfig, tokenizer: Tokenizer, opts: ModelCheckOptions): CheckShape {
  const doc = encodeConversation(tokenizer, SFT_CHAT, SFT_TOOLS);
  // short rows: attention at D = 128 runs the tile kernels on CPU adapters (T² cost, ~0.1 GFLOP/s on llvmpipe)
  const rollout = { ...DEFAULT_ROLLOUT, groupSize: opts.groupSize, maxTurns: 1, maxNewTokensPerTurn: opts.maxNewTokens, maxTotalTokens: Math.min(cfg.maxPositionEmbeddings, 256) };
  // a row holds the SFT conversation, or a group's shared prompt and its G samples (sharePrefix)
  const seqLen = Math.ceil(Math.max(doc.ids.length, opts.grpo ? rollout.maxTotalTokens + opts.groupSize * opts.maxNewTokens : 0) / 64) * 64;
  return { doc, rollout, seqLen };
}

export async function runModelCheck(rt: GpuRuntime, opts: ModelCheckOptions, emit: (e: ModelCheckEvent) => void = () => {}, bundledTokenizer?: () => Promise<Tokenizer>): Promise<ModelCheckReport> {
  const t = () => performance.now() / 1000;
  rt.pool.resetPeak();
  let start = t();
  const src: ModelFileSource = opts.source.kind === 'random' ? (emit({ kind: 'stage', stage: 'make', detail: `random model, ${opts.source.layers} layers` }), randomQwenFolder(opts.source.layers, opts.source.seed))
    : opts.source.kind === 'files' ? new BlobFileSource(opts.source.files) : new UrlFileSource(opts.source.base);
  const make = t() - start;

  emit({ kind: 'stage', stage: 'inspect', detail: src.where });
  let shape: CheckShape | undefined; // set by the plan, before any weights are read
  let loadStart = 0;
  const loaded = await loadLoraModel(rt, src, {
    rank: opts.rank, seed: opts.seed, bundledTokenizer, subject: `this model (${src.where})`,
    plan: (cfg, tokenizer, limits) => {
      const s = (shape = checkShape(cfg, tokenizer, opts));
      return planMemory(cfg, { batch: 1, seqLen: s.seqLen, lora: loraFor(opts.rank), baseDtype: 'f16', klReference: opts.grpo, grpo: opts.grpo, decode: opts.grpo ? { rows: opts.groupSize, length: s.rollout.maxTotalTokens } : undefined, limits });
    },
    planTitle: () => `memory plan (LoRA r ${opts.rank}${opts.grpo ? `, GRPO with the KL reference, KV cache ${opts.groupSize} × ${shape!.rollout.maxTotalTokens}` : ', SFT'}, ${shape!.seqLen} tokens per row)`,
    onPlan: (lines) => {
      for (const line of lines) emit({ kind: 'stage', stage: 'plan', detail: line });
    },
    onLoad: (folder) => {
      emit({ kind: 'stage', stage: 'load', detail: `${formatBytes(folder.totalBytes)} in ${folder.files.length} file(s)` });
      loadStart = t();
    },
    onProgress: (p) => emit({ kind: 'progress', loadedBytes: p.loadedBytes, totalBytes: p.totalBytes }),
  });
  const load = t() - loadStart;
  const { cfg, weights: w, tokenizer } = loaded;
  const { doc, rollout, seqLen } = shape!;
  const family = fakeFamily();
  try {
    emit({ kind: 'stage', stage: 'sft', detail: `${doc.ids.length} tokens, ${doc.assistantMask.reduce((a, b) => a + b, 0)} trained` });
    start = t();
    const [m] = await trainSft(rt, w, { train: [{ ids: doc.ids, mask: doc.assistantMask }], padId: tokenizer.padId },
      { ...DEFAULT_SFT, batchSize: 1, seqLen, steps: 1, warmupSteps: 0, lr: 1e-3, seed: opts.seed });
    const sftSeconds = t() - start;

    const sftPart = { loss: m.loss, gradNorm: m.gradNorm, tokens: doc.ids.length, scoredTokens: doc.assistantMask.reduce((a, b) => a + b, 0), skipped: m.skipped };
    const base = {
      model: src.where, layers: cfg.numLayers, parameters: countParameters(cfg), vocabParts: w.parts('model.embed_tokens.weight').length,
      tokenizer: loaded.tokenizerSource, warnings: loaded.warnings, plan: loaded.planLines, loadedBytes: loaded.loadedBytes, sft: sftPart,
    };
    if (!opts.grpo) {
      await rt.sync();
      return { ...base, seconds: { make, load, sft: sftSeconds, grpo: 0 }, peakBytes: rt.pool.getStats().peakBytes };
    }
    emit({ kind: 'stage', stage: 'grpo', detail: `G ${opts.groupSize}, ${opts.maxNewTokens} new tokens` });
    start = t();
    const tasks = [family.generateTask(opts.seed, 0, 'train')];
    const trajs = await rolloutBatch({ family, tasks, tokenizer, generator: modelTurnGenerator(rt, w, { temperature: 1, topK: 0, topP: 1 }), config: rollout, seed: opts.seed, policyVersion: 0 });
    // a random model's rewards are (almost always) all equal, and GRPO drops such a group: a tie-break by sample index makes the step train
    const scored = trajs.map((tr, i) => ({ ...tr, reward: { ...tr.reward, total: tr.reward.total + 0.01 * i } }));
    const trainer = new GrpoTrainer(rt, w, {
      ...DEFAULT_GRPO_TRAINER, grpo: grpoConfig('default', { groupSize: opts.groupSize, klCoef: 0.1 }), microBatchRows: 1, seqLen, sharePrefix: true, lr: 1e-3,
    });
    const r = await trainer.step(scored);
    trainer.destroy();
    const grpoSeconds = t() - start;
    await rt.sync();
    return {
      ...base, seconds: { make, load, sft: sftSeconds, grpo: grpoSeconds },
      grpo: { loss: r.metrics.loss ?? NaN, kl: r.metrics.kl ?? NaN, reward: trajs.reduce((a, tr) => a + tr.reward.total, 0) / trajs.length, tokens: r.processedTokens, policyTokens: r.trainedTokens, skipped: r.skipped, reason: r.reason },
      peakBytes: rt.pool.getStats().peakBytes,
    };
  } finally {
    loaded.release();
    rt.pool.trim();
  }
}
