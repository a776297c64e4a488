// Moving a model between the trimmed vocabulary and Qwen3's full one (151 936 rows). Our id i is
// Qwen3 id qwen3Ids[i], so a trimmed model's embedding (and untied LM head) rows scatter to those
// Qwen3 rows and everything else in the model stays as it is:
//   expandTrimmedModel → a standard Qwen3 checkpoint (vocab_size 151 936, tokenizer 'qwen3') that
//     reads Qwen3's ids: for any text, its hidden states and the logits of every kept id equal the
//     trimmed model's (tested against the float64 reference model).
//   Rows of trimmed-away ids are zero: their embedding is 0 and their logit is exactly 0, which is
//     not −∞. To sample as the trimmed model did, restrict sampling to the kept ids (e.g. HF
//     generate's `suppress_tokens` / a logits mask of qwen3Ids); scoring kept text needs nothing.
//   gatherTrimmedRows → the other way: start a trimmed model from a full Qwen3 embedding (e.g.
//     Qwen3-0.6B with 4 016 instead of 151 936 rows: 150 M fewer parameters to hold and train).
import type { ModelConfig } from '../model/config';
import { QWEN3_VOCAB_SIZE } from './qwen3Tokenizer';

type Rows = Float32Array | Float64Array;

/** The vocabulary-sized tensors of a Qwen3 checkpoint (HF names): V rows of C values each. */
export const VOCAB_TENSOR_NAMES = ['model.embed_tokens.weight', 'lm_head.weight'] as const;

/** What the helpers need of a trimmed tokenizer. */
export interface TrimmedIdMap {
  /** (V') our id → Qwen3 id. */
  readonly qwen3Ids: Int32Array;
  /** V: our rows (V' rounded up to a multiple of 8). */
  readonly vocabSize: number;
}

function sameKind<A extends Rows>(like: A, length: number): A {
  return (like instanceof Float64Array ? new Float64Array(length) : new Float32Array(length)) as A;
}

function checkSize(what: string, values: Rows, rows: number, cols: number): void {
  if (!Number.isInteger(cols) || cols <= 0 || values.length !== rows * cols) {
    throw new RangeError(`${what}: expected ${rows} rows × ${cols} columns (${rows * cols} values), got ${values.length}; pass the tensor of the model the tokenizer belongs to`);
  }
}

/** (V, C) rows by our id → (fullRows, C) rows by Qwen3 id; trimmed-away and padding rows are 0. */
export function expandTrimmedRows<A extends Rows>(rows: A, cols: number, map: TrimmedIdMap, fullRows = QWEN3_VOCAB_SIZE): A {
  checkSize('expandTrimmedRows', rows, map.vocabSize, cols);
  const out = sameKind(rows, fullRows * cols);
  map.qwen3Ids.forEach((q, i) => {
    if (q >= fullRows) throw new RangeError(`expandTrimmedRows: Qwen3 id ${q} does not fit ${fullRows} rows`);
    out.set(rows.subarray(i * cols, (i + 1) * cols), q * cols);
  });
  return out;
}

/** (fullRows, C) rows by Qwen3 id → (V, C) rows by our id; padding rows are 0. */
export function gatherTrimmedRows<A extends Rows>(full: A, cols: number, map: TrimmedIdMap): A {
  if (!Number.isInteger(cols) || cols <= 0 || full.length % cols !== 0) throw new RangeError(`gatherTrimmedRows: ${full.length} values are not whole rows of ${cols}`);
  const fullRows = full.length / cols;
  const out = sameKind(full, map.vocabSize * cols);
  map.qwen3Ids.forEach((q, i) => {
    if (q >= fullRows) throw new RangeError(`gatherTrimmedRows: Qwen3 id ${q} is past the ${fullRows} rows given`);
    out.set(full.subarray(q * cols, (q + 1) * cols), i * cols);
  });
  return out;
}

/**
 * A trimmed-vocabulary model as a full-vocabulary Qwen3 model: config with vocabSize 151 936 and
 * tokenizer 'qwen3', embedding (and untied LM head) scattered by Qwen3 id; other tensors shared.
 */
export function expandTrimmedModel<A extends Rows>(cfg: ModelConfig, weights: ReadonlyMap<string, A>, map: TrimmedIdMap): { cfg: ModelConfig; weights: Map<string, A> } {
  if (cfg.tokenizer !== 'qwen3-trimmed' || cfg.vocabSize !== map.vocabSize) {
    throw new Error(`expandTrimmedModel: the model (tokenizer ${cfg.tokenizer}, vocabSize ${cfg.vocabSize}) was not trained with this trimmed vocabulary (${map.vocabSize} rows)`);
  }
  const out = new Map(weights);
  for (const name of VOCAB_TENSOR_NAMES) {
    const w = weights.get(name);
    if (w !== undefined) out.set(name, expandTrimmedRows(w, cfg.hiddenSize, map));
  }
  return { cfg: { ...cfg, vocabSize: QWEN3_VOCAB_SIZE, tokenizer: 'qwen3' }, weights: out };
}
