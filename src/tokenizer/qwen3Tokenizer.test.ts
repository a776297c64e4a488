import { describe, expect, it } from 'vitest';
import { PRESETS } from '../model/config';
import { Rng } from '../util/rng';
import { QWEN3_VOCAB_SIZE } from './qwen3Tokenizer';
import { qwen3TokenizerFromDisk } from './qwen3TokenizerNode';
import { StreamDecoder } from './streamDecoder';

const tok = qwen3TokenizerFromDisk();

describe('Qwen3Tokenizer', () => {
  it('has the ids of tokenizer.json (added_tokens and model.vocab)', () => {
    expect(tok.specialTokens['<|endoftext|>']).toBe(151643);
    expect(tok.imStartId).toBe(151644);
    expect(tok.imEndId).toBe(151645);
    expect(tok.eosId).toBe(151645); // tokenizer_config eos_token is <|im_end|>
    expect(tok.padId).toBe(151643); // tokenizer_config pad_token is <|endoftext|>
    const ids = ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<think>', '</think>'].map((t) => tok.tokenToId(t));
    expect(ids).toEqual([151657, 151658, 151665, 151666, 151667, 151668]);
    expect(tok.encode('hello world')).toEqual([14990, 1879]);
    expect(tok.encode('\n')).toEqual([198]);
    expect(tok.encode('\n\n')).toEqual([271]);
    expect(tok.encode('😀')).toEqual([141334]);
  });

  it('uses the vocabulary size of the qwen3-0.6b preset, above every real id', () => {
    expect(tok.vocabSize).toBe(QWEN3_VOCAB_SIZE);
    expect(PRESETS['qwen3-0.6b'].vocabSize).toBe(QWEN3_VOCAB_SIZE);
    expect(Math.max(...Object.values(tok.specialTokens))).toBeLessThan(QWEN3_VOCAB_SIZE);
  });

  it('encodes chat markup with one id per special token', () => {
    const ids = tok.encode('<|im_start|>assistant\n<tool_call>\n{"a": 1}\n</tool_call><|im_end|>');
    expect(ids[0]).toBe(151644);
    expect(ids.filter((id) => id >= 151643)).toEqual([151644, 151657, 151658, 151645]);
  });

  it.each([
    'hello world',
    'emoji 😀 family 👩‍👩‍👧 flag 🇫🇷',
    'CJK 日本語の文章 한국어 中文',
    '  spaces\tand\n\nnewlines \r\n',
    '<|im_start|>user\nhi<|im_end|>\n<think>\n\n</think>\n\n',
  ])('round-trips %j exactly', (text) => {
    expect(tok.decode(tok.encode(text))).toBe(text);
  });

  it('normalises combining marks to NFC (Qwen3 has an NFC normaliser)', () => {
    const text = 'cafe\u0301 a\u0308';
    expect(tok.decode(tok.encode(text))).toBe(text.normalize('NFC'));
    expect(tok.encode(text)).toEqual(tok.encode(text.normalize('NFC')));
  });

  it('decodes padding ids to nothing and rejects ids outside the vocabulary', () => {
    expect(tok.decode([14990, 151700, 1879])).toBe('hello world');
    expect(() => tok.decode([QWEN3_VOCAB_SIZE])).toThrow(/outside the vocabulary/);
  });

  it('tokenBytes and StreamDecoder agree with decode() on random ids (fuzz, 500 cases)', () => {
    const rng = new Rng(3);
    const pool = tok.encode('日本語 😀 👩‍👩‍👧 ok <tool_call>');
    for (let n = 0; n < 500; n++) {
      // Half the cases split real multi-byte characters across tokens, half are arbitrary ids.
      const ids = Array.from({ length: rng.int(0, 12) }, () => (n % 2 ? rng.pick(pool) : rng.int(0, QWEN3_VOCAB_SIZE - 1)));
      const stream = new StreamDecoder(tok);
      const streamed = ids.map((id) => stream.push(id)).join('') + stream.flush();
      expect(streamed).toBe(tok.decode(ids));
    }
  });

  it('streams an emoji split over byte tokens only when complete', () => {
    // 🫠 (U+1FAE0) is not one Qwen3 token: its bytes span several ids.
    const ids = tok.encode('🫠');
    expect(ids.length).toBeGreaterThan(1);
    const stream = new StreamDecoder(tok);
    const pieces = ids.map((id) => stream.push(id));
    expect(pieces.slice(0, -1).join('')).toBe('');
    expect(pieces[pieces.length - 1]).toBe('🫠');
  });
});
