// Conversations as Hugging Face chat JSONL, one line per conversation:
//   {"messages": [{"role", "content", "tool_calls"?, "name"?}, …], "tools": [ToolSpec, …]}
// the conversational format TRL's SFTTrainer takes (tools are passed to apply_chat_template).
//
// Assistant turns change convention on export. Inside TabForge an assistant message keeps the raw
// text (tool calls included) as content, with tool_calls as metadata (see src/eval/rollout.ts).
// The stock Qwen3 template would print such calls twice, so the export writes
//   content    = the prose outside the <tool_call> blocks (trimmed; "" when none),
//   tool_calls = [{"type": "function", "function": {"name", "arguments"}}]
// and Qwen3's template re-renders each call as <tool_call>\n{"name": …, "arguments": …}\n</tool_call>
// after the prose. That reproduces the calls and the prose, not the raw bytes: JSON spacing follows
// the template's tojson and prose between calls moves in front of them. A turn whose calls did not
// all parse is exported raw (content verbatim, no tool_calls) so nothing the model wrote is lost.
//
// `arguments` is written as a JSON object (TRL's documented form). Arrow-backed loaders
// (datasets < 4.7 without the Json() feature) merge object keys across rows and fill gaps with null;
// write with argumentsAs 'json-string' for those: Qwen3's template prints a string verbatim.
import { z } from 'zod';
import { parseToolCalls } from '../tokenizer/toolCalls';
import type { ChatMessage, JsonSchema, ToolSpec } from '../envs/types';

/** One training conversation. */
export interface ChatConversation {
  /** The messages, system/user first, in HF chat form. */
  messages: ChatMessage[];
  /** Tools offered in the conversation (rendered in the system block by the chat template). */
  tools: ToolSpec[];
}

/** How tool-call arguments are written: a JSON object (default) or a JSON-encoded string. */
export type ArgumentsFormat = 'object' | 'json-string';

/** One message in HF export form (see the file comment for assistant turns). */
export function toHfMessage(message: ChatMessage): ChatMessage {
  if (message.role === 'assistant') {
    const parsed = parseToolCalls(message.content);
    if (parsed.calls.length > 0 && parsed.errors.length === 0) {
      return {
        role: 'assistant',
        content: parsed.content,
        tool_calls: parsed.calls.map((c) => ({ type: 'function', function: { name: c.name, arguments: c.arguments } })),
      };
    }
    return { role: 'assistant', content: message.content };
  }
  const out: ChatMessage = { role: message.role, content: message.content };
  if (message.role === 'tool' && message.name !== undefined) out.name = message.name;
  return out;
}

/** A conversation (e.g. an episode's messages and tools) in HF export form. */
export function toHfConversation(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): ChatConversation {
  return { messages: messages.map(toHfMessage), tools: tools.map((t) => structuredClone(t)) };
}

/** Fixed key order (role, content, tool_calls, name) so that write → read → write is byte-identical. */
function orderedMessage(m: ChatMessage, argumentsAs: ArgumentsFormat): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role, content: m.content };
  if (m.tool_calls !== undefined) {
    out.tool_calls = m.tool_calls.map((c) => ({
      type: 'function',
      function: { name: c.function.name, arguments: argumentsAs === 'json-string' ? JSON.stringify(c.function.arguments) : c.function.arguments },
    }));
  }
  if (m.name !== undefined) out.name = m.name;
  return out;
}

function orderedTool(t: ToolSpec): Record<string, unknown> {
  return { type: 'function', function: { name: t.function.name, description: t.function.description, parameters: t.function.parameters } };
}

/** One JSONL line (no trailing newline). Messages are written as given: convert with toHfConversation first. */
export function chatJsonlLine(conversation: ChatConversation, argumentsAs: ArgumentsFormat = 'object'): string {
  return JSON.stringify({ messages: conversation.messages.map((m) => orderedMessage(m, argumentsAs)), tools: conversation.tools.map(orderedTool) });
}

