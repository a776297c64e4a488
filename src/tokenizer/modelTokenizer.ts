// The tokenizer of a loaded model folder: its own tokenizer.json (+ tokenizer_config.json) when a
// Qwen3 model ships one, else the preset tokenizer of its kind (./tokenizerForModel); checked against the model's vocabulary
// (every id the tokenizer can produce must have an embedding row) and the Qwen3 chat format
// (<|im_start|>, <|im_end|>). Conversations are rendered with Qwen3's chat template and full JSON
// tool schemas (./chatTemplate); a folder whose template differs gets a warning, not a different format.
import type { ModelConfig } from '../model/config';
import type { ModelFileSource } from '../model/modelFiles';
import { QWEN3_CHAT_TEMPLATE } from './chatTemplate';
import type { Qwen3TokenizerConfig, Qwen3TokenizerJson } from './qwen3Files';
import { Qwen3Tokenizer, tokenizerIdCount } from './qwen3Tokenizer';
import { tokenizerForModel } from './tokenizerForModel';
import { IM_END, IM_START, type Tokenizer } from './types';

export interface ModelTokenizer {
  tokenizer: Tokenizer;
  /** Where it came from: "tokenizer.json in <folder>" or "bundled Qwen3 tokenizer". */
  source: string;
  warnings: string[];
}

function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new Error(`${what} is not valid JSON (${(e as Error).message})`);
  }
}

/** Throws when the tokenizer can produce an id the model has no embedding row for, or lacks the chat specials. */
export function checkTokenizerMatches(json: Qwen3TokenizerJson, cfg: ModelConfig, what: string): void {
  if (json.model?.type !== 'BPE' || typeof json.model.vocab !== 'object' || !Array.isArray(json.added_tokens)) {
    throw new Error(`${what} is not a byte-level BPE tokenizer.json (model.type ${JSON.stringify(json.model?.type)}): Qwen3 models ship one`);
  }
  const ids = tokenizerIdCount(json);
  if (ids > cfg.vocabSize) {
    throw new Error(`${what} produces ids up to ${ids - 1}, but the model's embedding has vocab_size ${cfg.vocabSize} rows: this tokenizer does not belong to this model (pick the folder's own tokenizer files, or the right config.json)`);
  }
  const specials = new Set(json.added_tokens.map((t) => t.content));
  const missing = [IM_START, IM_END].filter((t) => !specials.has(t));
  if (missing.length) throw new Error(`${what} has no ${missing.join(' or ')} token: TabForge trains in the Qwen3 chat format, which needs them`);
}

/**
 * The tokenizer for a model folder with this config: a Qwen3 model's own tokenizer.json when the
 * folder has one (checked), otherwise the preset tokenizer of its kind (tokenizerForModel: byte,
 * bundled Qwen3, trimmed Qwen3). `preset` replaces that fallback (tests load it from disk).
 */
export async function tokenizerForModelFolder(src: ModelFileSource, cfg: ModelConfig, preset: () => Promise<Tokenizer> = () => tokenizerForModel(cfg)): Promise<ModelTokenizer> {
  const warnings: string[] = [];
  const hasOwn = await src.has('tokenizer.json');
  if (cfg.tokenizer === 'qwen3' && hasOwn) {
    const what = `tokenizer.json in ${src.where}`;
    const json = parseJson<Qwen3TokenizerJson>(await src.text('tokenizer.json'), what);
    checkTokenizerMatches(json, cfg, what);
    let config: Qwen3TokenizerConfig = { chat_template: QWEN3_CHAT_TEMPLATE, eos_token: IM_END, pad_token: '<|endoftext|>' };
    if (await src.has('tokenizer_config.json')) {
      const own = parseJson<Partial<Qwen3TokenizerConfig>>(await src.text('tokenizer_config.json'), `tokenizer_config.json in ${src.where}`);
      config = { ...config, ...own };
      if (own.chat_template !== undefined && own.chat_template !== QWEN3_CHAT_TEMPLATE) {
        warnings.push('the folder\'s chat template differs from Qwen3\'s; TabForge renders conversations with Qwen3\'s template (tools as full JSON schemas)');
      }
    }
    return { tokenizer: new Qwen3Tokenizer(json, config, cfg.vocabSize), source: what, warnings };
  }
  const tok = await preset();
  if (tok.vocabSize > cfg.vocabSize) {
    throw new Error(`the model has vocab_size ${cfg.vocabSize} and ships no tokenizer.json; the ${cfg.tokenizer} tokenizer needs ${tok.vocabSize} embedding rows: add the model's tokenizer files to the folder`);
  }
  if (cfg.tokenizer === 'qwen3') warnings.push(`no tokenizer.json in ${src.where}: using the bundled Qwen3 tokenizer`);
  else if (hasOwn) warnings.push(`tokenizer.json in ${src.where} ignored: config.json says tokenizer '${cfg.tokenizer}'`);
  return { tokenizer: tok, source: cfg.tokenizer === 'qwen3' ? 'bundled Qwen3 tokenizer' : `${cfg.tokenizer} tokenizer`, warnings };
}
