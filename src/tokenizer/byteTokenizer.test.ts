import { describe, expect, it } from 'vitest';
import { BYTE_VOCAB_SIZE } from '../model/config';
import { Rng } from '../util/rng';
import { BYTE_USED_IDS, ByteTokenizer } from './byteTokenizer';
import { StreamDecoder } from './streamDecoder';
import { CHAT_SPECIAL_TOKENS } from './types';

const tok = new ByteTokenizer();

const SAMPLES = [
  '',
  'hello world',
  'emoji 😀 family 👩‍👩‍👧 flag 🇫🇷',
  'CJK 日本語の文章 한국어 中文',
  'combining e\u0301 vs é, a\u0308\u0323, Zalgo z\u0351\u0357\u035b',
  'controls \u0000\t\r\n\u007f end',
  '\ufeffa leading U+FEFF is text, also after a special: <|im_start|>\ufeff',
  '<|im_start|>user\nhi 😀<|im_end|>\n<tool_call>{"a": 1}</tool_call>',
  'near-specials: <|im_end| <tool_cal <think <<think>> </think',
];

describe('ByteTokenizer', () => {
  it('numbers the specials from 256 and pads the vocabulary to BYTE_VOCAB_SIZE', () => {
    expect(tok.vocabSize).toBe(BYTE_VOCAB_SIZE);
    expect(BYTE_USED_IDS).toBe(265);
    expect(tok.specialTokens).toEqual({
      '<|endoftext|>': 256, '<|im_start|>': 257, '<|im_end|>': 258, '<tool_call>': 259, '</tool_call>': 260,
      '<tool_response>': 261, '</tool_response>': 262, '<think>': 263, '</think>': 264,
    });
    expect([tok.padId, tok.imStartId, tok.imEndId, tok.eosId]).toEqual([256, 257, 258, 258]);
  });

  it('encodes text as its UTF-8 bytes', () => {
    expect(tok.encode('Aé😀')).toEqual([0x41, 0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80]);
    expect(tok.encode('日')).toEqual([0xe6, 0x97, 0xa5]);
  });

  it('maps each special-token string to one id, and near-misses to bytes', () => {
    expect(tok.encode('<|im_start|>assistant\n<think>')).toEqual([257, ...Buffer.from('assistant\n'), 263]);
    expect(tok.encode('<<tool_call>>')).toEqual([0x3c, 259, 0x3e]);
    expect(tok.encode('<|im_end|')).toEqual([...Buffer.from('<|im_end|')]);
    for (const s of CHAT_SPECIAL_TOKENS) expect(tok.encode(s)).toEqual([tok.specialTokens[s]]);
  });

  it.each(SAMPLES)('round-trips %j exactly', (text) => {
    expect(tok.decode(tok.encode(text))).toBe(text);
  });

  it('decodes invalid UTF-8 to U+FFFD without throwing', () => {
    expect(tok.decode([0xff])).toBe('\uFFFD');
    expect(tok.decode([0x61, 0xe6, 0x97])).toBe('a\uFFFD'); // truncated 3-byte character
    expect(tok.decode([0xe6, 258, 0x62])).toBe('\uFFFD<|im_end|>b'); // a special cuts a character short
    expect(tok.decode([0xed, 0xa0, 0x80])).toBe('\uFFFD\uFFFD\uFFFD'); // encoded surrogate
  });

  it('never throws on random id sequences (fuzz, 2000 cases)', () => {
    const rng = new Rng(1);
    for (let n = 0; n < 2000; n++) {
      const ids = Array.from({ length: rng.int(0, 24) }, () => rng.int(0, BYTE_VOCAB_SIZE - 1));
      expect(() => tok.decode(ids)).not.toThrow();
    }
  });

  it('decodes padding ids to nothing and rejects ids outside the vocabulary', () => {
    expect(tok.decode([0x61, 265, 271, 0x62])).toBe('ab');
    expect(() => tok.decode([272])).toThrow(/outside the vocabulary \[0, 272\)/);
    expect(() => tok.decode([-1])).toThrow(RangeError);
    expect(() => tok.decode([1.5])).toThrow(RangeError);
  });

  it('tokenToId knows the specials and ASCII characters', () => {
    expect(tok.tokenToId('<tool_call>')).toBe(259);
    expect(tok.tokenToId('a')).toBe(97);
    expect(tok.tokenToId('é')).toBeUndefined();
    expect(tok.tokenToId('ab')).toBeUndefined();
  });
});

describe('StreamDecoder (byte tokenizer)', () => {
  it('emits a multi-byte character only once all its bytes arrived', () => {
    const stream = new StreamDecoder(tok);
    const [a, b, c, d] = tok.encode('😀');
    expect([stream.push(a), stream.push(b), stream.push(c)]).toEqual(['', '', '']);
    expect(stream.push(d)).toBe('😀');
    expect(stream.push(tok.imEndId)).toBe('<|im_end|>');
  });

  it('flush turns an unfinished character into U+FFFD and resets', () => {
    const stream = new StreamDecoder(tok);
    expect(stream.push([0x61, 0xe6, 0x97])).toBe('a');
    expect(stream.flush()).toBe('\uFFFD');
    expect(stream.push(0x62)).toBe('b');
  });

  it('streamed text equals decode() for random id sequences (fuzz, 1000 cases)', () => {
    const rng = new Rng(2);
    const pool = tok.encode(SAMPLES.join(''));
    for (let n = 0; n < 1000; n++) {
      // Half the cases draw from real text (valid UTF-8 runs), half are arbitrary ids.
      const ids = Array.from({ length: rng.int(0, 30) }, () => (n % 2 ? rng.pick(pool) : rng.int(0, BYTE_VOCAB_SIZE - 1)));
      const stream = new StreamDecoder(tok);
      const streamed = ids.map((id) => stream.push(id)).join('') + stream.flush();
      expect(streamed).toBe(tok.decode(ids));
    }
  });
});
