import { describe, expect, it } from 'vitest';
import { PRESETS, type ModelConfig } from '../model/config';
import { initReferenceParameters, referenceForward } from '../reference';
import { Rng } from '../util/rng';
import { qwen3TokenizerFromDisk } from './qwen3TokenizerNode';
import { QWEN3_VOCAB_SIZE } from './qwen3Tokenizer';
import { tokenizerForModel } from './tokenizerForModel';
import { expandTrimmedModel, expandTrimmedRows, gatherTrimmedRows } from './trimmedEmbedding';
import type { TrimmedQwen3Tokenizer } from './trimmedQwen3Tokenizer';

const tok = (await tokenizerForModel(PRESETS['nano-q'])) as TrimmedQwen3Tokenizer;
const qwen3 = qwen3TokenizerFromDisk();

describe('trimmed ↔ full Qwen3 vocabulary rows', () => {
  it('scatters rows to their Qwen3 ids and gathers them back (padding and trimmed-away rows are 0)', () => {
    const C = 3;
    const rows = Float32Array.from({ length: tok.vocabSize * C }, (_, k) => k + 1);
    const full = expandTrimmedRows(rows, C, tok);
    expect(full.length).toBe(QWEN3_VOCAB_SIZE * C);
    const id = tok.specialTokens['<|im_end|>'];
    expect(Array.from(full.subarray(151645 * C, 151646 * C))).toEqual(Array.from(rows.subarray(id * C, (id + 1) * C)));
    const dropped = [...Array(5000).keys()].find((q) => tok.trimmedIdOf(q) === undefined) ?? -1;
    expect(Array.from(full.subarray(dropped * C, (dropped + 1) * C))).toEqual([0, 0, 0]);
    const back = gatherTrimmedRows(full, C, tok);
    expect(Array.from(back.subarray(0, tok.usedIds * C))).toEqual(Array.from(rows.subarray(0, tok.usedIds * C)));
    expect(back.subarray(tok.usedIds * C).every((v) => v === 0)).toBe(true);
    expect(() => expandTrimmedRows(rows.subarray(C), C, tok)).toThrow(/rows × 3 columns/);
  });

  it.each([true, false])('a model written out with 151 936 rows (tied %s) reads Qwen3 ids with the same logits on every kept id', (tied) => {
    const cfg: ModelConfig = {
      vocabSize: tok.vocabSize, hiddenSize: 8, intermediateSize: 16, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 4,
      rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: tied, tokenizer: 'qwen3-trimmed',
    };
    const params = initReferenceParameters(cfg, new Rng(5));
    const text = '<|im_start|>user\nWhere is order #W3067740, Zyzzyva?<|im_end|>\n';
    const ids = tok.encode(text);
    const T = ids.length;
    const small = referenceForward(cfg, params, Int32Array.from(ids), 1, T).logits; // (T, V)

    const full = expandTrimmedModel(cfg, params, tok);
    expect(full.cfg).toEqual({ ...cfg, vocabSize: QWEN3_VOCAB_SIZE, tokenizer: 'qwen3' });
    const qwen3Ids = tok.toQwen3Ids(ids);
    expect(qwen3.decode(qwen3Ids)).toBe(text); // what Qwen3's tokenizer reads back
    const big = referenceForward(full.cfg, full.weights, Int32Array.from(qwen3Ids), 1, T).logits; // (T, 151936)
    let maxDiff = 0;
    for (let t = 0; t < T; t++) {
      for (let i = 0; i < tok.usedIds; i++) maxDiff = Math.max(maxDiff, Math.abs(small[t * cfg.vocabSize + i] - big[t * QWEN3_VOCAB_SIZE + tok.qwen3Ids[i]]));
      expect(big[t * QWEN3_VOCAB_SIZE + 151660]).toBe(0); // a trimmed-away id (<|fim_middle|>): zero row, logit exactly 0
    }
    expect(maxDiff).toBe(0);
    expect(() => expandTrimmedModel({ ...cfg, tokenizer: 'byte' }, params, tok)).toThrow(/not trained with this trimmed vocabulary/);
  });
});
