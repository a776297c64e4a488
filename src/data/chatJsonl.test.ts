import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../envs/types';
import { fakeFamily } from '../eval/fakeFamily';
import { runEpisode } from '../eval/rollout';
import { ChatJsonlError, parseChatJsonl, readChatJsonl, toHfConversation, toHfMessage, writeChatJsonl, type ChatConversation } from './chatJsonl';

const CALL = '<tool_call>\n{"name":"calculate","arguments":{"a":2,"b":3,"op":"mul"}}\n</tool_call>';

async function sampleConversations(count: number): Promise<ChatConversation[]> {
  const family = fakeFamily();
  const out: ChatConversation[] = [];
  for (let i = 0; i < count; i++) {
    const task = family.generateTask(1, i, 'train');
    const ep = await runEpisode(family, task, family.expertPolicy(task, i));
    out.push(toHfConversation(ep.messages, ep.tools));
  }
  return out;
}

describe('toHfMessage', () => {
  it('splits an assistant turn into prose content and OpenAI-shape tool_calls', () => {
    const raw: ChatMessage = { role: 'assistant', content: `Let me compute that.\n${CALL}`, tool_calls: [] };
    expect(toHfMessage(raw)).toEqual({
      role: 'assistant',
      content: 'Let me compute that.',
      tool_calls: [{ type: 'function', function: { name: 'calculate', arguments: { a: 2, b: 3, op: 'mul' } } }],
    });
    expect(toHfMessage({ role: 'assistant', content: CALL }).content).toBe('');
  });

  it('keeps a turn with a malformed call raw, and tool names on tool messages only', () => {
    const bad = `${CALL}\n<tool_call>{not json`;
    expect(toHfMessage({ role: 'assistant', content: bad })).toEqual({ role: 'assistant', content: bad });
    expect(toHfMessage({ role: 'tool', content: '6', name: 'calculate' })).toEqual({ role: 'tool', content: '6', name: 'calculate' });
    expect(toHfMessage({ role: 'user', content: 'hi', name: 'x' })).toEqual({ role: 'user', content: 'hi' });
  });
});

describe('chat JSONL round trip', () => {
  it('write → read → identical conversations, and write again → identical bytes', async () => {
    const conversations = await sampleConversations(12);
    const text = writeChatJsonl(conversations);
    expect(text.split('\n')).toHaveLength(13); // 12 lines + the final newline
    const back = readChatJsonl(text);
    expect(back).toEqual(conversations);
    expect(writeChatJsonl(back)).toBe(text);
  });

  it('json-string arguments are read back as objects and rewritten identically', async () => {
    const conversations = await sampleConversations(4);
    const text = writeChatJsonl(conversations, 'json-string');
    expect(text).toContain('"arguments":"{\\"a\\":');
    const back = readChatJsonl(text);
    expect(back).toEqual(conversations);
    expect(writeChatJsonl(back, 'json-string')).toBe(text);
  });

  it('writes the TRL shape: messages + tools, assistant tool_calls with type function', async () => {
    const [conversation] = await sampleConversations(1);
    const line = JSON.parse(writeChatJsonl([conversation]).trim()) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(['messages', 'tools']);
    const assistant = (line.messages as Record<string, unknown>[]).find((m) => m.tool_calls !== undefined)!;
    expect(assistant.tool_calls).toEqual([{ type: 'function', function: { name: 'calculate', arguments: expect.any(Object) } }]);
    expect((line.tools as { type: string }[])[0].type).toBe('function');
  });
});

describe('readChatJsonl validation', () => {
  const good = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }], tools: [] });

  it('reports the line number and field of every bad line', () => {
    const text = [
      good,
      '{"messages": [',
      '',
      JSON.stringify({ messages: [{ role: 'robot', content: 'x' }, { role: 'assistant', content: 'y' }] }),
      JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
      JSON.stringify({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '[1]' } }] }] }),
      JSON.stringify({ messages: [{ role: 'user', content: 'x', tool_calls: [] }, { role: 'assistant', content: 'y' }] }),
      good,
    ].join('\n');
    const { conversations, problems } = parseChatJsonl(text);
    expect(conversations).toHaveLength(2);
    expect(problems.map((p) => p.line)).toEqual([2, 4, 5, 6, 7]);
    expect(problems[0].message).toMatch(/not valid JSON/);
    expect(problems[1].message).toMatch(/messages\[0\]\.role/);
    expect(problems[2].message).toMatch(/no assistant message/);
    expect(problems[3].message).toMatch(/messages\[1\]\.tool_calls\[0\]\.function\.arguments: arguments is a string but not a JSON object/);
    expect(problems[4].message).toMatch(/only assistant messages may have tool_calls/);
    expect(() => readChatJsonl(text, 'data.jsonl')).toThrow(ChatJsonlError);
    expect(() => readChatJsonl(text, 'data.jsonl')).toThrow(/data\.jsonl: 5 bad lines.*fix or remove them:\n {2}line 2: /s);
  });

  it('accepts null assistant content (as ""), missing tools, CRLF and a missing final newline', () => {
    const line = JSON.stringify({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: {} } }] }] });
    const [c] = readChatJsonl(`${line}\r\n`);
    expect(c.messages[1].content).toBe('');
    expect(c.tools).toEqual([]);
    expect(readChatJsonl(`${good}\r\n${good}`)).toHaveLength(2);
  });
});
