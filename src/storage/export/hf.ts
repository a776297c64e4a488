// A model as a Hugging Face folder: config.json, model.safetensors (HF names), generation_config.json,
// and for Qwen3-tokenizer models tokenizer.json + tokenizer_config.json (with the chat template), so
// `AutoModelForCausalLM.from_pretrained(dir)` and `AutoTokenizer.from_pretrained(dir)` load it.
// Byte-tokenizer presets have no HF tokenizer; config.json names it (`tabforge_tokenizer: "byte"`).
import type { ModelConfig } from '../../model/config';
import { type ModelParams, modelToSafetensorsParts, type SaveDtype } from '../../model/checkpointIO';
import { type ExportFile, jsonFile } from './files';

/** Token ids generation needs (from the Tokenizer: eosId = <|im_end|>, padId = <|endoftext|>). */
export interface GenerationIds {
  eosId: number;
  padId: number;
}

export function generationConfig(ids: GenerationIds): Record<string, unknown> {
  // Qwen3 stops at <|im_end|> or <|endoftext|>; sampling defaults are Qwen3's non-thinking ones.
  return { eos_token_id: [ids.eosId, ids.padId], pad_token_id: ids.padId, do_sample: true, temperature: 0.7, top_p: 0.8, top_k: 20 };
}

export interface HfExportOptions {
  dtype?: SaveDtype;
  ids: GenerationIds;
  /** Qwen3 presets: the tokenizer files to include (tokenizer.json object, tokenizer_config.json object). */
  tokenizerFiles?: { tokenizerJson: unknown; tokenizerConfig: unknown };
}

export function hfModelFiles(cfg: ModelConfig, params: ModelParams, opts: HfExportOptions): ExportFile[] {
  const { configJson, parts } = modelToSafetensorsParts(cfg, params, opts.dtype ?? 'F32');
  const files: ExportFile[] = [
    { path: 'config.json', parts: [new TextEncoder().encode(configJson)] },
    { path: 'model.safetensors', parts },
    jsonFile('generation_config.json', generationConfig(opts.ids)),
  ];
  if (cfg.tokenizer === 'qwen3') {
    if (!opts.tokenizerFiles) throw new Error('HF export: a Qwen3-tokenizer model needs its tokenizer files (tokenizer.json, tokenizer_config.json)');
    files.push(jsonFile('tokenizer.json', opts.tokenizerFiles.tokenizerJson), jsonFile('tokenizer_config.json', opts.tokenizerFiles.tokenizerConfig));
  }
  return files;
}
