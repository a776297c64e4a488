// Reads Berkeley Function-Calling Leaderboard files as published (v3 and v4 share the format):
// question files are JSON lines {id, question, function}; possible-answer files are JSON lines
// {id, ground_truth: [{fn: {param: [acceptable values]}}]}. Items become FunctionCallingTasks so
// the same checker (and even the same environment) serves generated and BFCL tasks.
// Errors here are the user's (wrong file, bad line): they throw BfclFormatError naming file:line.
import { MAX_JSON_DEPTH, tooDeep, tooDeepMessage } from '../../util/limits';
import type { ChatMessage, JsonSchema, ToolSpec } from '../types';
import { SYSTEM_PROMPT } from './generateTask';
import { hashString } from '../../util/seeds';
import type { CheckKind, FunctionCallingTask, GroundTruthCall } from './types';

/** A problem in a BFCL input file; the message names the file and line and says what to fix. */
export class BfclFormatError extends Error {
  override name = 'BfclFormatError';
}

/** One parsed JSON line with its 1-based line number. */
export interface JsonLine {
  /** 1-based line number in the file. */
  line: number;
  /** The parsed JSON value. */
  value: unknown;
}

/** Parses JSON lines, skipping blank lines and a leading UTF-8 BOM; a bad or too deeply nested line throws with `file:line`. */
export function parseJsonLines(text: string, file: string): JsonLine[] {
  const out: JsonLine[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new BfclFormatError(`${file}:${i + 1}: not valid JSON (${why}); each line must hold exactly one JSON object`);
    }
    // Checked here, once, so the schema converter and the checker never recurse into a 100 000-deep value.
    if (tooDeep(value, MAX_JSON_DEPTH)) throw new BfclFormatError(`${file}:${i + 1}: ${tooDeepMessage('the line')}`);
    out.push({ line: i + 1, value });
  });
  return out;
}

/** Category from a BFCL id: `simple_0` → simple, `live_simple_0-0-0` → live_simple, `simple_python_3` → simple_python. */
export function bfclCategory(id: string): string | null {
  const m = /^(.+?)_\d+(?:-\d+)*$/.exec(id);
  return m ? m[1] : null;
}

// Categories scored by execution, state or other languages' type converters, not by the Python AST checker.
const UNSUPPORTED_PHRASES = ['multi_turn', 'web_search', 'format_sensitivity'];
const UNSUPPORTED_WORDS = ['memory', 'java', 'javascript', 'exec', 'executable', 'rest', 'sql', 'chatable'];

/** Which checker applies to a category, or null when the category is not AST-checkable here. */
export function checkKindOf(category: string): CheckKind | null {
  const words = category.split('_');
  if (UNSUPPORTED_PHRASES.some((p) => category.includes(p)) || words.some((w) => UNSUPPORTED_WORDS.includes(w))) return null;
  if (words.includes('irrelevance')) return 'irrelevance';
  if (words.includes('relevance')) return 'relevance';
  if (words.includes('parallel')) return 'parallel';
  if (words.includes('multiple')) return 'multiple';
  if (words.includes('simple')) return 'simple';
  return null;
}

const TYPE_MAP: Record<string, JsonSchema['type'] | 'any'> = {
  integer: 'integer',
  int: 'integer',
  float: 'number',
  number: 'number',
  string: 'string',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  tuple: 'array',
  dict: 'object',
  object: 'object',
  any: 'any',
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Converts one BFCL parameter schema to JSON schema (dict→object, float→number, tuple→array, any→untyped). */
export function bfclSchemaToJsonSchema(raw: unknown, where: string): JsonSchema {
  if (!isRecord(raw)) throw new BfclFormatError(`${where}: a parameter schema must be an object like {"type": "string", "description": "..."}`);
  const out: JsonSchema = {};
  if (raw.type !== undefined) {
    const mapped = typeof raw.type === 'string' ? TYPE_MAP[raw.type] : undefined;
    if (mapped === undefined) {
      throw new BfclFormatError(`${where}: unsupported type ${JSON.stringify(raw.type)}; supported BFCL types are ${Object.keys(TYPE_MAP).join(', ')} (Java/JavaScript categories are not supported)`);
    }
    if (mapped !== 'any') out.type = mapped;
  }
  if (typeof raw.description === 'string') out.description = raw.description;
  if (Array.isArray(raw.enum)) out.enum = raw.enum.filter((e): e is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof e));
  if (raw.default !== undefined) out.default = raw.default;
  if (raw.items !== undefined) out.items = bfclSchemaToJsonSchema(raw.items, `${where}.items`);
  if (isRecord(raw.properties)) {
    out.properties = {};
    for (const [k, v] of Object.entries(raw.properties)) out.properties[k] = bfclSchemaToJsonSchema(v, `${where}.${k}`);
  }
  if (Array.isArray(raw.required)) out.required = raw.required.filter((r): r is string => typeof r === 'string');
  return out;
}

function toToolSpec(raw: unknown, where: string): ToolSpec {
  if (!isRecord(raw) || typeof raw.name !== 'string') throw new BfclFormatError(`${where}: each function needs a string "name"`);
  const fnWhere = `${where} (function ${raw.name})`;
  const parameters = raw.parameters === undefined ? { type: 'object' as const, properties: {} } : bfclSchemaToJsonSchema(raw.parameters, `${fnWhere} parameters`);
  parameters.type = 'object';
  parameters.properties ??= {};
  parameters.required ??= [];
  return { type: 'function', function: { name: raw.name, description: typeof raw.description === 'string' ? raw.description : '', parameters } };
}

