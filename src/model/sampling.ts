// Token sampling from one row of logits: greedy, temperature, top-k, top-p (nucleus), seeded.
// The returned logprob is log softmax(logits / temperature)[token] — the behaviour policy the RL
// trainer's ratio compares against (the trainer scores with the same temperature). Top-k/top-p
// truncation changes what can be drawn, not the recorded logprob (as in common RL practice).
import type { Rng } from '../util/rng';

export interface SamplingOptions {
  /** 0 = greedy (argmax). */
  temperature: number;
  /** Keep the k most likely tokens (0 = off). */
  topK: number;
  /** Keep the smallest set of tokens whose probability sums to ≥ topP (1 = off). */
  topP: number;
}

export const GREEDY: SamplingOptions = { temperature: 0, topK: 0, topP: 1 };

/** log softmax(logits / t) for one row (t = 1 when greedy). */
export function logSoftmax(logits: Float32Array, temperature: number): Float64Array {
  const t = temperature > 0 ? temperature : 1;
  let max = -Infinity;
  for (const x of logits) max = Math.max(max, x / t);
  let sum = 0;
  for (const x of logits) sum += Math.exp(x / t - max);
  const lse = max + Math.log(sum);
  return Float64Array.from(logits, (x) => x / t - lse);
}

export function sampleToken(logits: Float32Array, opts: SamplingOptions, rng: Rng): { token: number; logprob: number } {
  const logp = logSoftmax(logits, opts.temperature);
  if (!(opts.temperature > 0)) {
    let best = 0;
    for (let i = 1; i < logp.length; i++) if (logp[i] > logp[best]) best = i;
    return { token: best, logprob: logp[best] };
  }
  // Candidates by descending probability, truncated by top-k then top-p.
  let order = Array.from(logp.keys()).sort((a, b) => logp[b] - logp[a]);
  if (opts.topK > 0) order = order.slice(0, opts.topK);
  if (opts.topP < 1) {
    let mass = 0;
    let keep = 0;
    while (keep < order.length && mass < opts.topP) mass += Math.exp(logp[order[keep++]]);
    order = order.slice(0, Math.max(1, keep));
  }
  let total = 0;
  for (const i of order) total += Math.exp(logp[i]);
  let u = rng.next() * total;
  for (const i of order) {
    u -= Math.exp(logp[i]);
    if (u <= 0) return { token: i, logprob: logp[i] };
  }
  const last = order[order.length - 1];
  return { token: last, logprob: logp[last] };
}
