// Byte-level tokenizer for the small presets (nano, tiny, small): ids 0..255 are UTF-8 bytes,
// 256..264 the chat-format specials, 265..271 unused padding (vocab = BYTE_VOCAB_SIZE = 272).
// It reads and writes exactly the text the Qwen3 chat template renders, so both tokenizers share one format.

import { BYTE_VOCAB_SIZE } from '../model/config';
import { CHAT_SPECIAL_TOKENS, ENDOFTEXT, IM_END, IM_START, checkTokenId, type Tokenizer } from './types';

/** First id after the bytes: the specials follow in CHAT_SPECIAL_TOKENS order. */
export const BYTE_SPECIAL_BASE = 256;
/** Ids actually used (bytes + specials); ids from here up to BYTE_VOCAB_SIZE are padding. */
export const BYTE_USED_IDS = BYTE_SPECIAL_BASE + CHAT_SPECIAL_TOKENS.length;

const EMPTY = new Uint8Array(0);

export class ByteTokenizer implements Tokenizer {
  readonly kind = 'byte' as const;
  readonly vocabSize = BYTE_VOCAB_SIZE;
  readonly specialTokens: Readonly<Record<string, number>>;
  readonly eosId: number;
  readonly imStartId: number;
  readonly imEndId: number;
  readonly padId: number;

  private readonly encoder = new TextEncoder();
  private readonly specialBytes: Uint8Array[]; // UTF-8 of each special, indexed by id − 256

  constructor() {
    const specials: Record<string, number> = {};
    CHAT_SPECIAL_TOKENS.forEach((s, i) => (specials[s] = BYTE_SPECIAL_BASE + i));
    this.specialTokens = Object.freeze(specials);
    this.specialBytes = CHAT_SPECIAL_TOKENS.map((s) => this.encoder.encode(s));
    this.imStartId = specials[IM_START];
    this.imEndId = specials[IM_END];
    this.eosId = this.imEndId;
    this.padId = specials[ENDOFTEXT];
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    let plainStart = 0;
    // Every special starts with '<', so only those positions need a lookup.
    for (let pos = text.indexOf('<'); pos !== -1; pos = text.indexOf('<', pos)) {
      const special = CHAT_SPECIAL_TOKENS.find((s) => text.startsWith(s, pos));
      if (special === undefined) {
        pos++;
        continue;
      }
      this.pushBytes(ids, text.slice(plainStart, pos));
      ids.push(this.specialTokens[special]);
      pos += special.length;
      plainStart = pos;
    }
    this.pushBytes(ids, text.slice(plainStart));
    return ids;
  }

  decode(ids: readonly number[]): string {
    // A fresh non-fatal decoder per call: invalid UTF-8 becomes U+FFFD, never an exception.
    const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }); // ignoreBOM: U+FEFF is text, not a mark to drop
    let out = '';
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length > 0) out += decoder.decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (const id of ids) {
      checkTokenId(id, this.vocabSize, 'ByteTokenizer.decode');
      if (id < BYTE_SPECIAL_BASE) bytes.push(id);
      else if (id < BYTE_USED_IDS) {
        flush();
        out += CHAT_SPECIAL_TOKENS[id - BYTE_SPECIAL_BASE];
      } // padding ids stand for no bytes: they do not cut a character short (as in StreamDecoder)
    }
    flush();
    return out;
  }

  tokenBytes(id: number): Uint8Array {
    checkTokenId(id, this.vocabSize, 'ByteTokenizer.tokenBytes');
    if (id < BYTE_SPECIAL_BASE) return Uint8Array.of(id);
    return id < BYTE_USED_IDS ? this.specialBytes[id - BYTE_SPECIAL_BASE] : EMPTY;
  }

  /** A special's string → its id; a single ASCII character → its byte; anything else → undefined. */
  tokenToId(token: string): number | undefined {
    if (token in this.specialTokens) return this.specialTokens[token];
    if (token.length === 1 && token.charCodeAt(0) < 0x80) return token.charCodeAt(0);
    return undefined;
  }

  private pushBytes(ids: number[], text: string): void {
    if (text.length === 0) return;
    for (const b of this.encoder.encode(text)) ids.push(b);
  }
}
