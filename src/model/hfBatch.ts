// HF causal-LM batch conventions → TabForge's next-token batch. HF passes `labels` as long as the
// input and shifts inside the model: position t is scored against labels[t + 1]; −100 is ignored;
// loss = mean over scored tokens. TabForge scores position t against targets[t] with a mask.
import type { MaskedBatch } from './trainStep';

export interface HfTokenBatch {
  /** (B, T) token ids. */
  input_ids: number[][];
  /** (B, T) labels, −100 = ignored; default input_ids. */
  labels?: number[][];
}

export const IGNORE_INDEX = -100;

/** Validates a debug batch and converts it; throws naming the row and position of a problem. */
export function hfBatchToMasked(batch: HfTokenBatch, vocabSize: number): { B: number; T: number; batch: MaskedBatch } {
  const ids = batch.input_ids;
  if (!Array.isArray(ids) || ids.length === 0 || !Array.isArray(ids[0])) {
    throw new Error('batch: "input_ids" must be a non-empty list of token-id lists, e.g. {"input_ids": [[1, 2, 3]]}');
  }
  const B = ids.length;
  const T = ids[0].length;
  const labels = batch.labels ?? ids;
  if (labels.length !== B) throw new Error(`batch: "labels" has ${labels.length} rows, "input_ids" has ${B}`);
  const inputIds = new Int32Array(B * T);
  const targets = new Int32Array(B * T);
  const mask = new Float32Array(B * T);
  for (let b = 0; b < B; b++) {
    if (ids[b].length !== T) throw new Error(`batch: input_ids row ${b} has ${ids[b].length} tokens, row 0 has ${T}; pad rows to one length`);
    if (labels[b].length !== T) throw new Error(`batch: labels row ${b} has ${labels[b].length} entries, needs ${T} (as long as input_ids)`);
    for (let t = 0; t < T; t++) {
      const id = ids[b][t];
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize) throw new Error(`batch: input_ids[${b}][${t}] = ${id} is outside the vocabulary [0, ${vocabSize})`);
      inputIds[b * T + t] = id;
      const next = t + 1 < T ? labels[b][t + 1] : IGNORE_INDEX;
      if (next === IGNORE_INDEX) continue;
      if (!Number.isInteger(next) || next < 0 || next >= vocabSize) throw new Error(`batch: labels[${b}][${t + 1}] = ${next} is outside the vocabulary (use -100 to ignore a position)`);
      targets[b * T + t] = next;
      mask[b * T + t] = 1;
    }
  }
  return { B, T, batch: { inputIds, targets, mask } };
}