/** The whole file: one line per conversation, each ending in "\n". */
export function writeChatJsonl(conversations: readonly ChatConversation[], argumentsAs: ArgumentsFormat = 'object'): string {
  return conversations.map((c) => `${chatJsonlLine(c, argumentsAs)}\n`).join('');
}

// ---- reading -------------------------------------------------------------------------------

/** Arguments: an object, or a string holding a JSON object (OpenAI's form); read back as an object. */
const argumentsSchema = z.union([z.record(z.string(), z.unknown()), z.string()]).transform((value, ctx) => {
  if (typeof value !== 'string') return value;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: 'arguments is a string but not a JSON object' });
  return z.NEVER;
});

const toolCallSchema = z.object({
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string().min(1, 'tool call name is empty'), arguments: argumentsSchema }),
});

const messageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    // null content is common next to tool_calls in OpenAI-style data; it means "".
    content: z
      .string()
      .nullable()
      .transform((c) => c ?? ''),
    tool_calls: z.array(toolCallSchema).optional(),
    name: z.string().optional(),
  })
  .refine((m) => m.tool_calls === undefined || m.role === 'assistant', { message: 'only assistant messages may have tool_calls', path: ['tool_calls'] });

const toolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1, 'tool name is empty'),
    description: z.string().default(''),
    parameters: z.record(z.string(), z.unknown()),
  }),
});

const conversationSchema = z
  .object({ messages: z.array(messageSchema).min(1, 'messages is empty'), tools: z.array(toolSchema).default([]) })
  .refine((c) => c.messages[0]?.role !== 'assistant', { message: 'the first message must be system or user, not assistant', path: ['messages', 0, 'role'] })
  .refine((c) => c.messages.some((m) => m.role === 'assistant'), { message: 'no assistant message: nothing to train on', path: ['messages'] });

/** One bad line of a JSONL file. */
export interface JsonlProblem {
  /** 1-based line number in the file. */
  line: number;
  /** What is wrong, with the JSON path of the bad field. */
  message: string;
}

/** Thrown by readChatJsonl; `problems` lists every bad line. */
export class ChatJsonlError extends Error {
  constructor(
    readonly source: string,
    readonly problems: JsonlProblem[],
  ) {
    const shown = problems.slice(0, 10).map((p) => `  line ${p.line}: ${p.message}`);
    const more = problems.length > 10 ? [`  … and ${problems.length - 10} more`] : [];
    super([`${source}: ${problems.length} bad line${problems.length === 1 ? '' : 's'} in the chat JSONL; fix or remove them:`, ...shown, ...more].join('\n'));
    this.name = 'ChatJsonlError';
  }
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

/** Parses every non-blank line; returns the good conversations and the bad lines, never throws. */
export function parseChatJsonl(text: string): { conversations: ChatConversation[]; problems: JsonlProblem[] } {
  const conversations: ChatConversation[] = [];
  const problems: JsonlProblem[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      problems.push({ line: i + 1, message: `not valid JSON (${e instanceof Error ? e.message : String(e)})` });
      return;
    }
    const result = conversationSchema.safeParse(value);
    if (!result.success) {
      const issues = result.error.issues.slice(0, 3).map((issue) => `${pathText(issue.path) || '(line)'}: ${issue.message}`);
      problems.push({ line: i + 1, message: issues.join('; ') });
      return;
    }
    conversations.push({ messages: result.data.messages as ChatMessage[], tools: result.data.tools.map((t) => ({ type: 'function', function: { ...t.function, parameters: t.function.parameters as JsonSchema } })) });
  });
  return { conversations, problems };
}

/** Reads a chat JSONL file; throws a ChatJsonlError naming every bad line (source names the file in the message). */
export function readChatJsonl(text: string, source = 'chat JSONL'): ChatConversation[] {
  const { conversations, problems } = parseChatJsonl(text);
  if (problems.length > 0) throw new ChatJsonlError(source, problems);
  return conversations;
}
