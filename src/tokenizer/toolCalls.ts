// Parses assistant text in Qwen3's tool-call format:
//   optional prose … <tool_call>{"name": "f", "arguments": {...}}</tool_call> …
// Never throws: anything malformed becomes a ToolCallParseError that says exactly what is wrong,
// so environments can hand it back to the model as an observation. Linear time in the text length
// (tag positions are cached), and at most MAX_ERRORS errors are listed.

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

/**
 * JSON the way Python's json.dumps writes it by default (", " and ": " separators, non-ASCII kept),
 * which is what Qwen3's chat template (`tojson`) produces inside <tool_call> blocks. `<` and `>`
 * are written as \u003c / \u003e so an argument can never contain a tag the parser would split on.
 */
export function pythonStyleJson(value: unknown): string {
  const esc = (s: string) => JSON.stringify(s).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
  const enc = (v: unknown): string => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'string') return esc(v);
    if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (Array.isArray(v)) return `[${v.map(enc).join(', ')}]`;
    if (typeof v === 'object') {
      return `{${Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).map(([k, x]) => `${esc(k)}: ${enc(x)}`).join(', ')}}`;
    }
    return 'null';
  };
  return enc(value);
}

/** Renders calls the way Qwen3's chat template writes them (used by expert solvers and tests). */
export function formatToolCalls(calls: ToolCall[]): string {
  return calls.map((c) => `${OPEN}\n${pythonStyleJson({ name: c.name, arguments: c.arguments })}\n${CLOSE}`).join('\n');
}
