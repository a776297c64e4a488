import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from './chatTypes';
import { WEATHER_CHAT, WEATHER_SYSTEM_BLOCK, WEATHER_TOOLS } from './chatFixtures';
import { assistantTurnText, conversationSegments, generationPromptText, renderConversation } from './chatSegments';
import { patchedQwen3Template, renderChatTemplate } from './chatTemplate';
import goldens from './testdata/qwen3Goldens.json';

const THINK_EMPTY = '<think>\n\n</think>\n\n';

describe('renderChatTemplate (Qwen3 template as shipped)', () => {
  // Made by testdata/makeQwen3Goldens.py with Python jinja2 configured as transformers' apply_chat_template.
  it.each(goldens.map((g) => [`${g.name} (prompt ${g.addGenerationPrompt}, thinking ${g.enableThinking})`, g] as const))(
    'matches Python / Hugging Face rendering: %s',
    (_label, g) => {
      const opts = { addGenerationPrompt: g.addGenerationPrompt, enableThinking: g.enableThinking };
      expect(renderChatTemplate(g.messages as ChatMessage[], g.tools as ToolSpec[], opts)).toBe(g.expected);
    },
  );

  it('renders the weather conversation exactly (hand-checked)', () => {
    expect(renderChatTemplate(WEATHER_CHAT, WEATHER_TOOLS)).toBe(
      WEATHER_SYSTEM_BLOCK +
        '<|im_start|>user\nWeather in Paris?<|im_end|>\n' +
        // Not the last message: the template drops the (empty) think block here …
        '<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\n<tool_response>\n{"temp_c": 21}\n</tool_response><|im_end|>\n' +
        // … and writes it on the last assistant turn.
        `<|im_start|>assistant\n${THINK_EMPTY}It is 21 °C in Paris.<|im_end|>\n`,
    );
  });

  it('writes the generation prompt with an empty think block only when thinking is off', () => {
    const opening = WEATHER_CHAT.slice(0, 2);
    const base = renderChatTemplate(opening, WEATHER_TOOLS);
    expect(renderChatTemplate(opening, WEATHER_TOOLS, { addGenerationPrompt: true, enableThinking: false })).toBe(`${base}<|im_start|>assistant\n${THINK_EMPTY}`);
    expect(renderChatTemplate(opening, WEATHER_TOOLS, { addGenerationPrompt: true, enableThinking: true })).toBe(`${base}<|im_start|>assistant\n`);
  });

  it('renders without tools as plain im_start/im_end turns', () => {
    expect(renderChatTemplate([{ role: 'system', content: 'S' }, { role: 'user', content: 'U' }])).toBe(
      '<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n',
    );
  });

  it('accepts arguments as an object or as a JSON string, and keeps prose before the calls', () => {
    const asObject = renderChatTemplate([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'Checking.', tool_calls: [{ type: 'function', function: { name: 'f', arguments: { a: [1, 2], b: 'é' } } }] },
    ]);
    expect(asObject).toContain('Checking.\n<tool_call>\n{"name": "f", "arguments": {"a": [1, 2], "b": "é"}}\n</tool_call><|im_end|>');
    const asString = renderChatTemplate([
      { role: 'user', content: 'q' },
      // The type says object; models and datasets also send a JSON string, which the template prints verbatim.
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{"a":1}' as unknown as Record<string, unknown> } }] },
    ]);
    expect(asString).toContain('<tool_call>\n{"name": "f", "arguments": {"a":1}}\n</tool_call>');
  });

  it('groups consecutive tool results into one user turn', () => {
    const text = renderChatTemplate([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '' },
      { role: 'tool', content: 'A' },
      { role: 'tool', content: 'B' },
    ]);
    expect(text.endsWith('<|im_start|>user\n<tool_response>\nA\n</tool_response>\n<tool_response>\nB\n</tool_response><|im_end|>\n')).toBe(true);
  });

  it('renders an assistant message holding raw <tool_call> text once, ignoring its parsed tool_calls', () => {
    const raw = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>';
    const text = renderChatTemplate([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: raw, tool_calls: [{ type: 'function', function: { name: 'f', arguments: {} } }] },
    ]);
    expect(text.split('<tool_call>').length - 1).toBe(1);
  });

  it('strips like Python: only newlines around content and reasoning (works around @huggingface/jinja)', () => {
    const render = (content: string) => renderChatTemplate([{ role: 'user', content: 'q' }, { role: 'assistant', content }]);
    // Python's ' hi'.lstrip('\n') keeps the space; @huggingface/jinja's own lstrip would drop it.
    expect(render(' \thi ')).toBe(`<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n${THINK_EMPTY} \thi <|im_end|>\n`);
    expect(render('<think>\n plan \n</think>\n\n\n  go')).toContain('<|im_start|>assistant\n<think>\n plan \n</think>\n\n  go<|im_end|>');
  });

  it('refuses to patch a template it was not written for', () => {
    expect(patchedQwen3Template()).not.toMatch(/\.(l|r)?strip\(/);
    expect(() => patchedQwen3Template("{{ content.lstrip('\\n') }}")).toThrow(/update STRIP_CALL_FIXES/);
  });

  it('says what is wrong with a message it cannot render', () => {
    expect(() => renderChatTemplate([])).toThrow(/no messages/);
    expect(() => renderChatTemplate([{ role: 'user' } as ChatMessage])).toThrow(/message 0 \(user\) has no string content/);
    expect(() => renderChatTemplate([{ role: 'robot', content: 'x' } as unknown as ChatMessage])).toThrow(/role "robot"/);
  });
});

