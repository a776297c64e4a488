// Conversation text → messages and highlighted pieces for the sample viewer. DOM-free.
// The demo's sample arrives as "user: …\nassistant: …" (the assistant part is raw decoded text,
// which may hold <tool_call> blocks and special tokens); content is split into plain text,
// tool-call blocks (with whether their JSON parses as a call) and special tokens.
import type { ChatMessage } from '../envs/types';

export type Role = ChatMessage['role'];

export interface ViewMessage {
  role: Role;
  content: string;
  /** Tool messages: which tool answered. */
  name?: string;
}

export type Segment =
  | { kind: 'text'; text: string }
  /** `<tool_call>…</tool_call>`; `call` when the inside is {"name": string, "arguments": object}. */
  | { kind: 'tool_call'; text: string; call?: { name: string; arguments: Record<string, unknown> }; problem?: string }
  /** `<|im_end|>` and other chat-format tokens the model emitted. */
  | { kind: 'special'; text: string };

const ROLE_LINE = /^(system|user|assistant|tool): ?/;

/** Splits "role: text" lines into messages; lines without a role prefix continue the previous message. */
export function parseSampleText(text: string): ViewMessage[] {
  const out: ViewMessage[] = [];
  for (const line of text.split('\n')) {
    const m = ROLE_LINE.exec(line);
    if (m) out.push({ role: m[1] as Role, content: line.slice(m[0].length) });
    else if (out.length > 0) out[out.length - 1].content += `\n${line}`;
    else out.push({ role: 'assistant', content: line });
  }
  return out;
}

function describeCall(inner: string): { call?: { name: string; arguments: Record<string, unknown> }; problem?: string } {
  let json: unknown;
  try {
    json = JSON.parse(inner);
  } catch {
    return { problem: 'not valid JSON' };
  }
  const o = json as { name?: unknown; arguments?: unknown };
  if (typeof o !== 'object' || o === null || typeof o.name !== 'string') return { problem: 'no "name"' };
  if (typeof o.arguments !== 'object' || o.arguments === null || Array.isArray(o.arguments)) return { problem: '"arguments" is not an object' };
  return { call: { name: o.name, arguments: o.arguments as Record<string, unknown> } };
}

const PIECES = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)|<\|[a-z_]+\|>/g;

/** Content → segments in order; an unterminated <tool_call> runs to the end (the model stopped mid-call). */
export function contentSegments(content: string): Segment[] {
  const out: Segment[] = [];
  let last = 0;
  for (const m of content.matchAll(PIECES)) {
    if (m.index > last) out.push({ kind: 'text', text: content.slice(last, m.index) });
    if (m[0].startsWith('<tool_call>')) {
      const closed = m[0].endsWith('</tool_call>');
      const info = closed ? describeCall(m[1].trim()) : { problem: 'unterminated: no </tool_call>' };
      out.push({ kind: 'tool_call', text: m[0], ...info });
    } else out.push({ kind: 'special', text: m[0] });
    last = m.index + m[0].length;
  }
  if (last < content.length) out.push({ kind: 'text', text: content.slice(last) });
  return out;
}

/** A run of whitespace too long to show as is (e.g. a model that samples 64 newlines). */
export interface BlankRun {
  newlines: number;
  chars: number;
}

/**
 * Text with long whitespace runs (≥ 3 line breaks, or ≥ 24 whitespace characters) taken out as
 * BlankRun markers, so a transcript shows "↵ × 64" instead of a tall empty bubble.
 */
export function collapseBlankRuns(text: string): (string | BlankRun)[] {
  const out: (string | BlankRun)[] = [];
  let last = 0;
  for (const m of text.matchAll(/\s{3,}/g)) {
    const newlines = (m[0].match(/\n/g) ?? []).length;
    if (newlines < 3 && m[0].length < 24) continue;
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push({ newlines, chars: m[0].length });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
