// Induction sequences: a random run of tokens followed by the same run again, trained only on the
// repeat. This is the textbook setting in which small transformers form induction heads (attend to
// the token after the previous occurrence of the current one, copy it), with every repeated token a
// copy target: a copy drill (copyDrills.ts) carries ~20 copied tokens in ~80, these carry half their
// length. The runs draw from the tokens of drill strings (letters and spaces for the byte presets,
// letter pieces for the trimmed Qwen3 vocabulary), so the copying they teach is of the same tokens an
// argument value is made of; they carry no task content.
import type { EncodedDoc } from './packing';
import { Rng } from '../util/rng';

export interface InductionShape {
  /** Shortest and longest run, in tokens (the document is twice as long). */
  minRun: number;
  maxRun: number;
}

export const DEFAULT_INDUCTION: InductionShape = { minRun: 12, maxRun: 48 };

/**
 * `n` documents: ids = run ++ run, mask 1 on the repeat except its first token (nothing announces
 * where the repeat starts, so only tokens 2..L of the repeat are predictable by copying).
 */
export function inductionDocs(n: number, pool: readonly number[], seed: number, shape: InductionShape = DEFAULT_INDUCTION): EncodedDoc[] {
  if (pool.length < 2) throw new Error(`induction documents need at least 2 distinct tokens to draw from, got ${pool.length}`);
  if (!(shape.minRun >= 2 && shape.maxRun >= shape.minRun)) throw new Error(`induction runs: need 2 ≤ minRun ≤ maxRun, got ${shape.minRun}..${shape.maxRun}`);
  const rng = new Rng(seed ^ 0x1d0c);
  return Array.from({ length: n }, () => {
    const L = rng.int(shape.minRun, shape.maxRun);
    const run = Array.from({ length: L }, () => pool[rng.int(0, pool.length - 1)]);
    const mask = [...new Array<number>(L + 1).fill(0), ...new Array<number>(L - 1).fill(1)];
    return { ids: [...run, ...run], mask };
  });
}

/** The distinct token ids of some texts (encoded one by one), sorted: the pool induction runs draw from. */
export function tokenPool(texts: readonly string[], encode: (s: string) => number[]): number[] {
  const ids = new Set<number>();
  for (const t of texts) for (const id of encode(t)) ids.add(id);
  return [...ids].sort((a, b) => a - b);
}
