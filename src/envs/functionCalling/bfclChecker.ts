// BFCL's AST checker for one call, ported from the leaderboard's `ast_checker.py`
// (simple_function_checker and its value checkers), Python branch only:
//   name → required parameters present → each sent parameter known (in the schema AND in the
//   possible answer) → type (int accepted for float) → value in the acceptable set (strings
//   compared after standardizeString) → every expected parameter not sent must allow "".
// Besides the verdict it counts correct parameters, which the `arguments` reward component uses.
//
// JavaScript note: JSON.parse turns `5.0` into the integer 5, so "float sent for an integer
// parameter" is only detectable for non-integral values (2.5); BFCL (Python) also rejects `5.0`.
import { MAX_JSON_DEPTH, tooDeep, tooDeepMessage } from '../../util/limits';
import type { JsonSchema, ToolSpec } from '../types';
import type { AcceptableValues, GroundTruthCall, ScoredCall } from './types';

/** JSON kinds as the checker distinguishes them (integer ⊂ number). */
export type ValueKind = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null' | 'other';

/** Verdict for one call against one expected call. */
export interface CallCheck {
  /** True iff BFCL's AST checker accepts the call. */
  valid: boolean;
  /** First failing rule, worded like BFCL's messages; absent when valid. */
  error?: string;
  /** Expected parameters handled correctly (sent and accepted, or omitted where allowed). */
  paramsCorrect: number;
  /** Expected parameters plus unexpected ones the model sent (at least 1, so a call without parameters counts). */
  paramsTotal: number;
}

/** BFCL's string normalisation: drop whitespace and `,./-_*^`, lowercase, `'` → `"`. */
export function standardizeString(input: string): string {
  return input.replace(/[\s,./\-_*^]/g, '').toLowerCase().replace(/'/g, '"');
}

export function kindOf(value: unknown): ValueKind {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : Number.isFinite(value) ? 'number' : 'other';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return 'other';
}

/** Does a value of `kind` satisfy schema type `type`? Integers satisfy `number` (BFCL's int→float rule). */
export function kindMatchesType(type: NonNullable<JsonSchema['type']>, kind: ValueKind): boolean {
  if (type === 'number') return kind === 'number' || kind === 'integer';
  return type === kind;
}

/** Python `==` on JSON values (1 == 1.0, lists element-wise, dicts key-wise). */
export function pyEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => pyEqual(x, b[i]));
  }
  if (kindOf(a) === 'object' && kindOf(b) === 'object') {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = Object.keys(ao);
    if (keys.length !== Object.keys(bo).length) return false;
    return keys.every((k) => Object.hasOwn(bo, k) && pyEqual(ao[k], bo[k]));
  }
  return false;
}

