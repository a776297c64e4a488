import { describe, expect, it } from 'vitest';
import { formatToolCalls } from '../../tokenizer/toolCalls';
import { functionNamesDecidedAt } from './nameDecision';

/** Offset just after `"<name>"` (its closing quote) at its n-th occurrence. */
function after(text: string, quotedName: string, occurrence = 0): number {
  let at = -1;
  for (let i = 0; i <= occurrence; i++) at = text.indexOf(quotedName, at + 1);
  return at + quotedName.length;
}

describe('functionNamesDecidedAt', () => {
  it('one canonical call: just after the closing quote of its name', () => {
    const text = formatToolCalls([{ name: 'weather', arguments: { city: 'Paris' } }]);
    expect(text.slice(0, functionNamesDecidedAt(text)!)).toBe('<tool_call>\n{"name": "weather"');
  });

  it('several calls (and prose before them): after the last call\'s name', () => {
    const text = `Let me check.\n${formatToolCalls([{ name: 'time', arguments: { city: 'Oslo' } }, { name: 'time', arguments: { city: 'Rome' } }])}`;
    expect(functionNamesDecidedAt(text)).toBe(after(text, '"time"', 1));
  });

  it('an escaped quote does not end the name', () => {
    const text = '<tool_call>{"name": "a\\"b", "arguments": {}}</tool_call>';
    expect(functionNamesDecidedAt(text)).toBe(after(text, '"a\\"b"'));
  });

  it('null when a call cannot be placed: "name" not the first key, an unclosed name, no call', () => {
    expect(functionNamesDecidedAt('<tool_call>{"arguments": {"name": "x"}, "name": "f"}</tool_call>')).toBeNull();
    expect(functionNamesDecidedAt('<tool_call>{"name": "weath')).toBeNull();
    expect(functionNamesDecidedAt(`${formatToolCalls([{ name: 'f', arguments: {} }])}<tool_call>{"arguments": {}}</tool_call>`)).toBeNull();
    expect(functionNamesDecidedAt('It is sunny.')).toBeNull();
  });
});
