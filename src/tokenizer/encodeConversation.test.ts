import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from './chatTypes';
import { Rng } from '../util/rng';
import { ByteTokenizer } from './byteTokenizer';
import { SERVICE_CHAT, SERVICE_TOOLS, WEATHER_ASSISTANT_TEXTS, WEATHER_CHAT, WEATHER_TOOLS } from './chatFixtures';
import { assistantTurnText, renderConversation } from './chatSegments';
import { appendAssistantTurn, appendToolResults, encodeConversation, encodePrompt } from './encodeConversation';
import { qwen3TokenizerFromDisk } from './qwen3TokenizerNode';
import { loadTrimmedQwen3Tokenizer } from './tokenizerForModel';
import type { Tokenizer, TokenSequence } from './types';

/** Decoded text of each maximal run of tokens whose mask is `value`. */
function maskedRuns(tok: Tokenizer, seq: TokenSequence, value: 0 | 1): string[] {
  const runs: string[] = [];
  let run: number[] = [];
  seq.ids.forEach((id, t) => {
    if (seq.assistantMask[t] === value) run.push(id);
    else if (run.length > 0) (runs.push(tok.decode(run)), (run = []));
  });
  if (run.length > 0) runs.push(tok.decode(run));
  return runs;
}

/** Replays a conversation the way a rollout loop does: prompt, then append turn by turn. */
function replay(tok: Tokenizer, messages: ChatMessage[], tools: ToolSpec[], enableThinking: boolean, asIds: boolean): TokenSequence {
  const first = messages.findIndex((m) => m.role === 'assistant');
  const seq = encodePrompt(tok, messages.slice(0, first), tools, { enableThinking });
  for (let i = first; i < messages.length; ) {
    // What the model would have generated for this turn (ending with <|im_end|>), as sampled ids or as text.
    const generated = assistantTurnText(messages[i], { enableThinking });
    appendAssistantTurn(tok, seq, asIds ? tok.encode(generated) : generated, { enableThinking });
    let end = i + 1;
    while (end < messages.length && messages[end].role !== 'assistant') end++;
    if (end > i + 1) appendToolResults(tok, seq, messages.slice(i + 1, end), { enableThinking, addGenerationPrompt: end < messages.length });
    else if (end < messages.length) appendToolResults(tok, seq, [], { enableThinking });
    i = end;
  }
  return seq;
}

const tokenizers: [string, Tokenizer][] = [
  ['byte', new ByteTokenizer()],
  ['qwen3', qwen3TokenizerFromDisk()],
  ['qwen3-trimmed', await loadTrimmedQwen3Tokenizer()],
];

