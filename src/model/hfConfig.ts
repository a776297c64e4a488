// Hugging Face Qwen3 `config.json` ↔ ModelConfig. Reading validates with zod and rejects what our
// kernels do not implement (attention bias, other activations, RoPE scaling, sliding windows)
// instead of silently training a different model.

import { z } from 'zod';
import { type ModelConfig, TOKENIZER_KINDS, type TokenizerKind, validateModelConfig } from './config';

/** The fields of HF's Qwen3Config that we write (snake_case, as transformers expects). */
export interface HfQwen3Config {
  architectures: ['Qwen3ForCausalLM'];
  model_type: 'qwen3';
  vocab_size: number;
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim: number;
  hidden_act: 'silu';
  attention_bias: false;
  attention_dropout: 0;
  rms_norm_eps: number;
  rope_theta: number;
  rope_scaling: null;
  max_position_embeddings: number;
  tie_word_embeddings: boolean;
  use_sliding_window: false;
  sliding_window: null;
  max_window_layers: number;
  use_cache: true;
  torch_dtype: 'float32' | 'float16' | 'bfloat16';
  /** Ours: which tokenizer the model was trained with (HF ignores unknown fields). */
  tabforge_tokenizer: TokenizerKind;
}

/** Vocabularies at least this large are Qwen3's BPE tokenizer; smaller ones are our byte tokenizer. */
const QWEN3_VOCAB_MIN = 150_000;

const count = z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }).positive({ error: 'must be > 0' });
const ropeParameters = z.object({ rope_type: z.string().optional(), type: z.string().optional(), rope_theta: z.number().positive().optional() }).loose();

// Shape-defining fields are required: HF's defaults describe an 8B-class model, so a missing one means a broken file.
const hfSchema = z.object({
  model_type: z.string(),
  architectures: z.array(z.string()).optional(),
  vocab_size: count,
  hidden_size: count,
  intermediate_size: count,
  num_hidden_layers: count,
  num_attention_heads: count,
  num_key_value_heads: count,
  head_dim: count,
  rms_norm_eps: z.number().positive().default(1e-6),
  rope_theta: z.number().positive().optional(),
  max_position_embeddings: count.default(32768),
  tie_word_embeddings: z.boolean().default(false),
  hidden_act: z.string().default('silu'),
  attention_bias: z.boolean().default(false),
  attention_dropout: z.number().min(0).max(1).default(0),
  rope_scaling: ropeParameters.nullish(),
  rope_parameters: ropeParameters.nullish(), // transformers ≥ 5 moves rope_theta here
  use_sliding_window: z.boolean().default(false),
  tabforge_tokenizer: z.enum(TOKENIZER_KINDS).optional(),
}).loose();

type ParsedHf = z.infer<typeof hfSchema>;

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.join('.') || '(top level)';
  if (issue.code === 'invalid_type' && issue.input === undefined) return `${field} is missing (a Qwen3 config.json lists it)`;
  return `${field} ${issue.message}, got ${JSON.stringify(issue.input)}`;
}

function ropeTypeOf(r: { rope_type?: string; type?: string } | null | undefined): string {
  return r?.rope_type ?? r?.type ?? 'default';
}

/** Errors for settings our kernels do not implement; each says what to do. */
function unsupportedSettings(hf: ParsedHf): string[] {
  const out: string[] = [];
  if (hf.attention_bias) out.push('attention_bias is true: TabForge implements Qwen3 attention without q/k/v/o biases');
  if (hf.hidden_act !== 'silu') out.push(`hidden_act "${hf.hidden_act}" is not supported: Qwen3's MLP uses "silu" (SwiGLU)`);
  if (hf.rope_scaling && ropeTypeOf(hf.rope_scaling) !== 'default') {
    out.push(`rope_scaling ${JSON.stringify(hf.rope_scaling)} is not supported (plain RoPE only): set it to null to train at the original context length`);
  }
  if (hf.rope_parameters && ropeTypeOf(hf.rope_parameters) !== 'default') {
    out.push(`rope_parameters.rope_type "${ropeTypeOf(hf.rope_parameters)}" is not supported (plain RoPE only): use "default"`);
  }
  if (hf.use_sliding_window) out.push('use_sliding_window is true: TabForge implements full causal attention only; set it to false');
  return out;
}

