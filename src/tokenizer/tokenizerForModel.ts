// The one place that turns a model config into its tokenizer. Every stage (SFT, rollouts, actors in
// workers, evaluation, scripts) calls tokenizerForModel, so a preset's tokenizer kind means the same
// ids everywhere. Qwen3-based tokenizers load once per page / process (loadQwen3Files).

import type { ModelConfig } from '../model/config';
import keptVocab from './vocab/qwen3-trimmed.json';
import { ByteTokenizer } from './byteTokenizer';
import { Qwen3Tokenizer } from './qwen3Tokenizer';
import { loadQwen3Files } from './qwen3Source';
import { TrimmedQwen3Tokenizer } from './trimmedQwen3Tokenizer';
import { parseTrimmedVocab } from './trimmedVocab';
import type { Tokenizer } from './types';

let qwen3: Promise<Qwen3Tokenizer> | undefined;
let trimmed: Promise<TrimmedQwen3Tokenizer> | undefined;

/** Retries on the next call instead of caching a failure. */
function once<T>(get: () => Promise<T> | undefined, set: (p: Promise<T> | undefined) => void, make: () => Promise<T>): Promise<T> {
  let p = get();
  if (p === undefined) {
    p = make().catch((e: unknown) => {
      set(undefined);
      throw e;
    });
    set(p);
  }
  return p;
}

/** The trimmed Qwen3 tokenizer of the kept-id list in the repo (src/tokenizer/vocab/qwen3-trimmed.json). */
export function loadTrimmedQwen3Tokenizer(): Promise<TrimmedQwen3Tokenizer> {
  return once(() => trimmed, (p) => (trimmed = p), async () => {
    const { json, config } = await loadQwen3Files();
    return new TrimmedQwen3Tokenizer(json, config, parseTrimmedVocab(keptVocab).qwen3Ids);
  });
}

function loadQwen3(): Promise<Qwen3Tokenizer> {
  return once(() => qwen3, (p) => (qwen3 = p), async () => {
    const { json, config } = await loadQwen3Files();
    return new Qwen3Tokenizer(json, config);
  });
}

/**
 * The tokenizer of a model config (`tokenizer` kind), checked against its vocabSize: a model whose
 * embedding has other rows than the tokenizer was made with another vocabulary and would read
 * wrong ids, so that is refused with what to do.
 */
export async function tokenizerForModel(cfg: Pick<ModelConfig, 'tokenizer' | 'vocabSize'>): Promise<Tokenizer> {
  let tok: Tokenizer;
  switch (cfg.tokenizer) {
    case 'byte':
      tok = new ByteTokenizer();
      break;
    case 'qwen3':
      tok = await loadQwen3();
      break;
    case 'qwen3-trimmed':
      tok = await loadTrimmedQwen3Tokenizer();
      break;
    default:
      throw new Error(`model config: unknown tokenizer ${JSON.stringify(cfg.tokenizer)}; use 'byte', 'qwen3' or 'qwen3-trimmed'`);
  }
  // Qwen3 checkpoints carry 151 936 rows (HF's padding) but any size holding every id works.
  const fits = cfg.tokenizer === 'qwen3' ? cfg.vocabSize >= Math.max(...Object.values(tok.specialTokens)) + 1 : cfg.vocabSize === tok.vocabSize;
  if (!fits) {
    throw new Error(
      `model config: vocabSize ${cfg.vocabSize} does not match the ${cfg.tokenizer} tokenizer (${tok.vocabSize} ids)` +
        (cfg.tokenizer === 'qwen3-trimmed' ? ': the model was trained with another kept-id list; use the src/tokenizer/vocab/qwen3-trimmed.json it was trained with (git history)' : '') +
        '; pick a preset or checkpoint made for this tokenizer',
    );
  }
  return tok;
}
