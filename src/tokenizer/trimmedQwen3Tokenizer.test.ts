import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRESETS, TRIMMED_QWEN3_VOCAB_SIZE } from '../model/config';
import { Rng } from '../util/rng';
import keptVocab from './vocab/qwen3-trimmed.json';
import { loadQwen3Files } from './qwen3Source';
import { qwen3TokenizerFromDisk } from './qwen3TokenizerNode';
import { StreamDecoder } from './streamDecoder';
import { tokenizerForModel } from './tokenizerForModel';
import { paddedVocabSize, requiredQwen3Ids, TrimmedQwen3Tokenizer } from './trimmedQwen3Tokenizer';
import { parseTrimmedVocab } from './trimmedVocab';
import { CHAT_SPECIAL_TOKENS } from './types';

const tok = (await tokenizerForModel(PRESETS['nano-q'])) as TrimmedQwen3Tokenizer;
const qwen3 = qwen3TokenizerFromDisk();

/** Strings that stress a byte-level BPE: specials and near-misses, other Qwen3 specials, scripts, emoji, controls, combining marks, whitespace runs. */
const PIECES = [
  ...CHAT_SPECIAL_TOKENS, '<|fim_prefix|>', '<|vision_pad|>', '<|im_end|', '<tool_cal', ' ', '  ', '\n', '\n\n\n', '\t', '\r\n',
  'hello', ' world', '\ufeffBOM', 'Zyzzyvaquux', 'get_order_details', '{"name": "x"}', '#W1234567', '42.50', 'naïve', 'e\u0301', 'ﬁ', 'Å',
  '日本語', '한국어', 'Привет', 'مرحبا', '😀', '👩‍👩‍👧', '🇫🇷', '\u0000', '\u007f', '\ufeff',
];
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 12 }).map((parts) => parts.join('')),
);

