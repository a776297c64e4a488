// Batched generation with the KV cache: prefill every prompt at once (right-padded), then one
// token per row per step until each row stops (<|im_end|> / a stop id, a stop string, or
// maxNewTokens). Returns the sampled tokens with their behaviour log-probs.
// Identical prompts (a GRPO group's G samples) are prefilled once and their cache rows copied.
// Long prompts are prefilled in chunks (PREFILL_CHUNK_TOKENS): the scratch stays small at 2 048 tokens.
import type { GpuRuntime } from '../gpu/runtime';
import { Rng } from '../util/rng';
import { Decoder, PREFILL_CHUNK_TOKENS } from './decode';
import { type SamplingOptions, sampleToken } from './sampling';
import type { GpuWeights } from './weights';

export interface GenerateOptions extends SamplingOptions {
  maxNewTokens: number;
  /** Stop after emitting any of these ids (the id is kept in the output). */
  stopIds: number[];
  /** Stop when the decoded text of the generated tokens ends with one of these. */
  stopStrings?: string[];
  /** Needed with stopStrings: ids → text. */
  decode?: (ids: number[]) => string;
  seed: number;
  /**
   * One seed per row (length B): each row samples from its own stream, so what a row draws does not
   * depend on which other rows share the batch (data-parallel ranks play different groups). Default:
   * one stream for the batch from `seed`, drawn row after row.
   */
  rowSeeds?: readonly number[];
  /** Prefill each distinct prompt once and copy its KV-cache row to the duplicates (default true). */
  sharePrefill?: boolean;
  /** Most prompt tokens per row fed in one prefill call (default PREFILL_CHUNK_TOKENS). */
  prefillChunk?: number;
}

export interface Generation {
  tokens: number[];
  /** Behaviour log-prob of each sampled token (see sampling.ts for the definition). */
  logprobs: number[];
  finishReason: 'stop' | 'length';
}

export async function generate(rt: GpuRuntime, w: GpuWeights, prompts: number[][], opts: GenerateOptions): Promise<Generation[]> {
  const B = prompts.length;
  if (B === 0) return [];
  const lens = prompts.map((p) => p.length);
  if (lens.some((l) => l === 0)) throw new Error('generate: every prompt needs at least one token');
  const maxLen = Math.max(...lens);
  const Tmax = maxLen + opts.maxNewTokens;
  if (Tmax > w.cfg.maxPositionEmbeddings) {
    throw new Error(`generate: prompt (${maxLen}) + maxNewTokens (${opts.maxNewTokens}) exceeds the model's ${w.cfg.maxPositionEmbeddings} positions`);
  }
  const dec = new Decoder(rt, w, B, Tmax);
  if (opts.rowSeeds && opts.rowSeeds.length !== B) throw new Error(`generate: ${opts.rowSeeds.length} row seeds for ${B} prompts`);
  const shared = new Rng(opts.seed);
  const rngs = opts.rowSeeds ? opts.rowSeeds.map((s) => new Rng(s)) : null;
  const out: Generation[] = prompts.map(() => ({ tokens: [], logprobs: [], finishReason: 'length' }));
  const done = new Array<boolean>(B).fill(false);
  try {
    const V = w.cfg.vocabSize;
    let logits = await prefill(rt, w, dec, prompts, maxLen, opts.sharePrefill ?? true, opts.prefillChunk ?? PREFILL_CHUNK_TOKENS);
    const pastLen = Int32Array.from(lens);
    for (let step = 0; step < opts.maxNewTokens; step++) {
      const next = new Int32Array(B);
      for (let b = 0; b < B; b++) {
        if (done[b]) continue;
        const { token, logprob } = sampleToken(logits.subarray(b * V, (b + 1) * V), opts, rngs ? rngs[b] : shared);
        const g = out[b];
        g.tokens.push(token);
        g.logprobs.push(logprob);
        next[b] = token;
        if (opts.stopIds.includes(token)) done[b] = true;
        else if (opts.stopStrings?.length && opts.decode) {
          const text = opts.decode(g.tokens);
          if (opts.stopStrings.some((s) => text.endsWith(s))) done[b] = true;
        }
        if (done[b]) g.finishReason = 'stop';
      }
      if (done.every(Boolean) || step === opts.maxNewTokens - 1) break;
      // Finished rows keep feeding a token (their cache row is simply not read again).
      logits = await dec.forward(next, pastLen, new Int32Array(B));
      for (let b = 0; b < B; b++) pastLen[b]++;
    }
  } finally {
    dec.destroy();
  }
  return out;
}

/**
 * Prefill: right-padded prompts; each row's logits (B, V) come from its own last prompt token.
 * With `share`, each distinct prompt runs once in a smaller decoder whose cache rows are then copied.
 */
async function prefill(rt: GpuRuntime, w: GpuWeights, dec: Decoder, prompts: number[][], maxLen: number, share: boolean, chunk: number): Promise<Float32Array> {
  const B = prompts.length;
  const key = prompts.map((p) => p.join(','));
  const distinctIndex = new Map<string, number>();
  key.forEach((k) => distinctIndex.has(k) || distinctIndex.set(k, distinctIndex.size));
  const distinct = [...distinctIndex.keys()].map((k) => prompts[key.indexOf(k)]);
  const run = (d: Decoder, rows: number[][]) => prefillInChunks(d, rows, maxLen, w.cfg.vocabSize, chunk);
  if (!share || distinct.length === B) return run(dec, prompts);
  const rowOf = Int32Array.from(key, (k) => distinctIndex.get(k)!);
  const pre = new Decoder(rt, w, distinct.length, dec.Tmax);
  try {
    const once = await run(pre, distinct); // (distinct, V)
    dec.copyCacheRows(pre, rowOf);
    const V = w.cfg.vocabSize;
    const logits = new Float32Array(B * V);
    rowOf.forEach((r, b) => logits.set(once.subarray(r * V, (r + 1) * V), b * V));
    return logits;
  } finally {
    pre.destroy();
  }
}

/**
 * Feeds right-padded prompts (rows, maxLen) in chunks of at most `chunk` positions, so
 * the prefill's scratch is (rows · chunk) tokens however long the context; returns each row's logits
 * (rows, V) at its last prompt token (taken from the chunk that holds it).
 */
async function prefillInChunks(d: Decoder, rows: number[][], maxLen: number, V: number, chunk: number): Promise<Float32Array> {
  const B = rows.length;
  const out = new Float32Array(B * V);
  if (!(Number.isInteger(chunk) && chunk > 0)) throw new Error(`generate: prefillChunk must be a positive integer, got ${chunk}`);
  for (let t0 = 0; t0 < maxLen; t0 += chunk) {
    const Tq = Math.min(chunk, maxLen - t0);
    const tokens = new Int32Array(B * Tq);
    rows.forEach((p, b) => tokens.set(p.slice(t0, t0 + Tq), b * Tq));
    const last = Int32Array.from(rows, (p) => Math.min(Math.max(p.length - 1 - t0, 0), Tq - 1));
    const logits = await d.forward(tokens, new Int32Array(B).fill(t0), last);
    rows.forEach((p, b) => {
      if (p.length - 1 >= t0 && p.length - 1 < t0 + Tq) out.set(logits.subarray(b * V, (b + 1) * V), b * V);
    });
  }
  return out;
}
