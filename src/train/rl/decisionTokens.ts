// From an environment's component decision points (assistant turn, character offset in its text;
// envs/types.ts Reward.decidedAt) to token indices of the trajectory, for GRPO's component credit.
import type { ComponentDecision } from '../../envs/types';
import type { Tokenizer } from '../../tokenizer';

/** One assistant turn as the rollout sampled it. */
export interface SampledTurn {
  /** Index in the trajectory's ids of the turn's first sampled token. */
  start: number;
  /** The sampled tokens whose decoded text the environment judged (<|im_end|> excluded). */
  tokens: readonly number[];
  /** That text: tok.decode(tokens). */
  text: string;
}

/**
 * Index (into `tokens`) of the first token whose prefix decodes to text starting with the turn's
 * first `char` characters: the token that completes the text up to the decision point. A character
 * split across tokens (UTF-8 bytes, shown as U+FFFD until complete) counts only once whole. The
 * binary search relies on a longer prefix never losing a covered prefix (true of the byte and BPE
 * decoders); if it lands on a token that does not cover, the last token is returned — crediting the
 * component to too many tokens is the safe side.
 */
export function tokenAtChar(tok: Tokenizer, tokens: readonly number[], char: number, text = tok.decode(tokens)): number {
  if (tokens.length === 0) throw new Error('tokenAtChar: the turn has no tokens');
  const target = text.slice(0, char);
  const covers = (k: number) => tok.decode(tokens.slice(0, k + 1)).startsWith(target);
  let lo = 0;
  let hi = tokens.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (covers(mid)) hi = mid;
    else lo = mid + 1;
  }
  return covers(lo) ? lo : tokens.length - 1;
}

/**
 * Per component, the ids index of the token that fixed it; components whose turn was not sampled
 * (or whose offset lies past the turn's text) are left out, so they keep full credit.
 */
export function decisionTokens(tok: Tokenizer, decidedAt: Record<string, ComponentDecision>, turns: readonly SampledTurn[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [component, { turn, char }] of Object.entries(decidedAt)) {
    const sampled = turns[turn];
    if (sampled === undefined || sampled.tokens.length === 0 || char < 1 || sampled.text.length < char) continue;
    out[component] = sampled.start + tokenAtChar(tok, sampled.tokens, char, sampled.text);
  }
  return out;
}