/** Reads a Qwen3 config.json (text or parsed object); warnings list settings that are ignored. */
export function readHfConfig(input: string | unknown): { cfg: ModelConfig; warnings: string[] } {
  let json: unknown = input;
  if (typeof input === 'string') {
    try {
      json = JSON.parse(input);
    } catch (e) {
      throw new Error(`config.json is not valid JSON (${(e as Error).message}): pick the model's config.json file`);
    }
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('config.json must be a JSON object');
  const modelType = (json as { model_type?: unknown }).model_type;
  if (modelType !== 'qwen3') {
    throw new Error(`config.json: model_type ${JSON.stringify(modelType)} is not supported: TabForge trains the Qwen3 architecture (model_type "qwen3")`);
  }
  const parsed = hfSchema.safeParse(json, { reportInput: true });
  if (!parsed.success) throw new Error(`config.json: ${parsed.error.issues.map(describeIssue).join('; ')}`);
  const hf = parsed.data;
  const unsupported = unsupportedSettings(hf);
  if (unsupported.length > 0) throw new Error(`config.json: ${unsupported.join('; ')}`);

  const warnings: string[] = [];
  if (hf.architectures && !hf.architectures.includes('Qwen3ForCausalLM')) {
    warnings.push(`architectures ${JSON.stringify(hf.architectures)} does not list Qwen3ForCausalLM; loading it as one`);
  }
  if (hf.attention_dropout > 0) warnings.push(`attention_dropout ${hf.attention_dropout} is ignored: TabForge trains without dropout`);
  const ropeTheta = hf.rope_theta ?? hf.rope_parameters?.rope_theta ?? 10000; // 10000: HF's default

  const cfg: ModelConfig = {
    vocabSize: hf.vocab_size,
    hiddenSize: hf.hidden_size,
    intermediateSize: hf.intermediate_size,
    numLayers: hf.num_hidden_layers,
    numHeads: hf.num_attention_heads,
    numKvHeads: hf.num_key_value_heads,
    headDim: hf.head_dim,
    rmsNormEps: hf.rms_norm_eps,
    ropeTheta,
    maxPositionEmbeddings: hf.max_position_embeddings,
    tieWordEmbeddings: hf.tie_word_embeddings,
    tokenizer: hf.tabforge_tokenizer ?? (hf.vocab_size >= QWEN3_VOCAB_MIN ? 'qwen3' : 'byte'),
  };
  try {
    validateModelConfig(cfg);
  } catch (e) {
    throw new Error(`config.json describes an invalid model: ${(e as Error).message} (ModelConfig field names; HF: num_attention_heads, num_key_value_heads, head_dim)`);
  }
  return { cfg, warnings };
}

/** ModelConfig from a Qwen3 config.json, dropping the warnings. */
export function modelConfigFromHf(input: string | unknown): ModelConfig {
  return readHfConfig(input).cfg;
}

/** HF Qwen3 config object for a ModelConfig; torchDtype is the dtype the weights are saved in. */
export function modelConfigToHf(cfg: ModelConfig, torchDtype: HfQwen3Config['torch_dtype'] = 'float32'): HfQwen3Config {
  validateModelConfig(cfg);
  return {
    architectures: ['Qwen3ForCausalLM'],
    model_type: 'qwen3',
    vocab_size: cfg.vocabSize,
    hidden_size: cfg.hiddenSize,
    intermediate_size: cfg.intermediateSize,
    num_hidden_layers: cfg.numLayers,
    num_attention_heads: cfg.numHeads,
    num_key_value_heads: cfg.numKvHeads,
    head_dim: cfg.headDim,
    hidden_act: 'silu',
    attention_bias: false,
    attention_dropout: 0,
    rms_norm_eps: cfg.rmsNormEps,
    rope_theta: cfg.ropeTheta,
    rope_scaling: null,
    max_position_embeddings: cfg.maxPositionEmbeddings,
    tie_word_embeddings: cfg.tieWordEmbeddings,
    use_sliding_window: false,
    sliding_window: null,
    max_window_layers: cfg.numLayers,
    use_cache: true,
    torch_dtype: torchDtype,
    tabforge_tokenizer: cfg.tokenizer,
  };
}

/** config.json text (2-space indent, trailing newline, like transformers writes it). */
export function hfConfigJson(cfg: ModelConfig, torchDtype: HfQwen3Config['torch_dtype'] = 'float32'): string {
  return `${JSON.stringify(modelConfigToHf(cfg, torchDtype), null, 2)}\n`;
}
