// Builds the kept-id list of the trimmed Qwen3 vocabulary (npm run build-vocab) and measures how
// much text it covers. The corpus is train-split text only: every task set's verified expert episodes
// (system prompts, tool schemas in both renderings, tool results, simulated-user turns, the
// expert's own turns) plus random and format-breaking agents' episodes (the environments' error
// replies). Every Qwen3 id that text uses is kept, with the 256 byte tokens and the chat specials.
import type { TrimmedQwen3Tokenizer } from '../tokenizer/trimmedQwen3Tokenizer';
import type { TrimmedVocabSource } from '../tokenizer/trimmedVocab';
import type { TaskSet } from '../envs/taskSets';
import { corpusEpisodes, renderedSegments, taskSetName, trainTaskSets, type CorpusPolicy, type Split } from './episodeCorpus';

export interface VocabBuildOptions {
  /** Seed of the train task streams. */
  seed: number;
  /** Episodes per task set and policy. */
  episodes: Record<CorpusPolicy, number>;
}

/** The committed list's settings: ~4 000 ids; more episodes add few (see README "Context: tokens per episode"). */
export const DEFAULT_VOCAB_BUILD: VocabBuildOptions = { seed: 7, episodes: { expert: 1000, random: 100, 'format-breaking': 10 } };

/** Every text (segment) of `split` episodes of a task set, both tool renderings, for every policy with a count. */
export async function* corpusTexts(set: TaskSet, split: Split, seed: number, episodes: Partial<Record<CorpusPolicy, number>>): AsyncGenerator<string> {
  for (const [policy, n] of Object.entries(episodes) as [CorpusPolicy, number][]) {
    if (!n) continue;
    for (const ep of await corpusEpisodes(set, { split, seed, n, policy })) {
      for (const rendering of ['compact', 'json'] as const) yield* renderedSegments(ep.messages, ep.tools, rendering);
    }
  }
}

export interface VocabBuild {
  /** Kept Qwen3 ids, ascending (corpus ids ∪ required). */
  qwen3Ids: number[];
  source: TrimmedVocabSource;
}

/**
 * Kept ids of the train corpus. `qwen3Encode` is the trimmed tokenizer's (Qwen3's BPE without NFC,
 * what encode() renumbers); `required` the ids every list keeps (requiredQwen3Ids).
 */
export async function buildKeptIds(qwen3Encode: (text: string) => number[], required: readonly number[], opts: VocabBuildOptions, log: (line: string) => void = () => {}): Promise<VocabBuild> {
  const ids = new Set<number>(required);
  const encoder = new TextEncoder();
  let corpusBytes = 0;
  const sets = trainTaskSets();
  for (const set of sets) {
    const before = ids.size;
    for await (const text of corpusTexts(set, 'train', opts.seed, opts.episodes)) {
      corpusBytes += encoder.encode(text).length;
      for (const id of qwen3Encode(text)) ids.add(id);
    }
    log(`${taskSetName(set)}: +${ids.size - before} ids (${ids.size} kept)`);
  }
  const episodes = Object.fromEntries(Object.entries(opts.episodes).map(([policy, n]) => [policy, n * sets.length]));
  return {
    qwen3Ids: [...ids].sort((a, b) => a - b),
    source: { command: 'npm run build-vocab', seed: opts.seed, split: 'train', taskSets: sets.map(taskSetName), episodes, corpusBytes },
  };
}

/** How much of some text the kept ids cover without splitting a Qwen3 token. */
export interface Coverage {
  /** UTF-8 bytes of the text. */
  bytes: number;
  /** Bytes inside Qwen3 tokens that are kept (encoded as Qwen3 encodes them). */
  keptBytes: number;
  /** Qwen3 tokens of the text (Qwen3's BPE, no NFC). */
  qwen3Tokens: number;
  /** Trimmed tokens of the text (kept tokens + the pieces of split ones). */
  trimmedTokens: number;
}

export function emptyCoverage(): Coverage {
  return { bytes: 0, keptBytes: 0, qwen3Tokens: 0, trimmedTokens: 0 };
}

/** Adds `text` to `c` (mutates and returns it). */
export function addCoverage(c: Coverage, tok: TrimmedQwen3Tokenizer, text: string): Coverage {
  const qwen3 = tok.qwen3Encode(text);
  for (const q of qwen3) {
    const id = tok.trimmedIdOf(q);
    const bytes = id === undefined ? tok.fromQwen3Ids([q]).reduce((n, piece) => n + tok.tokenBytes(piece).length, 0) : tok.tokenBytes(id).length;
    c.bytes += bytes;
    if (id !== undefined) c.keptBytes += bytes;
  }
  c.qwen3Tokens += qwen3.length;
  c.trimmedTokens += tok.fromQwen3Ids(qwen3).length;
  return c;
}
