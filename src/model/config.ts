// Model configuration for the Qwen3 architecture family and the presets TabForge ships.
// Shape legend used across src/model and src/reference:
//   B batch, T time (sequence), C hidden size, V vocab, L layers,
//   Hq query heads, Hkv key/value heads (divides Hq), D head dim, F MLP intermediate size.

/** Tokenizers a preset can use: byte-level, Qwen3's full BPE, or Qwen3's BPE trimmed to the corpus (src/tokenizer/trimmedQwen3Tokenizer.ts). */
export const TOKENIZER_KINDS = ['byte', 'qwen3', 'qwen3-trimmed'] as const;
export type TokenizerKind = (typeof TOKENIZER_KINDS)[number];

/** Qwen3 decoder-only transformer hyper-parameters (field names mirror HF's Qwen3Config in camelCase). */
export interface ModelConfig {
  /** V: vocabulary size (byte tokenizer: 256 bytes + special tokens). */
  vocabSize: number;
  /** C: hidden (residual stream) width. */
  hiddenSize: number;
  /** F: SwiGLU intermediate width. */
  intermediateSize: number;
  /** L: number of decoder layers. */
  numLayers: number;
  /** Hq: attention (query) heads. */
  numHeads: number;
  /** Hkv: key/value heads for grouped-query attention; must divide numHeads. */
  numKvHeads: number;
  /** D: per-head dimension (Qwen3 decouples it from hiddenSize / numHeads). */
  headDim: number;
  /** RMSNorm epsilon (Qwen3: 1e-6). */
  rmsNormEps: number;
  /** RoPE base θ (Qwen3: 1e6). */
  ropeTheta: number;
  /** Longest sequence the model is used with (RoPE tables, KV cache). */
  maxPositionEmbeddings: number;
  /** True: the LM head reuses the token embedding matrix (Qwen3-0.6B ties them). */
  tieWordEmbeddings: boolean;
  /** Which tokenizer the preset uses. */
  tokenizer: TokenizerKind;
}

export type PresetName = 'nano' | 'nano-q' | 'tiny' | 'tiny-q' | 'small' | 'qwen3-0.6b';

/** Byte tokenizer vocabulary: 256 bytes + 9 special tokens, padded to a multiple of 8 for tiling. */
export const BYTE_VOCAB_SIZE = 272;

/**
 * Trimmed Qwen3 vocabulary (src/tokenizer/vocab/qwen3-trimmed.json, npm run build-vocab): the Qwen3
 * ids the train corpus uses + 256 byte tokens + chat specials, padded to a multiple of 8.
 */
export const TRIMMED_QWEN3_VOCAB_SIZE = 5928;

export const PRESETS: Record<PresetName, ModelConfig> = {
  // < 1 M parameters: trains on the CPU adapters (SwiftShader / llvmpipe) in minutes.
  nano: {
    vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 96, intermediateSize: 256, numLayers: 4,
    numHeads: 4, numKvHeads: 2, headDim: 24, rmsNormEps: 1e-6, ropeTheta: 10000,
    maxPositionEmbeddings: 512, tieWordEmbeddings: true, tokenizer: 'byte',
  },
  // nano with the trimmed Qwen3 vocabulary: ~3.5× fewer tokens per episode than bytes; 6 144 positions
  // hold every measured episode (service test split ≤ 4 390, JSON tools ≤ 5 548; README "Context: tokens per episode").
  'nano-q': {
    vocabSize: TRIMMED_QWEN3_VOCAB_SIZE, hiddenSize: 96, intermediateSize: 256, numLayers: 4,
    numHeads: 4, numKvHeads: 2, headDim: 24, rmsNormEps: 1e-6, ropeTheta: 10000,
    maxPositionEmbeddings: 6144, tieWordEmbeddings: true, tokenizer: 'qwen3-trimmed',
  },
  // ~5 M parameters: desktop GPUs.
  tiny: {
    vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 256, intermediateSize: 768, numLayers: 6,
    numHeads: 8, numKvHeads: 4, headDim: 32, rmsNormEps: 1e-6, ropeTheta: 10000,
    maxPositionEmbeddings: 1024, tieWordEmbeddings: true, tokenizer: 'byte',
  },
  // tiny with the trimmed Qwen3 vocabulary.
  'tiny-q': {
    vocabSize: TRIMMED_QWEN3_VOCAB_SIZE, hiddenSize: 256, intermediateSize: 768, numLayers: 6,
    numHeads: 8, numKvHeads: 4, headDim: 32, rmsNormEps: 1e-6, ropeTheta: 10000,
    maxPositionEmbeddings: 6144, tieWordEmbeddings: true, tokenizer: 'qwen3-trimmed',
  },
  // ~30 M parameters: desktop GPUs.
  small: {
    vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 512, intermediateSize: 1536, numLayers: 10,
    numHeads: 8, numKvHeads: 4, headDim: 64, rmsNormEps: 1e-6, ropeTheta: 10000,
    maxPositionEmbeddings: 2048, tieWordEmbeddings: true, tokenizer: 'byte',
  },
  // The real Qwen3-0.6B shape; weights come from files the user picks.
  'qwen3-0.6b': {
    vocabSize: 151936, hiddenSize: 1024, intermediateSize: 3072, numLayers: 28,
    numHeads: 16, numKvHeads: 8, headDim: 128, rmsNormEps: 1e-6, ropeTheta: 1000000,
    maxPositionEmbeddings: 40960, tieWordEmbeddings: true, tokenizer: 'qwen3',
  },
};

/** Throws a message naming the field when a config cannot describe a valid model. */
export function validateModelConfig(cfg: ModelConfig): ModelConfig {
  const positive: (keyof ModelConfig)[] = [
    'vocabSize', 'hiddenSize', 'intermediateSize', 'numLayers', 'numHeads', 'numKvHeads', 'headDim', 'maxPositionEmbeddings',
  ];
  for (const k of positive) {
    const v = cfg[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
      throw new Error(`model config: ${k} must be a positive integer, got ${String(v)}`);
    }
  }
  if (cfg.numHeads % cfg.numKvHeads !== 0) {
    throw new Error(`model config: numKvHeads (${cfg.numKvHeads}) must divide numHeads (${cfg.numHeads}) for grouped-query attention`);
  }
  if (cfg.headDim % 2 !== 0) throw new Error(`model config: headDim (${cfg.headDim}) must be even for RoPE`);
  if (!(cfg.rmsNormEps > 0)) throw new Error(`model config: rmsNormEps must be > 0, got ${cfg.rmsNormEps}`);
  if (!(cfg.ropeTheta > 0)) throw new Error(`model config: ropeTheta must be > 0, got ${cfg.ropeTheta}`);
  return cfg;
}

/** The fields that fix a model's parameter shapes. */
const SHAPE_FIELDS = ['vocabSize', 'hiddenSize', 'intermediateSize', 'numLayers', 'numHeads', 'numKvHeads', 'headDim'] as const;

/** "hiddenSize (64 vs 96)" for every shape field where `got` differs from `want`; [] when the parameters fit. */
export function shapeDifferences(got: ModelConfig, want: ModelConfig): string[] {
  return SHAPE_FIELDS.filter((k) => got[k] !== want[k]).map((k) => `${k} (${got[k]} vs ${want[k]})`);
}
