// Parses assistant text in Qwen3's tool-call format:
//   optional prose … <tool_call>{"name": "f", "arguments": {...}}</tool_call> …
// Never throws: anything malformed becomes a ToolCallParseError that says exactly what is wrong,
// so environments can hand it back to the model as an observation. Linear time in the text length
// (tag positions are cached), and at most MAX_ERRORS errors are listed. Arguments nested deeper than
// MAX_JSON_DEPTH are refused here, so nothing downstream (validation, checker, rendering) meets them.
import { MAX_JSON_DEPTH, tooDeep, tooDeepMessage } from '../util/limits';

/** One function call the assistant asked for. */
export interface ToolCall {
  name: string;
  /** Parsed JSON object of arguments (`{}` when the model sent none). */
  arguments: Record<string, unknown>;
}

export type ToolCallErrorKind =
  | 'unclosed-tag' // <tool_call> without </tool_call>
  | 'stray-close-tag' // </tool_call> without an opening tag
  | 'invalid-json' // body is not JSON
  | 'not-an-object' // body is JSON but not an object
  | 'missing-name' // no string "name"
  | 'bad-arguments' // "arguments" present but not an object (or a JSON string of one)
  | 'too-many-errors'; // the list was cut at MAX_ERRORS

export interface ToolCallParseError {
  kind: ToolCallErrorKind;
  /** Index of the offending <tool_call> block (0-based), or -1 when not tied to a block. */
  index: number;
  /** Human-readable message naming the problem, suitable as a tool observation. */
  message: string;
}

export interface ParsedAssistantMessage {
  /** Text outside the tool-call blocks, trimmed (the "content" of the message). */
  content: string;
  /** Calls that parsed cleanly, in order. */
  calls: ToolCall[];
  /** One entry per malformed block (at most MAX_ERRORS, then one 'too-many-errors'). */
  errors: ToolCallParseError[];
  /** True when the text held at least one <tool_call> tag (well-formed or not). */
  attemptedCall: boolean;
}

export const OPEN = '<tool_call>';
export const CLOSE = '</tool_call>';
const MAX_ECHO = 200; // characters of a bad body quoted back in an error message
export const MAX_ERRORS = 32;

function excerpt(s: string): string {
  const t = s.trim();
  return t.length > MAX_ECHO ? `${t.slice(0, MAX_ECHO)}…` : t;
}