describe('TrimmedQwen3Tokenizer', () => {
  it('is the committed kept-id list: dense ids in Qwen3-id order, padded to a multiple of 8, the preset vocab size', () => {
    const file = parseTrimmedVocab(keptVocab);
    expect(tok.usedIds).toBe(file.qwen3Ids.length);
    expect(Array.from(tok.qwen3Ids)).toEqual(file.qwen3Ids);
    expect(tok.vocabSize).toBe(paddedVocabSize(tok.usedIds));
    expect(tok.vocabSize % 8).toBe(0);
    expect(TRIMMED_QWEN3_VOCAB_SIZE).toBe(tok.vocabSize);
    expect(PRESETS['tiny-q'].vocabSize).toBe(tok.vocabSize);
    expect(file.source.split).toBe('train');
  });

  it('keeps the 256 byte tokens and the chat specials as single ids mapping to Qwen3 ids', () => {
    for (const s of CHAT_SPECIAL_TOKENS) {
      const id = tok.specialTokens[s];
      expect(tok.encode(s)).toEqual([id]);
      expect(tok.qwen3Ids[id]).toBe(qwen3.specialTokens[s]);
    }
    expect([tok.padId, tok.imStartId, tok.imEndId, tok.eosId].map((id) => tok.qwen3Ids[id])).toEqual([qwen3.padId, qwen3.imStartId, qwen3.imEndId, qwen3.eosId]);
    expect(Object.keys(tok.specialTokens).sort()).toEqual([...CHAT_SPECIAL_TOKENS].sort());
    for (let b = 0; b < 256; b++) expect(tok.encode(String.fromCharCode(b)).length).toBeLessThanOrEqual(2); // ≤ 2 UTF-8 bytes, each a kept token
  });

  it('gives exactly Qwen3\'s ids, renumbered, on corpus-like text', () => {
    const s = '<|im_start|>user\nWhat is the status of order #W3067740? My email is zoe.johnson64@example.com.<|im_end|>\n';
    expect(tok.toQwen3Ids(tok.encode(s))).toEqual(qwen3.encode(s));
    expect(tok.toQwen3Ids(tok.encode('Hello order'))).toEqual([9707, 1973]);
    expect(tok.tokenToId('Ġorder')).toBe(tok.trimmedIdOf(1973));
    expect(tok.tokenToId('hello')).toBeUndefined(); // 14990: not in the corpus
    expect(tok.toQwen3Ids(tok.encode('hello'))).not.toEqual([14990]);
  });

  it('splits a trimmed-away token by its BPE merges into kept pieces, never an unknown id or other text', () => {
    const s = 'Привет, 世界! Zyzzyvaquux hydroxychloroquine';
    const q = qwen3.encode(s);
    const dropped = q.filter((id) => tok.trimmedIdOf(id) === undefined);
    expect(dropped.length).toBeGreaterThan(0); // the sample really exercises the fallback
    const ids = tok.encode(s);
    expect(ids.length).toBeGreaterThan(q.length);
    expect(ids.every((id) => id < tok.usedIds)).toBe(true);
    expect(tok.decode(ids)).toBe(s);
    // each dropped Qwen3 token became pieces with the same bytes
    for (const d of dropped) expect(tok.decode(tok.fromQwen3Ids([d]))).toBe(qwen3.decode([d]));
  });

  it('writes Qwen3 specials outside the chat format as their bytes', () => {
    const ids = tok.encode('<|fim_prefix|>');
    expect(ids.length).toBeGreaterThan(1);
    expect(tok.decode(ids)).toBe('<|fim_prefix|>');
    expect(qwen3.decode(tok.toQwen3Ids(ids))).toBe('<|fim_prefix|>');
  });

  it('does not NFC-normalise: decomposed characters round-trip byte for byte (Qwen3Tokenizer would compose them)', () => {
    expect(tok.decode(tok.encode('e\u0301'))).toBe('e\u0301');
    expect(qwen3.decode(qwen3.encode('e\u0301'))).toBe('\u00e9');
  });

  it('property: decode(encode(s)) === s for well-formed strings and Qwen3 decodes toQwen3Ids(encode(s)) to s (fast-check, 1500 strings)', () => {
    fc.assert(
      fc.property(text, (s) => {
        const ids = tok.encode(s);
        expect(ids.every((id) => Number.isInteger(id) && id >= 0 && id < tok.usedIds)).toBe(true);
        expect(tok.decode(ids)).toBe(s);
        expect(qwen3.decode(tok.toQwen3Ids(ids))).toBe(s);
      }),
      { numRuns: 1500, seed: 12 },
    );
  });

  it('writes a lone surrogate (not Unicode, no UTF-8 exists) as U+FFFD, like the byte tokenizer', () => {
    expect(tok.decode(tok.encode('a\ud800b'))).toBe('a\uFFFDb');
    expect(tok.decode(tok.encode('x\ud83d'))).toBe('x\uFFFD');
  });

  it('streams: StreamDecoder over trimmed ids gives the text, characters cut across tokens included', () => {
    const s = 'emoji 😀 family 👩‍👩‍👧 and Привет 世界';
    const stream = new StreamDecoder(tok);
    expect(tok.encode(s).map((id) => stream.push(id)).join('') + stream.flush()).toBe(s);
  });

  it('decodes padding ids to "", drops them when mapping to Qwen3, and never throws on random ids (2000 cases)', () => {
    expect(tok.vocabSize).toBeGreaterThanOrEqual(tok.usedIds);
    const pad = tok.vocabSize - 1 >= tok.usedIds ? tok.vocabSize - 1 : undefined;
    if (pad !== undefined) {
      expect(tok.decode([pad])).toBe('');
      expect(tok.toQwen3Ids([tok.imStartId, pad])).toEqual([qwen3.imStartId]);
    }
    const rng = new Rng(3);
    for (let n = 0; n < 2000; n++) {
      const ids = Array.from({ length: rng.int(0, 24) }, () => rng.int(0, tok.vocabSize - 1));
      const text = tok.decode(ids);
      // Qwen3's decoder replaces invalid UTF-8 its own way; valid text must agree exactly.
      if (!text.includes('\uFFFD')) expect(qwen3.decode(tok.toQwen3Ids(ids))).toBe(text);
    }
    expect(() => tok.decode([tok.vocabSize])).toThrow(RangeError);
  });

  it('refuses a kept-id list without the byte tokens or specials, unsorted lists and a model of another vocabulary', async () => {
    const { json, config } = await loadQwen3Files();
    const required = requiredQwen3Ids(json);
    expect(required.length).toBe(256 + CHAT_SPECIAL_TOKENS.length);
    expect(() => new TrimmedQwen3Tokenizer(json, config, required.slice(1))).toThrow(/lacks 1 required ids/);
    expect(() => new TrimmedQwen3Tokenizer(json, config, [...required, 999_999])).toThrow(/not a Qwen3 token id/);
    const file = parseTrimmedVocab(keptVocab);
    expect(() => parseTrimmedVocab({ ...file, qwen3Ids: [5, 3] })).toThrow(/strictly ascending/);
    expect(() => parseTrimmedVocab({ ...file, format: 'x' })).toThrow(/format/);
    await expect(tokenizerForModel({ ...PRESETS['nano-q'], vocabSize: 272 })).rejects.toThrow(/another kept-id list/);
    await expect(tokenizerForModel({ tokenizer: 'bpe' as never, vocabSize: 1 })).rejects.toThrow(/unknown tokenizer/);
  });
});
