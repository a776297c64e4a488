// Moving a byte-level model (nano, tiny, small) to another vocabulary of the same shape otherwise
// (nano → nano-q: the trimmed Qwen3 ids), so that what the byte model learned — e.g. the bundled copy
// base's induction/copy circuits — becomes the start of a model that reads Qwen3 tokens.
// Every non-vocabulary tensor (attention, MLP, norms) is copied unchanged; each embedding row of the
// target vocabulary (tied to its LM head) is made from the source rows of the same bytes:
//   special token (<|im_start|> …)      → the source's row of the same special;
//   token of bytes b_1 … b_k (k ≥ 1)     → mean_j E_src[b_j]   (a single byte: its own row, exactly);
//   padding (ids with no bytes)          → the mean of the source's padding rows.
// The mean-of-pieces init is "Fast Vocabulary Transfer" (Gee et al. 2022, "Fast Vocabulary Transfer
// for Language Model Compression", EMNLP industry track); the model still has to train on the new
// tokens (a multi-byte token's logit starts at the mean of its bytes' logits), but a text written
// byte by byte in the new ids runs exactly as it did in the byte model (vocabTransfer.test.ts).
// RoPE has no position table, so a target with more positions (nano-q: 6 144) is only an untrained
// range past the source's maxPositionEmbeddings, not a shape change.
import type { ModelParams } from './checkpointIO';
import { type ModelConfig, shapeDifferences } from './config';
import type { Tokenizer } from '../tokenizer/types';

const EMBED = 'model.embed_tokens.weight';
const LM_HEAD = 'lm_head.weight';

/** How each target row was made: counts for the record (and a check that no row was left out). */
export interface VocabTransferStats {
  /** Target rows copied from the source's row of the same special token. */
  specials: number;
  /** Target rows of one byte: the source's row, exactly. */
  singleBytes: number;
  /** Target rows of several bytes: the mean of their source rows. */
  multiByte: number;
  /** Target rows with no bytes (padding): the mean of the source's padding rows. */
  padding: number;
}

export interface VocabTransferInput {
  /** (V_src, C) source model: a byte-tokenizer config. */
  cfg: ModelConfig;
  params: ModelParams;
  tokenizer: Tokenizer;
}

/** The source's padding rows: ids past its specials that stand for no bytes. */
function paddingRows(tok: Tokenizer, rows: number): number[] {
  const specials = new Set(Object.values(tok.specialTokens));
  const out: number[] = [];
  for (let id = 0; id < rows; id++) if (!specials.has(id) && tok.tokenBytes(id).length === 0) out.push(id);
  return out;
}

/**
 * Source weights → target weights of `target`'s vocabulary (`targetTok` must be that config's tokenizer).
 * Refuses what would silently produce a wrong model: a source that is not byte-level, other layer shapes,
 * untied embeddings (the LM head would need the same treatment and no preset has one), a target special
 * the source lacks.
 */
export function transferVocabulary(source: VocabTransferInput, target: ModelConfig, targetTok: Tokenizer): { params: ModelParams; stats: VocabTransferStats } {
  const { cfg, params, tokenizer: srcTok } = source;
  if (cfg.tokenizer !== 'byte' || srcTok.kind !== 'byte') throw new Error(`vocabulary transfer: the source model must be byte-level (tokenizer 'byte'), got '${cfg.tokenizer}'; start from a nano/tiny/small folder`);
  if (targetTok.kind !== target.tokenizer || targetTok.vocabSize !== target.vocabSize) {
    throw new Error(`vocabulary transfer: the tokenizer given (${targetTok.kind}, ${targetTok.vocabSize} rows) is not the target config's (${target.tokenizer}, ${target.vocabSize} rows)`);
  }
  const differ = shapeDifferences(cfg, target).filter((d) => !d.startsWith('vocabSize'));
  if (differ.length) throw new Error(`vocabulary transfer: the target differs from the source in ${differ.join(', ')}; only the vocabulary may change (e.g. nano → nano-q)`);
  if (!cfg.tieWordEmbeddings || !target.tieWordEmbeddings || params.has(LM_HEAD)) throw new Error('vocabulary transfer: only models with tied embeddings (no lm_head.weight) are supported');
  const C = cfg.hiddenSize;
  const src = params.get(EMBED);
  if (!src || src.length !== cfg.vocabSize * C) throw new Error(`vocabulary transfer: the source has no ${EMBED} of ${cfg.vocabSize} × ${C}`);

  const row = (id: number) => src.subarray(id * C, (id + 1) * C);
  const pads = paddingRows(srcTok, cfg.vocabSize);
  if (pads.length === 0) throw new Error('vocabulary transfer: the source vocabulary has no padding row to start the target\'s padding from');
  const specialOf = new Map(Object.entries(targetTok.specialTokens).map(([name, id]) => [id, name]));

  const out = new Float32Array(target.vocabSize * C); // (V_tgt, C)
  const stats: VocabTransferStats = { specials: 0, singleBytes: 0, multiByte: 0, padding: 0 };
  const acc = new Float64Array(C);
  for (let id = 0; id < target.vocabSize; id++) {
    const special = specialOf.get(id);
    let from: number[];
    if (special !== undefined) {
      const s = srcTok.specialTokens[special];
      if (s === undefined) throw new Error(`vocabulary transfer: the target's special token ${special} has no row in the source vocabulary`);
      from = [s];
      stats.specials++;
    } else {
      const bytes = targetTok.tokenBytes(id);
      if (bytes.length === 0) {
        from = pads;
        stats.padding++;
      } else {
        from = [...bytes]; // byte tokenizer: id b is byte b
        if (bytes.length === 1) stats.singleBytes++;
        else stats.multiByte++;
      }
    }
    acc.fill(0);
    for (const f of from) {
      const r = row(f);
      for (let c = 0; c < C; c++) acc[c] += r[c];
    }
    for (let c = 0; c < C; c++) out[id * C + c] = acc[c] / from.length;
  }

  const next: ModelParams = new Map();
  for (const [name, value] of params) next.set(name, name === EMBED ? out : Float32Array.from(value));
  return { params: next, stats };
}
