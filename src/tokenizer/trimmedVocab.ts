// The kept-id list of the trimmed Qwen3 vocabulary: data in the repo (vocab/qwen3-trimmed.json),
// written by `npm run build-vocab` from train-split text only. Its version changes whenever the ids
// change: a model trained with one list reads other ids with another, so a changed list is a new
// vocabulary (the presets' vocabSize pins the size; tokenizerForModel checks it).
import { z } from 'zod';

export const TRIMMED_VOCAB_FORMAT = 'tabforge-qwen3-trimmed-vocab';

const sourceSchema = z.object({
  /** How the list was made (the command, for the record). */
  command: z.string(),
  /** Seed of the train-split task streams. */
  seed: z.number().int(),
  /** Split the text came from: always 'train'. */
  split: z.literal('train'),
  /** Task sets (family/level) whose train split the text came from. */
  taskSets: z.array(z.string()),
  /** Episodes rendered into the corpus per policy (expert, random, format-breaking), all task sets together. */
  episodes: z.record(z.string(), z.number().int().nonnegative()),
  /** Corpus size in UTF-8 bytes (both tool renderings). */
  corpusBytes: z.number().int().nonnegative(),
});

const fileSchema = z.object({
  format: z.literal(TRIMMED_VOCAB_FORMAT),
  /** Bumped whenever qwen3Ids change. */
  version: z.number().int().positive(),
  source: sourceSchema,
  /** Kept Qwen3 ids, ascending: our id i stands for Qwen3 id qwen3Ids[i]. */
  qwen3Ids: z.array(z.number().int().nonnegative()),
});

export type TrimmedVocabFile = z.infer<typeof fileSchema>;
export type TrimmedVocabSource = z.infer<typeof sourceSchema>;

/** Checks a kept-id file; throws naming the problem (and the fix) when it is not one. */
export function parseTrimmedVocab(input: unknown): TrimmedVocabFile {
  const parsed = fileSchema.safeParse(input);
  if (!parsed.success) {
    throw new Error(`trimmed vocabulary file: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}; rebuild it with npm run build-vocab`);
  }
  const ids = parsed.data.qwen3Ids;
  for (let i = 1; i < ids.length; i++) {
    if (ids[i] <= ids[i - 1]) throw new Error(`trimmed vocabulary file: qwen3Ids must be strictly ascending (index ${i}: ${ids[i - 1]} then ${ids[i]}); rebuild it with npm run build-vocab`);
  }
  return parsed.data;
}