function toMessages(question: unknown, where: string): ChatMessage[] {
  if (typeof question === 'string') return [{ role: 'user', content: question }];
  if (!Array.isArray(question)) throw new BfclFormatError(`${where}: "question" must be a list of turns (each a list of {role, content} messages) or a string`);
  // v3/v4: a list of turns, each a list of messages; older files: a flat list of messages.
  const flat = question.flatMap((turn) => (Array.isArray(turn) ? turn : [turn]));
  return flat.map((m, i) => {
    if (!isRecord(m) || typeof m.content !== 'string' || !['system', 'user', 'assistant'].includes(String(m.role))) {
      throw new BfclFormatError(`${where}: message ${i + 1} of "question" must be {"role": "user"|"system"|"assistant", "content": "..."}`);
    }
    return { role: m.role as ChatMessage['role'], content: m.content };
  });
}

/** One question item of a BFCL file. */
export interface BfclQuestion {
  /** Item id as in the file (e.g. simple_0). */
  id: string;
  /** Id prefix (e.g. simple, live_multiple). */
  category: string;
  /** Checker that applies. */
  check: CheckKind;
  /** Conversation before the model answers (system messages included). */
  messages: ChatMessage[];
  /** Offered functions converted to JSON-schema tools. */
  tools: ToolSpec[];
}

/** Parses a question file; unsupported categories throw with the list of supported ones. */
export function parseBfclQuestions(text: string, file: string): BfclQuestion[] {
  return parseJsonLines(text, file).map(({ line, value }) => {
    const where = `${file}:${line}`;
    if (!isRecord(value) || typeof value.id !== 'string') throw new BfclFormatError(`${where}: expected an object with a string "id"`);
    const category = bfclCategory(value.id);
    if (category === null) throw new BfclFormatError(`${where}: id "${value.id}" does not end in _<number> (e.g. simple_0, live_simple_0-0-0), so its category is unknown`);
    const check = checkKindOf(category);
    if (check === null) {
      throw new BfclFormatError(`${where}: category "${category}" is not AST-checkable here; use simple, multiple, parallel, parallel_multiple, irrelevance or their live_ variants (Python)`);
    }
    const functions = Array.isArray(value.function) ? value.function : value.function === undefined ? [] : [value.function];
    return { id: value.id, category, check, messages: toMessages(value.question, where), tools: functions.map((f, i) => toToolSpec(f, `${where} function ${i + 1}`)) };
  });
}

function toGroundTruth(raw: unknown, where: string): GroundTruthCall[] {
  // v3/v4: a list of single-key objects; very old files used one object with one key per call.
  const entries = Array.isArray(raw) ? raw : isRecord(raw) ? Object.entries(raw).map(([k, v]) => ({ [k]: v })) : null;
  if (entries === null) throw new BfclFormatError(`${where}: "ground_truth" must be a list like [{"function_name": {"param": [values]}}]`);
  return entries.map((call, i) => {
    if (!isRecord(call) || Object.keys(call).length !== 1 || !isRecord(Object.values(call)[0])) {
      throw new BfclFormatError(`${where}: ground_truth[${i}] must be {"function_name": {"param": [acceptable values]}}`);
    }
    const [name, params] = Object.entries(call)[0] as [string, Record<string, unknown>];
    const acceptable: Record<string, unknown[]> = {};
    for (const [p, v] of Object.entries(params)) acceptable[p] = Array.isArray(v) ? v : [v];
    return { [name]: acceptable };
  });
}

/** Parses a possible-answer file into id → expected calls. */
export function parseBfclAnswers(text: string, file: string): Map<string, GroundTruthCall[]> {
  const out = new Map<string, GroundTruthCall[]>();
  for (const { line, value } of parseJsonLines(text, file)) {
    const where = `${file}:${line}`;
    if (!isRecord(value) || typeof value.id !== 'string') throw new BfclFormatError(`${where}: expected an object with a string "id"`);
    if (out.has(value.id)) throw new BfclFormatError(`${where}: id "${value.id}" appears twice; each id must have one possible answer`);
    out.set(value.id, toGroundTruth(value.ground_truth, where));
  }
  return out;
}

/** Joins questions with their possible answers. Items needing an answer but lacking one throw. */
export function bfclTasks(questions: BfclQuestion[], answers: Map<string, GroundTruthCall[]>, answersLabel = 'the answers file'): FunctionCallingTask[] {
  const seen = new Set<string>();
  return questions.map((q) => {
    if (seen.has(q.id)) throw new BfclFormatError(`question id "${q.id}" appears twice; ids must be unique across question files`);
    seen.add(q.id);
    const needsAnswer = q.check !== 'irrelevance' && q.check !== 'relevance';
    const groundTruth = needsAnswer ? answers.get(q.id) : [];
    if (groundTruth === undefined) throw new BfclFormatError(`no possible answer for id "${q.id}" in ${answersLabel}; pass the matching possible_answer file with --answers`);
    const leadingSystem = q.messages[0]?.role === 'system' ? q.messages[0].content : null;
    return {
      family: 'function-calling',
      id: q.id,
      category: q.category,
      check: q.check,
      system: leadingSystem ?? SYSTEM_PROMPT,
      question: leadingSystem === null ? q.messages : q.messages.slice(1),
      tools: q.tools,
      groundTruth,
      resultSeed: hashString(q.id),
      singleTurn: false,
    };
  });
}