describe('renderConversation (turn by turn, as a rollout produces it)', () => {
  it('keeps the generated think block on every assistant turn (thinking off)', () => {
    expect(renderConversation(WEATHER_CHAT, WEATHER_TOOLS)).toBe(
      WEATHER_SYSTEM_BLOCK +
        '<|im_start|>user\nWeather in Paris?<|im_end|>\n' +
        `<|im_start|>assistant\n${THINK_EMPTY}<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n` +
        '<|im_start|>user\n<tool_response>\n{"temp_c": 21}\n</tool_response><|im_end|>\n' +
        `<|im_start|>assistant\n${THINK_EMPTY}It is 21 °C in Paris.<|im_end|>\n`,
    );
  });

  it('equals the template when the only assistant turn is the last message', () => {
    const oneTurn = [...WEATHER_CHAT.slice(0, 2), { role: 'assistant', content: 'Sunny.' } as ChatMessage];
    for (const enableThinking of [false, true]) {
      expect(renderConversation(oneTurn, WEATHER_TOOLS, { enableThinking })).toBe(renderChatTemplate(oneTurn, WEATHER_TOOLS, { enableThinking }));
      expect(renderConversation(oneTurn.slice(0, 2), WEATHER_TOOLS, { enableThinking, addGenerationPrompt: true })).toBe(
        renderChatTemplate(oneTurn.slice(0, 2), WEATHER_TOOLS, { enableThinking, addGenerationPrompt: true }),
      );
    }
  });

  it('puts the empty think block in the prompt (thinking off) or in the generated text (thinking on)', () => {
    const msg: ChatMessage = { role: 'assistant', content: 'Hi.' };
    expect(generationPromptText({ enableThinking: false })).toBe(`<|im_start|>assistant\n${THINK_EMPTY}`);
    expect(assistantTurnText(msg, { enableThinking: false })).toBe('Hi.<|im_end|>');
    expect(generationPromptText({ enableThinking: true })).toBe('<|im_start|>assistant\n');
    expect(assistantTurnText(msg, { enableThinking: true })).toBe(`${THINK_EMPTY}Hi.<|im_end|>`);
  });

  it('keeps reasoning with thinking on, and refuses it with thinking off', () => {
    const msg: ChatMessage = { role: 'assistant', content: '<think>\nplan: call f\n</think>\n\nDone.' };
    expect(assistantTurnText(msg, { enableThinking: true })).toBe('<think>\nplan: call f\n</think>\n\nDone.<|im_end|>');
    expect(() => assistantTurnText(msg, { enableThinking: false })).toThrow(/set enableThinking true or remove it/);
  });

  it('cuts the conversation into opening, prompt/turn/newline triples and follow-ups', () => {
    const segments = conversationSegments(WEATHER_CHAT, WEATHER_TOOLS);
    expect(segments.map((s) => (s.assistant ? 'A' : '-'))).toEqual(['-', '-', 'A', '-', '-', '-', 'A', '-']);
    expect(segments[4].text).toBe('<|im_start|>user\n<tool_response>\n{"temp_c": 21}\n</tool_response><|im_end|>\n');
  });

  it('refuses a conversation that starts with the assistant', () => {
    expect(() => renderConversation([{ role: 'assistant', content: 'x' }])).toThrow(/must start with a system or user message/);
  });
});
