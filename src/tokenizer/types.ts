// The one tokenizer interface every preset uses (byte-level for the small presets, Qwen3's BPE for
// qwen3-0.6b), the special-token strings of the Qwen3 chat format, and the token sequence record a
// conversation is encoded into.

import type { TokenizerKind } from '../model/config';

/** Special-token strings of the Qwen3 chat format (both tokenizers map each to one id). */
export const ENDOFTEXT = '<|endoftext|>';
export const IM_START = '<|im_start|>';
export const IM_END = '<|im_end|>';
export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';
export const TOOL_RESPONSE_OPEN = '<tool_response>';
export const TOOL_RESPONSE_CLOSE = '</tool_response>';
export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';

/** The chat-format specials, in the order the byte tokenizer numbers them (256, 257, …). */
export const CHAT_SPECIAL_TOKENS = [
  ENDOFTEXT, IM_START, IM_END, TOOL_CALL_OPEN, TOOL_CALL_CLOSE,
  TOOL_RESPONSE_OPEN, TOOL_RESPONSE_CLOSE, THINK_OPEN, THINK_CLOSE,
] as const;

export interface Tokenizer {
  /** Which tokenizer this is (matches ModelConfig.tokenizer). */
  readonly kind: TokenizerKind;
  /** V: rows of the model's embedding matrix; every id encode() returns is < V (ids past the used ones are padding). */
  readonly vocabSize: number;
  /** Text → ids. Special-token strings in the text (e.g. "<|im_end|>") become their single ids. */
  encode(text: string): number[];
  /** Ids → text. Specials decode to their strings; invalid UTF-8 becomes U+FFFD; padding ids decode to "". */
  decode(ids: readonly number[]): string;
  /** The raw bytes one id stands for (specials: their UTF-8 string; padding: empty). Used by StreamDecoder. */
  tokenBytes(id: number): Uint8Array;
  /** Every special / added token string → its id. */
  readonly specialTokens: Readonly<Record<string, number>>;
  /** End of an assistant turn: generation stops here (`<|im_end|>`, as in Qwen3's tokenizer_config). */
  readonly eosId: number;
  readonly imStartId: number;
  readonly imEndId: number;
  /** Padding id (`<|endoftext|>`, as in Qwen3's tokenizer_config). */
  readonly padId: number;
  /** A token string (a special, or a vocabulary entry) → its id; undefined when there is none. */
  tokenToId(token: string): number | undefined;
}

/** A tokenised conversation: what SFT trains on and what a rollout extends turn by turn. */
export interface TokenSequence {
  /** (T) token ids. */
  ids: number[];
  /** (T) 1 where the assistant produced the token (loss is taken there), 0 elsewhere. */
  assistantMask: number[];
}

/** Throws a RangeError naming the id when it cannot index a vocabulary of `vocabSize` rows. */
export function checkTokenId(id: number, vocabSize: number, who: string): void {
  if (!Number.isInteger(id) || id < 0 || id >= vocabSize) {
    throw new RangeError(`${who}: token id ${id} is outside the vocabulary [0, ${vocabSize}); ids must come from this tokenizer or a model with the same vocabSize`);
  }
}
