// The token embedding lookup over the table's row parts (./weights): one dispatch per part, each
// filling the rows of the ids it holds, so a vocabulary larger than one storage binding looks like
// one table to the model. Works for f32 and packed-f16 (frozen) tables.
// Legend: N tokens, V vocabulary, C hidden.
import type { GpuRuntime } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { embeddingBackward, embeddingForward } from '../ops/embedding';
import type { GpuWeights } from './weights';

export const EMBEDDING = 'model.embed_tokens.weight';

/** out (N, C) = embed_tokens[ids]. */
export function embedTokens(rt: GpuRuntime, w: GpuWeights, ids: Tensor, N: number, out: Tensor): void {
  const { vocabSize: V, hiddenSize: C } = w.cfg;
  const parts = w.parts(EMBEDDING);
  if (parts.length === 1) {
    embeddingForward(rt, ids, parts[0].tensor, { N, V, C }, out);
    return;
  }
  for (const p of parts) embeddingForward(rt, ids, p.tensor, { N, V: p.rows, C, row0: p.row0, partial: true }, out);
}

/** d embed_tokens (V, C) += scatter of dout (N, C) by ids, into the gradient's row parts. */
export function embedTokensBackward(rt: GpuRuntime, w: GpuWeights, dout: Tensor, ids: Tensor, N: number): void {
  const C = w.cfg.hiddenSize;
  const parts = w.gradParts(EMBEDDING);
  for (const p of parts) {
    embeddingBackward(rt, dout, ids, { N, V: p.rows, C, row0: p.row0, partial: parts.length > 1 }, p.tensor);
  }
}