function parseBody(body: string, index: number): ToolCall | ToolCallParseError {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { kind: 'invalid-json', index, message: `tool call ${index + 1}: body is not valid JSON (${why}): ${excerpt(body)}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'not-an-object', index, message: `tool call ${index + 1}: expected a JSON object {"name": …, "arguments": {…}}` };
  }
  const obj = value as Record<string, unknown>;
  if (typeof obj.name !== 'string' || obj.name.length === 0) {
    return { kind: 'missing-name', index, message: `tool call ${index + 1}: missing string field "name"` };
  }
  let args: unknown = obj.arguments ?? obj.parameters ?? {};
  // Some models emit arguments as a JSON-encoded string; accept it when it decodes to an object.
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return { kind: 'bad-arguments', index, message: `tool call ${index + 1} (${obj.name}): "arguments" is a string that is not JSON` };
    }
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return { kind: 'bad-arguments', index, message: `tool call ${index + 1} (${obj.name}): "arguments" must be a JSON object` };
  }
  if (tooDeep(args, MAX_JSON_DEPTH)) {
    return { kind: 'bad-arguments', index, message: `tool call ${index + 1} (${obj.name}): ${tooDeepMessage('"arguments"')}` };
  }
  return { name: obj.name, arguments: args as Record<string, unknown> };
}

/** Position of the next `tag` at or after `from`, remembered so repeated lookups stay linear. */
class TagFinder {
  private at = -2;
  constructor(
    private readonly text: string,
    private readonly tag: string,
  ) {}
  next(from: number): number {
    if (this.at === -1) return -1;
    if (this.at < from) this.at = this.text.indexOf(this.tag, from);
    return this.at;
  }
}

/** Splits assistant text into prose, well-formed calls and precise errors. Total: never throws. */
export function parseToolCalls(text: string): ParsedAssistantMessage {
  const calls: ToolCall[] = [];
  const errors: ToolCallParseError[] = [];
  const prose: string[] = [];
  const opens = new TagFinder(text, OPEN);
  const closes = new TagFinder(text, CLOSE);
  let pos = 0;
  let index = 0;
  let attemptedCall = false;
  const fail = (e: ToolCallParseError) => {
    if (errors.length < MAX_ERRORS) errors.push(e);
    else if (errors.length === MAX_ERRORS) errors.push({ kind: 'too-many-errors', index: -1, message: `more than ${MAX_ERRORS} malformed tool-call tags; the rest are not listed` });
  };
  for (;;) {
    const open = opens.next(pos);
    const strayClose = closes.next(pos);
    if (strayClose !== -1 && (open === -1 || strayClose < open)) {
      attemptedCall = true;
      fail({ kind: 'stray-close-tag', index: -1, message: `found ${CLOSE} without a matching ${OPEN}` });
      prose.push(text.slice(pos, strayClose));
      pos = strayClose + CLOSE.length;
      continue;
    }
    if (open === -1) {
      prose.push(text.slice(pos));
      break;
    }
    attemptedCall = true;
    prose.push(text.slice(pos, open));
    const bodyStart = open + OPEN.length;
    const close = closes.next(bodyStart);
    const nextOpen = opens.next(bodyStart);
    if (close === -1 || (nextOpen !== -1 && nextOpen < close)) {
      fail({ kind: 'unclosed-tag', index, message: `tool call ${index + 1}: ${OPEN} is never closed with ${CLOSE}` });
      index++;
      if (nextOpen === -1) break;
      pos = nextOpen;
      continue;
    }
    const parsed = parseBody(text.slice(bodyStart, close), index);
    if ('kind' in parsed) fail(parsed);
    else calls.push(parsed);
    index++;
    pos = close + CLOSE.length;
  }
  return { content: prose.join('').trim(), calls, errors, attemptedCall };
}

/** Nesting pythonStyleJson renders before it calls the value cyclic (JSON.parse output is never cyclic). */
const MAX_RENDER_DEPTH = 1_000_000;

/**
 * JSON the way Python's json.dumps writes it by default (", " and ": " separators, non-ASCII kept),
 * which is what Qwen3's chat template (`tojson`) produces inside <tool_call> blocks. `<` and `>`
 * are written as \u003c / \u003e so an argument can never contain a tag the parser would split on.
 * Iterative, so any depth JSON.parse accepts renders (no stack overflow); a cyclic value (never
 * JSON) is refused with an error once it passes MAX_RENDER_DEPTH levels.
 */
export function pythonStyleJson(value: unknown): string {
  const esc = (s: string) => JSON.stringify(s).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
  const scalar = (v: unknown): string | null => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'string') return esc(v);
    if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'object') return null;
    return 'null';
  };
  // Work items: a value to write, or literal text (separators, closing brackets, keys).
  const out: string[] = [];
  const stack: ({ text: string } | { value: unknown; depth: number })[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const s = scalar(item.value);
    if (s !== null) {
      out.push(s);
      continue;
    }
    if (item.depth >= MAX_RENDER_DEPTH) throw new Error(`pythonStyleJson: the value is nested more than ${MAX_RENDER_DEPTH} levels deep (a cycle?); tool-call arguments must be JSON data`);
    const depth = item.depth + 1;
    const parts: ({ text: string } | { value: unknown; depth: number })[] = [];
    if (Array.isArray(item.value)) {
      parts.push({ text: '[' });
      item.value.forEach((x, i) => {
        if (i > 0) parts.push({ text: ', ' });
        parts.push({ value: x, depth });
      });
      parts.push({ text: ']' });
    } else {
      parts.push({ text: '{' });
      Object.entries(item.value as Record<string, unknown>).filter(([, x]) => x !== undefined).forEach(([k, x], i) => {
        parts.push({ text: `${i > 0 ? ', ' : ''}${esc(k)}: ` }, { value: x, depth });
      });
      parts.push({ text: '}' });
    }
    for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]);
  }
  return out.join('');
}

/** Renders calls the way Qwen3's chat template writes them (used by expert solvers and tests). */
export function formatToolCalls(calls: ToolCall[]): string {
  return calls.map((c) => `${OPEN}\n${pythonStyleJson({ name: c.name, arguments: c.arguments })}\n${CLOSE}`).join('\n');
}

/**
 * Where the (limit+1)-th call tag (<tool_call> or </tool_call>) starts, or null when the text has at
 * most `limit` of them. Environments bound what they hand to parseToolCalls with it: the parser
 * rescans the rest of the text per unmatched tag, so a degenerate run of tags would take minutes.
 */
export function callTagOverflow(text: string, limit: number): number | null {
  const tags = /<\/?tool_call>/g;
  for (let n = 0; n <= limit; n++) {
    const match = tags.exec(text);
    if (match === null) return null;
    if (n === limit) return match.index;
  }
  return null;
}
