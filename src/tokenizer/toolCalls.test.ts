import { describe, expect, it } from 'vitest';
import { Rng } from '../util/rng';
import { callTagOverflow, formatToolCalls, MAX_ERRORS, parseToolCalls, type ParsedAssistantMessage, type ToolCall } from './toolCalls';

/** Invariants every parse result must satisfy, whatever the input. */
function checkWellFormed(text: string, r: ParsedAssistantMessage): void {
  expect(typeof r.content).toBe('string');
  expect(r.content).toBe(r.content.trim());
  expect(r.attemptedCall).toBe(text.includes('<tool_call>') || text.includes('</tool_call>'));
  for (const c of r.calls) {
    expect(typeof c.name === 'string' && c.name.length > 0).toBe(true);
    expect(c.arguments !== null && typeof c.arguments === 'object' && !Array.isArray(c.arguments)).toBe(true);
  }
  // Every <tool_call> block is either a call or an error with its own index.
  const blockErrors = r.errors.filter((e) => e.index >= 0).map((e) => e.index);
  expect(new Set(blockErrors).size).toBe(blockErrors.length);
  const blocks = r.calls.length + blockErrors.length;
  expect(blockErrors.every((i) => i < blocks)).toBe(true);
  expect(blocks).toBe(text.split('<tool_call>').length - 1);
  for (const e of r.errors) {
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.message.length).toBeLessThan(500); // bad bodies are quoted back only in part
  }
}

describe('parseToolCalls', () => {
  it('returns plain text as content with no calls', () => {
    expect(parseToolCalls('  The answer is 42.\n')).toEqual({ content: 'The answer is 42.', calls: [], errors: [], attemptedCall: false });
  });

  it('parses prose plus calls in Qwen3 format', () => {
    const text = 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "now", "arguments": {}}\n</tool_call>';
    const r = parseToolCalls(text);
    expect(r.calls).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'now', arguments: {} }]);
    expect(r.content).toBe('Let me check.');
    expect(r.errors).toEqual([]);
    expect(r.attemptedCall).toBe(true);
  });

  it('accepts arguments as a JSON string, "parameters" as an alias, and missing arguments as {}', () => {
    const r = parseToolCalls('<tool_call>{"name": "a", "arguments": "{\\"x\\": 1}"}</tool_call><tool_call>{"name": "b", "parameters": {"y": 2}}</tool_call><tool_call>{"name": "c"}</tool_call>');
    expect(r.calls).toEqual([{ name: 'a', arguments: { x: 1 } }, { name: 'b', arguments: { y: 2 } }, { name: 'c', arguments: {} }]);
  });

  it.each([
    ['<tool_call>{"name": "f"', 'unclosed-tag', 0],
    ['text </tool_call>', 'stray-close-tag', -1],
    ['<tool_call>{name: f}</tool_call>', 'invalid-json', 0],
    ['<tool_call>[1, 2]</tool_call>', 'not-an-object', 0],
    ['<tool_call>{"arguments": {}}</tool_call>', 'missing-name', 0],
    ['<tool_call>{"name": "", "arguments": {}}</tool_call>', 'missing-name', 0],
    ['<tool_call>{"name": "f", "arguments": [1]}</tool_call>', 'bad-arguments', 0],
    ['<tool_call>{"name": "f", "arguments": "not json"}</tool_call>', 'bad-arguments', 0],
    ['<tool_call>{"name": "f", "arguments": "[1]"}</tool_call>', 'bad-arguments', 0],
  ] as const)('reports %j as %s', (text, kind, index) => {
    const r = parseToolCalls(text);
    expect(r.calls).toEqual([]);
    expect(r.errors.map((e) => [e.kind, e.index])).toEqual([[kind, index]]);
    checkWellFormed(text, r);
  });

  it('keeps parsing after a bad block and numbers the blocks', () => {
    const r = parseToolCalls('<tool_call>oops</tool_call> mid <tool_call>{"name": "g", "arguments": {}}</tool_call><tool_call>{"name": "h"');
    expect(r.calls).toEqual([{ name: 'g', arguments: {} }]);
    expect(r.errors.map((e) => [e.kind, e.index])).toEqual([['invalid-json', 0], ['unclosed-tag', 2]]);
    expect(r.errors[0].message).toMatch(/^tool call 1: body is not valid JSON/);
    expect(r.content).toBe('mid');
  });

  it('an open tag before the close of an earlier one marks the earlier one unclosed', () => {
    const r = parseToolCalls('<tool_call>{"name": "a"<tool_call>{"name": "b"}</tool_call>');
    expect(r.errors.map((e) => e.kind)).toEqual(['unclosed-tag']);
    expect(r.calls).toEqual([{ name: 'b', arguments: {} }]);
  });
});

// Random JSON-safe values (strings with unicode, quotes, escapes and tag-like text).
function randomString(rng: Rng): string {
  const pieces = ['a', 'Z', ' ', '"', '\\', '\n', '{', '}', '日本', '😀', '<tool', '_call>', '</', 'é', '\u0000', ':', ','];
  return Array.from({ length: rng.int(0, 8) }, () => rng.pick(pieces)).join('');
}

