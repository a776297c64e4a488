// TabForge's conversation text: each turn rendered by Qwen3's template the way it renders that turn
// while it is the newest one, i.e. the text a multi-turn rollout actually produces by appending.
//
// Why not the template's rendering of the whole conversation: it rewrites history (an assistant
// turn that is followed by more messages loses its `<think>` block, see chatTemplate.ts), while a
// rollout can only append tokens. SFT must train on the same ids a rollout produces, so every
// assistant turn keeps the form it was generated in. Differences from apply_chat_template(all):
// - enable_thinking=false: every assistant turn after the last user query starts with
//   `<think>\n\n</think>\n\n` (the template only keeps it on the final turn);
// - assistant reasoning is never dropped from earlier turns.
// For a conversation with one assistant turn at its end the two renderings are identical.
//
// How: a turn's text is the difference between the template's rendering with and without it,
// after a fixed one-message context (a user turn). Every difference is checked to extend its base.

import type { ChatMessage, ToolSpec } from './chatTypes';
import { renderChatTemplate } from './chatTemplate';
import { IM_END } from './types';

export interface ChatFormatOptions {
  /** Qwen3's enable_thinking. false (default): the empty think block is part of the generation prompt. */
  enableThinking?: boolean;
}

/** One piece of the conversation text, tokenised on its own (see encodeConversation.ts). */
export interface ChatSegment {
  text: string;
  /** True for text the assistant generates: its content, tool calls and closing <|im_end|>. */
  assistant: boolean;
}

// The context every later turn is rendered after; only its length matters, it is cut off again.
const CONTEXT: ChatMessage[] = [{ role: 'user', content: 'context' }];
const contextCache = new Map<string, string>(); // the context's renderings, by (thinking, prompt)

/** The context rendered alone, with or without the generation prompt (cached: called per turn). */
function renderedContext(opts: ChatFormatOptions, withPrompt: boolean): string {
  const key = `${Boolean(opts.enableThinking)}/${withPrompt}`;
  let text = contextCache.get(key);
  if (text === undefined) {
    text = renderChatTemplate(CONTEXT, [], { enableThinking: opts.enableThinking, addGenerationPrompt: withPrompt });
    contextCache.set(key, text);
  }
  return text;
}

/** `full` minus its prefix `base`; throws naming `what` when the template did not simply append. */
function appended(full: string, base: string, what: string): string {
  if (!full.startsWith(base)) {
    throw new Error(`chat format: rendering ${what} changed the text before it, so it cannot be appended turn by turn.\nbefore: ${JSON.stringify(base.slice(-120))}\nafter:  ${JSON.stringify(full.slice(0, base.length + 120).slice(-240))}`);
  }
  return full.slice(base.length);
}

/** `<|im_start|>assistant\n` (+ `<think>\n\n</think>\n\n` when thinking is off): the tokens a rollout's prompt ends with. */
export function generationPromptText(opts: ChatFormatOptions = {}): string {
  return appended(renderedContext(opts, true), renderedContext(opts, false), 'the generation prompt');
}

/**
 * What the assistant generates for `message` after the generation prompt: content, tool calls and
 * the closing `<|im_end|>` (without the "\n" the template writes after it, which nobody generates).
 */
export function assistantTurnText(message: ChatMessage, opts: ChatFormatOptions = {}): string {
  if (message.role !== 'assistant') throw new Error(`chat format: assistantTurnText got a ${message.role} message; pass an assistant message`);
  const prompted = renderedContext(opts, true);
  const full = renderChatTemplate([...CONTEXT, message], [], { enableThinking: opts.enableThinking });
  const what = opts.enableThinking
    ? 'an assistant turn'
    : 'an assistant turn with enableThinking false (its content holds <think> reasoning: set enableThinking true or remove it)';
  const text = appended(full, prompted, what);
  if (!text.endsWith(`${IM_END}\n`)) throw new Error(`chat format: assistant turn does not end with ${IM_END}\\n: ${JSON.stringify(text.slice(-80))}`);
  return text.slice(0, -1);
}

/** Text of non-assistant messages (user, tool, system) that follow an assistant turn. */
export function followUpText(messages: readonly ChatMessage[], opts: ChatFormatOptions = {}): string {
  const bad = messages.findIndex((m) => m.role === 'assistant');
  if (bad !== -1) throw new Error(`chat format: message ${bad} is an assistant message; append assistant turns with appendAssistantTurn`);
  if (messages.length === 0) return '';
  const full = renderChatTemplate([...CONTEXT, ...messages], [], { enableThinking: opts.enableThinking });
  return appended(full, renderedContext(opts, false), 'follow-up messages');
}

/** Index of the first assistant message at or after `from` (messages.length when none). */
function nextAssistant(messages: readonly ChatMessage[], from: number): number {
  let i = from;
  while (i < messages.length && messages[i].role !== 'assistant') i++;
  return i;
}

/**
 * The whole conversation as segments: opening (system block with tools, first user turn),
 * then per assistant turn [generation prompt, generated text (assistant), "\n"], then each run of
 * follow-up messages, and a final generation prompt when `addGenerationPrompt`.
 */
export function conversationSegments(
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[] = [],
  opts: ChatFormatOptions & { addGenerationPrompt?: boolean } = {},
): ChatSegment[] {
  if (messages.length === 0 || messages[0].role === 'assistant') {
    throw new Error(`chat format: a conversation must start with a system or user message (got ${messages.length === 0 ? 'none' : 'assistant'})`);
  }
  const prompt = generationPromptText(opts);
  const openingEnd = nextAssistant(messages, 0);
  const opening = renderChatTemplate(messages.slice(0, openingEnd), tools, { enableThinking: opts.enableThinking });
  const segments: ChatSegment[] = [{ text: opening, assistant: false }];
  for (let i = openingEnd; i < messages.length; ) {
    if (messages[i].role === 'assistant') {
      segments.push({ text: prompt, assistant: false }, { text: assistantTurnText(messages[i], opts), assistant: true }, { text: '\n', assistant: false });
      i++;
    } else {
      const end = nextAssistant(messages, i);
      segments.push({ text: followUpText(messages.slice(i, end), opts), assistant: false });
      i = end;
    }
  }
  if (opts.addGenerationPrompt) segments.push({ text: prompt, assistant: false });
  return segments;
}

/** The conversation text TabForge trains on (the segments joined). */
export function renderConversation(
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[] = [],
  opts: ChatFormatOptions & { addGenerationPrompt?: boolean } = {},
): string {
  return conversationSegments(messages, tools, opts).map((s) => s.text).join('');
}