function repr(value: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

function asList(values: unknown): unknown[] {
  return Array.isArray(values) ? values : [values];
}

function standardizeIfString(v: unknown): unknown {
  return typeof v === 'string' ? standardizeString(v) : v;
}

/** The type of the first non-"" acceptable value (BFCL get_possible_answer_type). */
function possibleAnswerKind(acceptable: AcceptableValues): ValueKind | null {
  for (const a of acceptable) if (a !== '') return kindOf(a);
  return null;
}

function stringChecker(param: string, value: string, acceptable: AcceptableValues): string | null {
  const wanted = acceptable.filter((a): a is string => typeof a === 'string').map(standardizeString);
  if (wanted.includes(standardizeString(value))) return null;
  return `Invalid value for parameter '${param}': ${repr(value)}. Expected one of ${repr(acceptable)}. Case insensitive.`;
}

function listChecker(param: string, value: unknown[], acceptable: AcceptableValues): string | null {
  const sent = value.map(standardizeIfString);
  for (const option of acceptable) {
    if (!Array.isArray(option)) continue;
    if (pyEqual(sent, option.map(standardizeIfString))) return null;
  }
  return `Invalid value for parameter '${param}': ${repr(value)}. Expected one of ${repr(acceptable)}.`;
}

function dictChecker(param: string, value: Record<string, unknown>, acceptable: AcceptableValues): string | null {
  let error = `Invalid value for parameter '${param}': ${repr(value)}. Expected one of ${repr(acceptable)}.`;
  for (const option of acceptable) {
    if (option === '' || kindOf(option) !== 'object') continue;
    const expected = option as Record<string, unknown>;
    let failure: string | null = null;
    for (const [key, v] of Object.entries(value)) {
      if (!Object.hasOwn(expected, key)) {
        failure = `Unexpected dict key parameter: '${key}'.`;
        break;
      }
      const wanted = asList(expected[key]).map(standardizeIfString);
      if (!wanted.some((w) => pyEqual(w, standardizeIfString(v)))) {
        failure = `Invalid value for parameter '${key}': ${repr(v)}. Expected one of ${repr(wanted)}.`;
        break;
      }
    }
    if (failure === null) {
      for (const [key, v] of Object.entries(expected)) {
        if (!Object.hasOwn(value, key) && !asList(v).includes('')) {
          failure = `Missing dict key parameter: '${key}'.`;
          break;
        }
      }
    }
    if (failure === null) return null;
    error = failure;
  }
  return error;
}

function listDictChecker(param: string, value: unknown[], acceptable: AcceptableValues): string | null {
  let error = `Invalid value for parameter '${param}': ${repr(value)}. Expected one of ${repr(acceptable)}.`;
  for (const option of acceptable) {
    if (!Array.isArray(option)) continue;
    if (option.length !== value.length) {
      error = 'Wrong number of dictionaries in the list.';
      continue;
    }
    let failure: string | null = null;
    for (let i = 0; i < value.length && failure === null; i++) {
      const item = value[i];
      failure = kindOf(item) === 'object' ? dictChecker(param, item as Record<string, unknown>, [option[i]]) : `Expected a dictionary at ${param}[${i}].`;
    }
    if (failure === null) return null;
    error = failure;
  }
  return error;
}

/** Type and value check of one sent parameter; returns BFCL's error message or null when accepted. */
export function checkParameterValue(param: string, schema: JsonSchema | undefined, value: unknown, acceptableIn: unknown): string | null {
  const acceptable = asList(acceptableIn);
  const type = schema?.type;
  const kind = kindOf(value);
  const answerKind = possibleAnswerKind(acceptable);
  // A "variable": the possible answer's type differs from the declared one (e.g. a name standing for an integer).
  let isVariable = false;
  if (type !== undefined) {
    if (answerKind !== null && !kindMatchesType(type, answerKind)) isVariable = true;
    let typeOk = kindMatchesType(type, kind);
    const itemType = schema?.items?.type;
    if (typeOk && type === 'array' && itemType !== undefined) {
      const itemsOk = (value as unknown[]).every((item) => kindMatchesType(itemType, kindOf(item)));
      // BFCL falls back to comparing the list verbatim when the item types disagree.
      if (!itemsOk) isVariable = true;
    }
    if (!typeOk && answerKind !== null && answerKind === kind) {
      isVariable = true;
      typeOk = true;
    }
    if (!typeOk) {
      return `Incorrect type for parameter '${param}'. Expected type ${type}, got ${kind}. Parameter value: ${repr(value)}.`;
    }
  }
  if (!isVariable) {
    if (kind === 'object' && (type === 'object' || type === undefined)) return dictChecker(param, value as Record<string, unknown>, acceptable);
    if (kind === 'array' && schema?.items?.type === 'object') return listDictChecker(param, value as unknown[], acceptable);
    if (kind === 'string') return stringChecker(param, value as string, acceptable);
    if (kind === 'array') return listChecker(param, value as unknown[], acceptable);
  }
  if (acceptable.some((a) => pyEqual(a, value))) return null;
  return `Invalid value for parameter '${param}': ${repr(value)}. Expected one of ${repr(acceptable)}.`;
}

/** The (single) function name and acceptable parameters of an expected call. */
export function expectedCallParts(expected: GroundTruthCall): { name: string; params: Record<string, AcceptableValues> } {
  const name = Object.keys(expected)[0] ?? '';
  const raw = expected[name];
  const params: Record<string, AcceptableValues> = {};
  if (raw && typeof raw === 'object') for (const [k, v] of Object.entries(raw)) params[k] = asList(v);
  return { name, params };
}

/**
 * Checks one call against one expected call with BFCL's rules. `fn` is the offered function of the
 * expected name (its schema gives types and required parameters); undefined when not offered.
 */
export function checkCall(fn: ToolSpec['function'] | undefined, call: ScoredCall, expected: GroundTruthCall): CallCheck {
  const { name, params: answer } = expectedCallParts(expected);
  const answerNames = Object.keys(answer);
  const sent = kindOf(call.arguments) === 'object' ? call.arguments : {};
  const sentNames = Object.keys(sent);
  const extraNames = sentNames.filter((p) => !Object.hasOwn(answer, p) || (fn !== undefined && !Object.hasOwn(fn.parameters.properties ?? {}, p)));
  const paramsTotal = Math.max(1, answerNames.length + extraNames.length);
  if (call.name !== name) {
    return { valid: false, error: `Function name '${name}' not found in model output (got '${call.name}').`, paramsCorrect: 0, paramsTotal };
  }
  // The parser and the loader refuse such values already; a direct caller gets the same answer, not a stack overflow.
  if (tooDeep(call.arguments, MAX_JSON_DEPTH) || tooDeep(expected, MAX_JSON_DEPTH + 2)) {
    return { valid: false, error: tooDeepMessage('The call or its possible answer'), paramsCorrect: 0, paramsTotal };
  }
  const properties = fn?.parameters.properties ?? {};
  const required = fn?.parameters.required ?? [];
  let firstError: string | undefined;
  const fail = (message: string) => {
    firstError ??= message;
  };
  for (const p of required) if (!Object.hasOwn(sent, p)) fail(`Missing required parameter: '${p}'.`);
  let paramsCorrect = 0;
  for (const p of sentNames) {
    if (extraNames.includes(p)) {
      fail(`Unexpected parameter: '${p}'.`);
      continue;
    }
    const error = checkParameterValue(p, properties[p], sent[p], answer[p]);
    if (error === null) paramsCorrect++;
    else fail(error);
  }
  for (const p of answerNames) {
    if (Object.hasOwn(sent, p)) continue;
    if (!answer[p].includes('')) fail(`Optional parameter '${p}' not provided and not marked as optional.`);
    else if (!required.includes(p)) paramsCorrect++;
  }
  if (answerNames.length === 0 && extraNames.length === 0) paramsCorrect = 1;
  return firstError === undefined ? { valid: true, paramsCorrect, paramsTotal } : { valid: false, error: firstError, paramsCorrect, paramsTotal };
}
