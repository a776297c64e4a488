import { describe, expect, it } from 'vitest';
import { contentSegments, parseSampleText } from './sampleMessages';

describe('sample messages', () => {
  it('splits the demo sample into user and assistant, keeping multi-line content', () => {
    const text = 'user: weather in Quito?\nassistant: <tool_call>\n{"name": "weather", "arguments": {"city": "Quito"}}\n</tool_call><|im_end|>';
    expect(parseSampleText(text)).toEqual([
      { role: 'user', content: 'weather in Quito?' },
      { role: 'assistant', content: '<tool_call>\n{"name": "weather", "arguments": {"city": "Quito"}}\n</tool_call><|im_end|>' },
    ]);
  });

  it('highlights tool calls, says whether they parse, and badges special tokens', () => {
    const segs = contentSegments('Sure. <tool_call>\n{"name": "weather", "arguments": {"city": "Quito"}}\n</tool_call><|im_end|>');
    expect(segs).toEqual([
      { kind: 'text', text: 'Sure. ' },
      { kind: 'tool_call', text: '<tool_call>\n{"name": "weather", "arguments": {"city": "Quito"}}\n</tool_call>', call: { name: 'weather', arguments: { city: 'Quito' } } },
      { kind: 'special', text: '<|im_end|>' },
    ]);
  });

  it.each([
    ['<tool_call>{"name": "w", "arguments": {"c": 1}</tool_call>', 'not valid JSON'],
    ['<tool_call>{"arguments": {}}</tool_call>', 'no "name"'],
    ['<tool_call>{"name": "w", "arguments": [1]}</tool_call>', '"arguments" is not an object'],
    ['<tool_call>{"name": "w", "argu', 'unterminated: no </tool_call>'],
  ])('marks a malformed call %s', (content, problem) => {
    const call = contentSegments(content).find((s) => s.kind === 'tool_call');
    expect(call).toMatchObject({ kind: 'tool_call', problem });
  });

  it('leaves plain text alone', () => {
    expect(contentSegments('Here is the weather.')).toEqual([{ kind: 'text', text: 'Here is the weather.' }]);
    expect(contentSegments('')).toEqual([]);
  });
});

describe('long whitespace runs', () => {
  it('are taken out as markers (a sample of 64 newlines is not a tall blank bubble)', async () => {
    const { collapseBlankRuns } = await import('./sampleMessages');
    expect(collapseBlankRuns(`a${'\n'.repeat(64)}b`)).toEqual(['a', { newlines: 64, chars: 64 }, 'b']);
    expect(collapseBlankRuns('one\n\ntwo  three')).toEqual(['one\n\ntwo  three']);
    expect(collapseBlankRuns(' '.repeat(30))).toEqual([{ newlines: 0, chars: 30 }]);
  });
});
