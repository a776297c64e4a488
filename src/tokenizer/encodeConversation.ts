// Conversations → token ids + assistant mask, for SFT (encodeConversation) and for multi-turn
// rollouts (encodePrompt, then appendAssistantTurn / appendToolResults per turn). Both tokenise the
// same segments (chatSegments.ts) one at a time, so a rollout's ids equal the SFT encoding of the
// same conversation.
//
// Segment by segment is the canonical tokenisation: at generation time the prompt's ids are fixed
// before the model writes anything, so a rollout can only ever produce these ids. They equal the
// ids of the whole text whenever no token spans a segment boundary. Boundaries sit at special
// tokens, except right after the thinking-off generation prompt "…</think>\n\n". There the
// template strips the content's leading newlines, and no merge is known except one (Qwen3 only):
// content made only of newlines plus tool_calls renders as "\n<tool_call>…", and the whole text
// tokenises "\n\n\n" as one token. `verifyWholeText: true` checks the equality (the tests do).

import type { ChatMessage, ToolSpec } from './chatTypes';
import {
  assistantTurnText, conversationSegments, followUpText, generationPromptText,
  type ChatFormatOptions, type ChatSegment,
} from './chatSegments';
import { IM_END, type Tokenizer, type TokenSequence } from './types';

/** Appends `text`'s tokens with mask value `mask` (mutates `seq`). */
function appendText(tokenizer: Tokenizer, seq: TokenSequence, text: string, mask: 0 | 1): void {
  for (const id of tokenizer.encode(text)) {
    seq.ids.push(id);
    seq.assistantMask.push(mask);
  }
}

function endsWith(ids: readonly number[], tail: readonly number[]): boolean {
  if (tail.length > ids.length) return false;
  return tail.every((id, k) => ids[ids.length - tail.length + k] === id);
}

export interface EncodeOptions extends ChatFormatOptions {
  /** End with the generation prompt (a rollout's prompt). */
  addGenerationPrompt?: boolean;
  /** Also tokenise the whole text and throw if the ids differ (see the top of this file). */
  verifyWholeText?: boolean;
}

/** Throws, naming the first differing token, when turn-by-turn ids differ from whole-text ids. */
function checkSameAsWhole(tokenizer: Tokenizer, segments: readonly ChatSegment[], ids: readonly number[]): void {
  const whole = tokenizer.encode(segments.map((s) => s.text).join(''));
  const n = Math.min(whole.length, ids.length);
  let k = 0;
  while (k < n && whole[k] === ids[k]) k++;
  if (k === n && whole.length === ids.length) return;
  const around = (xs: readonly number[]) => JSON.stringify(tokenizer.decode(xs.slice(Math.max(0, k - 8), k + 8)));
  throw new Error(
    `encodeConversation: tokenising turn by turn gives different ids than tokenising the whole text at token ${k} ` +
      `(turn by turn: ${around(ids)}, whole: ${around(whole)}): a message's text merges with the chat markup ` +
      `around it. The turn-by-turn ids are what a rollout produces; drop verifyWholeText to accept them.`,
  );
}

/**
 * Encodes a conversation for SFT. assistantMask is 1 exactly on what assistant turns generate
 * (content, <tool_call> blocks, closing <|im_end|>) and 0 on system, user and tool turns, on the
 * generation prompt `<|im_start|>assistant\n` (+ empty think block when thinking is off) and on
 * the "\n" after <|im_end|>.
 */
export function encodeConversation(
  tokenizer: Tokenizer,
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[] = [],
  opts: EncodeOptions = {},
): TokenSequence {
  const segments = conversationSegments(messages, tools, opts);
  const seq: TokenSequence = { ids: [], assistantMask: [] };
  for (const s of segments) appendText(tokenizer, seq, s.text, s.assistant ? 1 : 0);
  if (opts.verifyWholeText) checkSameAsWhole(tokenizer, segments, seq.ids);
  return seq;
}

/**
 * The prompt of a rollout: the conversation so far, ending with the generation prompt. Its mask is
 * all 0: the policy did not sample these tokens, even if they include earlier assistant turns.
 */
export function encodePrompt(
  tokenizer: Tokenizer,
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[] = [],
  opts: ChatFormatOptions & { verifyWholeText?: boolean } = {},
): TokenSequence {
  const seq = encodeConversation(tokenizer, messages, tools, { ...opts, addGenerationPrompt: true });
  seq.assistantMask.fill(0);
  return seq;
}

/**
 * Appends one assistant turn to a sequence that ends with the generation prompt (mutates and
 * returns `seq`). `generated` is either
 * - the sampled ids, appended verbatim with mask 1 (they are what the behaviour log-probs belong
 *   to). If they do not end with <|im_end|> (cut by a length limit) an <|im_end|> is added with
 *   mask 0 so the sequence stays well formed without training the model to stop there; or
 * - the assistant's text (e.g. an expert's), rendered as encodeConversation would; a trailing
 *   "<|im_end|>" in it is ignored.
 * Then "\n" with mask 0, as the template writes after every turn.
 */
export function appendAssistantTurn(
  tokenizer: Tokenizer,
  seq: TokenSequence,
  generated: readonly number[] | string,
  opts: ChatFormatOptions = {},
): TokenSequence {
  const prompt = tokenizer.encode(generationPromptText(opts));
  if (!endsWith(seq.ids, prompt)) {
    throw new Error(
      `appendAssistantTurn: the sequence does not end with the generation prompt ${JSON.stringify(generationPromptText(opts))}; ` +
        'start from encodePrompt or appendToolResults (with the same enableThinking), not from a finished turn',
    );
  }
  if (typeof generated === 'string') {
    const content = generated.endsWith(IM_END) ? generated.slice(0, -IM_END.length) : generated;
    appendText(tokenizer, seq, assistantTurnText({ role: 'assistant', content }, opts), 1);
  } else {
    for (const id of generated) {
      seq.ids.push(id);
      seq.assistantMask.push(1);
    }
    if (generated[generated.length - 1] !== tokenizer.imEndId) {
      seq.ids.push(tokenizer.imEndId);
      seq.assistantMask.push(0);
    }
  }
  appendText(tokenizer, seq, '\n', 0);
  return seq;
}

/**
 * Appends the messages an environment step returned (tool results, user replies; mask 0) after an
 * assistant turn, then the next generation prompt unless `addGenerationPrompt` is false (pass
 * false when the episode is done). Mutates and returns `seq`.
 */
export function appendToolResults(
  tokenizer: Tokenizer,
  seq: TokenSequence,
  messages: readonly ChatMessage[],
  opts: ChatFormatOptions & { addGenerationPrompt?: boolean } = {},
): TokenSequence {
  if (!endsWith(seq.ids, [tokenizer.imEndId, ...tokenizer.encode('\n')])) {
    throw new Error('appendToolResults: the sequence does not end with a finished assistant turn (<|im_end|>\\n); call appendAssistantTurn first');
  }
  appendText(tokenizer, seq, followUpText(messages, opts), 0);
  if (opts.addGenerationPrompt ?? true) appendText(tokenizer, seq, generationPromptText(opts), 0);
  return seq;
}