describe.each(tokenizers)('encodeConversation (%s tokenizer)', (_name, tok) => {
  it('decodes to the rendered conversation', () => {
    const seq = encodeConversation(tok, WEATHER_CHAT, WEATHER_TOOLS, { verifyWholeText: true });
    expect(seq.ids.length).toBe(seq.assistantMask.length);
    expect(tok.decode(seq.ids)).toBe(renderConversation(WEATHER_CHAT, WEATHER_TOOLS));
  });

  it('masks exactly the generated assistant text (thinking off)', () => {
    const seq = encodeConversation(tok, WEATHER_CHAT, WEATHER_TOOLS, { verifyWholeText: true });
    expect(maskedRuns(tok, seq, 1)).toEqual(WEATHER_ASSISTANT_TEXTS);
    const unmasked = maskedRuns(tok, seq, 0);
    // Each assistant run is preceded by the generation prompt and followed by the template's "\n".
    expect(unmasked[0].endsWith('<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
    expect(unmasked[1]).toBe('\n<|im_start|>user\n<tool_response>\n{"temp_c": 21}\n</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
    expect(unmasked[2]).toBe('\n');
    expect(seq.assistantMask[seq.ids.lastIndexOf(tok.imEndId)]).toBe(1);
  });

  it('masks the think block too when thinking is on (the model generates it)', () => {
    const seq = encodeConversation(tok, WEATHER_CHAT, WEATHER_TOOLS, { enableThinking: true, verifyWholeText: true });
    expect(maskedRuns(tok, seq, 1)).toEqual(WEATHER_ASSISTANT_TEXTS.map((t) => `<think>\n\n</think>\n\n${t}`));
    expect(maskedRuns(tok, seq, 0).slice(-2, -1)[0].endsWith('<|im_start|>assistant\n')).toBe(true);
  });

  it('masks the service chat: prose + parallel calls, raw tool-call text, second user query', () => {
    const seq = encodeConversation(tok, SERVICE_CHAT, SERVICE_TOOLS, { verifyWholeText: true });
    expect(maskedRuns(tok, seq, 1)).toEqual([
      'Let me look.\n<tool_call>\n{"name": "get_order", "arguments": {"id": 17}}\n</tool_call>\n' +
        '<tool_call>\n{"name": "get_shipping", "arguments": {"order_id": 17, "verbose": true}}\n</tool_call><|im_end|>',
      'Order 17 shipped and arrives in 2 days.<|im_end|>',
      '<tool_call>\n{"name": "cancel_order", "arguments": {"id": 18}}\n</tool_call><|im_end|>',
      'Done: order 18 is cancelled.<|im_end|>',
    ]);
    const unmasked = maskedRuns(tok, seq, 0).join('');
    expect(unmasked).toContain('<tool_response>\n{"status": "shipped"}\n</tool_response>\n<tool_response>\n{"eta": "2 days"}\n</tool_response>');
    expect(unmasked).toContain('<|im_start|>user\nThanks! Cancel order 18 please.<|im_end|>');
  });

  it.each([
    ['weather, thinking off', WEATHER_CHAT, WEATHER_TOOLS, false],
    ['weather, thinking on', WEATHER_CHAT, WEATHER_TOOLS, true],
    ['service, thinking off', SERVICE_CHAT, SERVICE_TOOLS, false],
    ['service, thinking on', SERVICE_CHAT, SERVICE_TOOLS, true],
  ] as const)('a rollout appending turn by turn gives the same ids and mask (%s)', (_label, messages, tools, enableThinking) => {
    const full = encodeConversation(tok, messages, tools, { enableThinking });
    for (const asIds of [true, false]) expect(replay(tok, [...messages], [...tools], enableThinking, asIds)).toEqual(full);
  });

  it('encodePrompt ends with the generation prompt and masks nothing', () => {
    const prompt = encodePrompt(tok, WEATHER_CHAT, WEATHER_TOOLS);
    expect(tok.decode(prompt.ids).endsWith('It is 21 °C in Paris.<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
    expect(prompt.assistantMask.every((m) => m === 0)).toBe(true);
  });

  it('closes a turn cut by the length limit with an unmasked <|im_end|>', () => {
    const seq = encodePrompt(tok, WEATHER_CHAT.slice(0, 2), WEATHER_TOOLS);
    const start = seq.ids.length;
    const cut = tok.encode('<tool_call>\n{"name": "get_wea');
    appendAssistantTurn(tok, seq, cut);
    expect(seq.ids.slice(start)).toEqual([...cut, tok.imEndId, ...tok.encode('\n')]);
    expect(seq.assistantMask.slice(start)).toEqual([...cut.map(() => 1), 0, 0]);
  });

  it('refuses appends in the wrong place, saying what to call instead', () => {
    const prompt = encodePrompt(tok, WEATHER_CHAT.slice(0, 2), WEATHER_TOOLS);
    expect(() => appendToolResults(tok, prompt, [WEATHER_CHAT[3]])).toThrow(/call appendAssistantTurn first/);
    expect(() => appendAssistantTurn(tok, prompt, 'x', { enableThinking: true })).toThrow(/does not end with the generation prompt/);
    appendAssistantTurn(tok, prompt, 'x');
    expect(() => appendAssistantTurn(tok, prompt, 'y')).toThrow(/start from encodePrompt or appendToolResults/);
    expect(() => appendToolResults(tok, prompt, [WEATHER_CHAT[2]])).toThrow(/append assistant turns with appendAssistantTurn/);
  });

  it('tokenises turn by turn exactly like the whole text on random conversations (fuzz, 150 cases)', () => {
    const rng = new Rng(4);
    const words = ['ok', 'Paris', '日本語', '😀', 'e\u0301', '{"a": 1}', '<tool_call>', '<|im_end|>', ' ', '  ', '\n', '\n\n', '\t', 'x.', '-42'];
    const text = (min: number) => Array.from({ length: rng.int(min, 6) }, () => rng.pick(words)).join(rng.pick(['', ' ', '\n']));
    // Contents may start with whitespace: the boundary after the generation prompt's "\n\n" is the risky one.
    const content = () => text(1);
    for (let n = 0; n < 150; n++) {
      const messages: ChatMessage[] = [{ role: rng.pick(['system', 'user'] as const), content: text(0) }, { role: 'user', content: text(1) }];
      for (let turn = rng.int(0, 3); turn > 0; turn--) {
        const args = { q: text(0), n: rng.int(-5, 5) };
        const calls = rng.next() < 0.5 ? [{ type: 'function' as const, function: { name: 'f', arguments: args } }] : undefined;
        messages.push({ role: 'assistant', content: rng.next() < 0.3 && calls ? '' : content(), tool_calls: calls });
        const follow = rng.pick(['tool', 'user', 'tool'] as const);
        for (let k = rng.int(1, 2); k > 0; k--) messages.push({ role: follow, content: text(0) });
      }
      const enableThinking = rng.next() < 0.5;
      // The one known merge (see encodeConversation.ts): newline-only content before tool calls, thinking off, Qwen3.
      const knownMerge = tok.kind === 'qwen3' && !enableThinking && messages.some((m) => m.role === 'assistant' && m.tool_calls && /^\n+$/.test(m.content));
      if (knownMerge) expect(() => encodeConversation(tok, messages, WEATHER_TOOLS, { verifyWholeText: true })).toThrow(/different ids/);
      const full = encodeConversation(tok, messages, WEATHER_TOOLS, { enableThinking, verifyWholeText: !knownMerge });
      const rendered = renderConversation(messages, WEATHER_TOOLS, { enableThinking });
      expect(tok.decode(full.ids)).toBe(tok.kind === 'qwen3' ? rendered.normalize('NFC') : rendered);
    }
  });
});

describe('encodeConversation whole-text check', () => {
  it('throws, naming the token, when turn-by-turn ids differ from whole-text ids', () => {
    // A tokenizer that gives one id per encode() call: any split into segments changes the ids.
    const byte = new ByteTokenizer();
    const oneIdPerCall: Tokenizer = { ...byte, encode: (text: string) => [text.length % 256], decode: (ids: readonly number[]) => ids.join(','), tokenToId: byte.tokenToId.bind(byte), tokenBytes: byte.tokenBytes.bind(byte) };
    const messages: ChatMessage[] = [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }];
    expect(() => encodeConversation(oneIdPerCall, messages, [], { verifyWholeText: true })).toThrow(/different ids than tokenising the whole text at token 0/);
    expect(encodeConversation(oneIdPerCall, messages).ids.length).toBe(4);
  });

  it('documents the one known merge: newline-only content before a tool call (Qwen3, thinking off)', () => {
    const tok = tokenizers[1][1];
    const call = { type: 'function' as const, function: { name: 'f', arguments: {} } };
    const messages: ChatMessage[] = [{ role: 'user', content: 'q' }, { role: 'assistant', content: '\n', tool_calls: [call] }];
    expect(() => encodeConversation(tok, messages, [], { verifyWholeText: true })).toThrow(/turn-by-turn ids are what a rollout produces/);
    const seq = encodeConversation(tok, messages);
    expect(maskedRuns(tok, seq, 1)).toEqual(['\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call><|im_end|>']);
    expect(encodeConversation(tok, messages, [], { enableThinking: true, verifyWholeText: true }).ids.length).toBeGreaterThan(0);
  });
});
