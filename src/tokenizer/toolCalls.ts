// Parses assistant text in Qwen3's tool-call format:
//   optional prose … <tool_call>{"name": "f", "arguments": {...}}</tool_call> …
// Never throws: anything malformed becomes a ToolCallParseError that says exactly what is wrong,
// so environments can hand it back to the model as an observation.

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
  | 'bad-arguments'; // "arguments" present but not an object (or a JSON string of one)

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
  /** One entry per malformed block. */
  errors: ToolCallParseError[];
  /** True when the text held at least one <tool_call> tag (well-formed or not). */
  attemptedCall: boolean;
}

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
const MAX_ECHO = 200; // characters of a bad body quoted back in an error message

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

/** Splits assistant text into prose, well-formed calls and precise errors. Total: never throws. */
export function parseToolCalls(text: string): ParsedAssistantMessage {
  const calls: ToolCall[] = [];
  const errors: ToolCallParseError[] = [];
  const prose: string[] = [];
  let pos = 0;
  let index = 0;
  let attemptedCall = false;
  for (;;) {
    const open = text.indexOf(OPEN, pos);
    const strayClose = text.indexOf(CLOSE, pos);
    if (strayClose !== -1 && (open === -1 || strayClose < open)) {
      attemptedCall = true;
      errors.push({ kind: 'stray-close-tag', index: -1, message: `found ${CLOSE} without a matching ${OPEN}` });
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
    const close = text.indexOf(CLOSE, bodyStart);
    const nextOpen = text.indexOf(OPEN, bodyStart);
    if (close === -1 || (nextOpen !== -1 && nextOpen < close)) {
      errors.push({ kind: 'unclosed-tag', index, message: `tool call ${index + 1}: ${OPEN} is never closed with ${CLOSE}` });
      index++;
      if (nextOpen === -1) break;
      pos = nextOpen;
      continue;
    }
    const parsed = parseBody(text.slice(bodyStart, close), index);
    if ('kind' in parsed) errors.push(parsed);
    else calls.push(parsed);
    index++;
    pos = close + CLOSE.length;
  }
  return { content: prose.join('').trim(), calls, errors, attemptedCall };
}

/** Renders calls the way Qwen3's chat template writes them (used by expert solvers and tests). */
export function formatToolCalls(calls: ToolCall[]): string {
  return calls.map((c) => `${OPEN}\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n${CLOSE}`).join('\n');
}
