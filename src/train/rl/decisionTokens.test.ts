import { describe, expect, it } from 'vitest';
import { ByteTokenizer } from '../../tokenizer';
import { decisionTokens, tokenAtChar } from './decisionTokens';

const tok = new ByteTokenizer();

describe('decision points → tokens', () => {
  it('maps a character offset to the token that completes the text up to it (special and split characters included)', () => {
    const text = '<tool_call>\n{"name": "weather"';
    const ids = tok.encode(text); // <tool_call> is one special token of 11 characters, the rest one byte each
    expect(ids.length).toBe(text.length - 10);
    expect(tokenAtChar(tok, ids, text.length)).toBe(ids.length - 1);
    expect(tokenAtChar(tok, ids, 1)).toBe(0); // inside the special token: that token
    expect(tokenAtChar(tok, ids, 11)).toBe(0);
    expect(tokenAtChar(tok, ids, 12)).toBe(1);
    const accented = tok.encode('aéb'); // é is two byte tokens: the decision after it needs both
    expect(accented.length).toBe(4);
    expect(tokenAtChar(tok, accented, 2)).toBe(2);
    expect(tokenAtChar(tok, accented, 1)).toBe(0);
  });

  it('per component: the ids index in the named turn; unplaceable points are left out (full credit)', () => {
    const turns = ['abc', '<tool_call>xy'].map((text, i) => ({ start: 10 * (i + 1), tokens: tok.encode(text), text }));
    expect(decisionTokens(tok, { a: { turn: 0, char: 2 }, b: { turn: 1, char: 12 } }, turns)).toEqual({ a: 11, b: 21 });
    expect(decisionTokens(tok, { past: { turn: 0, char: 4 }, none: { turn: 2, char: 1 }, zero: { turn: 0, char: 0 } }, turns)).toEqual({});
  });
});