function randomValue(rng: Rng, depth: number): unknown {
  switch (rng.int(0, depth > 2 ? 3 : 5)) {
    case 0: return randomString(rng);
    case 1: return rng.int(-1000, 1000);
    case 2: return rng.pick([true, false, null, 0.5, -2.25e-3]);
    case 3: return randomString(rng).length;
    case 4: return Array.from({ length: rng.int(0, 3) }, () => randomValue(rng, depth + 1));
    default: return randomObject(rng, depth + 1);
  }
}

function randomObject(rng: Rng, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let k = rng.int(0, 3); k > 0; k--) out[randomString(rng) || 'k'] = randomValue(rng, depth);
  return out;
}

function randomCalls(rng: Rng): ToolCall[] {
  return Array.from({ length: rng.int(1, 3) }, () => ({ name: rng.pick(['f', 'get_weather', 'search.web', 'ツール']), arguments: randomObject(rng, 0) }));
}


describe('formatToolCalls ↔ parseToolCalls', () => {
  it('round-trips random calls with prose around them (fuzz, 1000 cases)', () => {
    const rng = new Rng(11);
    let tested = 0;
    for (let n = 0; n < 1000; n++) {
      const calls = randomCalls(rng);
      const prose = rng.pick(['', 'Let me check.', '先に確認します。']);
      const r = parseToolCalls(`${prose}\n${formatToolCalls(calls)}`);
      expect(r.errors).toEqual([]);
      expect(r.calls).toEqual(calls);
      expect(r.content).toBe(prose);
      tested++;
    }
    expect(tested).toBe(1000);
  });

  // formatToolCalls writes "<" and ">" as \u003c / \u003e inside the JSON, so tags in arguments survive.
  it('round-trips an argument string that contains "</tool_call>"', () => {
    const calls = [{ name: 'echo', arguments: { text: 'a </tool_call> b' } }];
    expect(parseToolCalls(formatToolCalls(calls)).calls).toEqual(calls);
  });

  it('round-trips an argument string that contains "<tool_call>"', () => {
    const calls = [{ name: 'echo', arguments: { text: 'a <tool_call> b' } }];
    expect(parseToolCalls(formatToolCalls(calls)).calls).toEqual(calls);
  });
});

describe('parseToolCalls never throws (fuzz)', () => {
  const ALPHABET = ['<tool_call>', '</tool_call>', '<tool_call', 'tool_call>', '<', '>', '/', '{', '}', '[', ']', '"', ':', ',', '\\', 'name', 'arguments', ' ', '\n', 'x', '1', 'null', '😀', '\uD800'];

  it('survives 3000 random strings built from tag and JSON fragments', () => {
    const rng = new Rng(12);
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: rng.int(0, 40) }, () => rng.pick(ALPHABET)).join('');
      checkWellFormed(text, parseToolCalls(text));
    }
  });

  it('survives 3000 mutations of well-formed calls (delete, insert, duplicate, truncate, swap)', () => {
    const rng = new Rng(13);
    for (let n = 0; n < 3000; n++) {
      let text = `${rng.pick(['', 'ok '])}${formatToolCalls(randomCalls(rng))}`;
      for (let m = rng.int(1, 4); m > 0; m--) {
        const at = rng.int(0, text.length);
        const to = rng.int(at, Math.min(text.length, at + 12));
        switch (rng.int(0, 4)) {
          case 0: text = text.slice(0, at) + text.slice(to); break; // delete
          case 1: text = text.slice(0, at) + rng.pick(ALPHABET) + text.slice(at); break; // insert
          case 2: text = text.slice(0, to) + text.slice(at, to) + text.slice(to); break; // duplicate
          case 3: text = text.slice(0, at); break; // truncate (a generation cut by the length limit)
          default: text = text.slice(to) + text.slice(0, to); // rotate
        }
      }
      checkWellFormed(text, parseToolCalls(text));
    }
  });
});

describe('parseToolCalls performance and template spacing', () => {
  it('stays linear on 50 000 unmatched tags and caps the error list', () => {
    for (const tag of ['</tool_call>', '<tool_call>']) {
      const t0 = performance.now();
      const r = parseToolCalls(tag.repeat(50_000));
      expect(performance.now() - t0).toBeLessThan(2000);
      expect(r.errors.length).toBe(MAX_ERRORS + 1);
      expect(r.errors.at(-1)?.kind).toBe('too-many-errors');
    }
  });

  it("writes calls with Python json.dumps spacing, as Qwen3's template does", () => {
    expect(formatToolCalls([{ name: 'f', arguments: { a: 1, b: [1, 'x'], c: { d: null } } }])).toBe(
      '<tool_call>\n{"name": "f", "arguments": {"a": 1, "b": [1, "x"], "c": {"d": null}}}\n</tool_call>',
    );
  });
});

describe('callTagOverflow', () => {
  it('finds the first tag past the limit, counting opening and closing tags alike', () => {
    const text = '<tool_call>a</tool_call> <tool_call>b';
    expect(callTagOverflow(text, 3)).toBeNull();
    expect(callTagOverflow(text, 2)).toBe(text.lastIndexOf('<tool_call>'));
    expect(callTagOverflow(text, 1)).toBe(text.indexOf('</tool_call>'));
    expect(callTagOverflow('no tags', 0)).toBeNull();
    expect(callTagOverflow('</tool_call>'.repeat(200), 128)).toBe(128 * '</tool_call>'.length);
  });
});
