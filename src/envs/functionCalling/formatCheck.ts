// The `format` reward component: a turn is well-formed when its tool-call blocks all parse and,
// when it makes no call, it is a clean non-empty text answer (no stray or misspelt call tags, no
// chat-template tokens, no call JSON written without tags). Also what counts as a real text answer
// (irrelevance tasks): a sentence, not an empty or one-token reply.
import type { ParsedAssistantMessage } from '../../tokenizer/toolCalls';

const TEMPLATE_LEAKS = ['<tool_response>', '</tool_response>', '<|im_start|>', '<|im_end|>', '<tools>', '</tools>', '<function='];
const NEAR_MISS_TAG = /<\/?\s*tool[\s_-]?calls?\b/i; // <toolcall>, <tool-call>, <tool_calls>… (exact tags are consumed by the parser)
const UNTAGGED_CALL = /^\s*(```(json)?\s*)?\{\s*"name"\s*:/; // {"name": …} with no <tool_call> around it

/** Problems that make the turn's format component 0 (empty when the turn is well-formed). */
export function formatIssues(parsed: ParsedAssistantMessage): string[] {
  const issues = parsed.errors.map((e) => e.message);
  const prose = parsed.content;
  if (!parsed.attemptedCall && prose.length === 0) issues.push('empty answer: reply with text, or call a function with <tool_call>{"name": …, "arguments": {…}}</tool_call>');
  for (const leak of TEMPLATE_LEAKS) {
    if (prose.includes(leak)) issues.push(`the reply contains "${leak}", which only the chat template may write`);
  }
  if (NEAR_MISS_TAG.test(prose)) issues.push('the reply contains a misspelt call tag: write calls exactly as <tool_call>…</tool_call>');
  if (UNTAGGED_CALL.test(prose)) issues.push('a call was written as bare JSON: wrap it in <tool_call>…</tool_call>');
  return issues;
}

/** Distinct words a text answer needs to count as a real answer (irrelevance): "ok", "yes", "." do not. */
export const MIN_ANSWER_WORDS = 3;

/**
 * Whether `content` is a real text answer: at least MIN_ANSWER_WORDS distinct words (case-folded
 * runs of letters or digits). "I can't help with that." is one; "", "ok", "ok ok ok" are not.
 */
export function isRealTextAnswer(content: string): boolean {
  const words = new Set<string>();
  for (const m of content.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    words.add(m[0]);
    if (words.size >= MIN_ANSWER_WORDS) return true;
  }
  return false;
}
