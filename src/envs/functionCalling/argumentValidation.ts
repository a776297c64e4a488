// Validates a call against the offered tool's JSON schema before the environment "executes" it.
// This is about whether the call can run at all (the schema), not whether it is the right call
// (the ground truth, see bfclChecker.ts). Messages say what is wrong and what to send instead.
import type { JsonSchema, ToolSpec } from '../types';
import { kindMatchesType, kindOf } from './bfclChecker';
import type { ScoredCall } from './types';

const MAX_NAME_ECHO = 80; // characters of a model-written name quoted back in a message
const MAX_DEPTH = 8; // nested schemas deeper than this are not descended into

function short(text: string): string {
  return text.length > MAX_NAME_ECHO ? `${text.slice(0, MAX_NAME_ECHO)}…` : text;
}

function validateValue(path: string, schema: JsonSchema, value: unknown, errors: string[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  const kind = kindOf(value);
  if (schema.type !== undefined && !kindMatchesType(schema.type, kind)) {
    errors.push(`argument "${short(path)}" must be of type ${schema.type}, got ${kind}`);
    return;
  }
  if (schema.enum !== undefined && !schema.enum.some((e) => e === value)) {
    errors.push(`argument "${short(path)}" must be one of ${JSON.stringify(schema.enum)}, got ${short(JSON.stringify(value) ?? String(value))}`);
    return;
  }
  if (kind === 'array' && schema.items !== undefined) {
    const items = value as unknown[];
    for (let i = 0; i < items.length && errors.length < 10; i++) validateValue(`${path}[${i}]`, schema.items, items[i], errors, depth + 1);
  }
  if (kind === 'object' && schema.properties !== undefined) {
    validateObject(path, schema, value as Record<string, unknown>, errors, depth + 1);
  }
}

function validateObject(path: string, schema: JsonSchema, value: Record<string, unknown>, errors: string[], depth: number): void {
  const properties = schema.properties ?? {};
  const prefix = path === '' ? '' : `${path}.`;
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(value, name)) errors.push(`missing required argument "${prefix}${name}"`);
  }
  for (const [name, v] of Object.entries(value)) {
    // hasOwn: a name like "constructor" must not resolve to Object.prototype members.
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (property === undefined) {
      if (schema.additionalProperties !== true) {
        const known = Object.keys(properties);
        errors.push(`unknown argument "${short(prefix + name)}"; accepted: ${known.length > 0 ? known.join(', ') : 'none'}`);
      }
      continue;
    }
    validateValue(prefix + name, property, v, errors, depth);
    if (errors.length >= 10) return;
  }
}

/** Outcome of validating one call against the offered tools. */
export interface CallValidation {
  /** The offered function when the name is known. */
  fn?: ToolSpec['function'];
  /** Problems found (empty when the call can run). */
  errors: string[];
}

/** Checks the tool exists, required arguments are present, no unknown ones, types and enums match. */
export function validateCall(tools: ToolSpec[], call: ScoredCall): CallValidation {
  const fn = tools.find((t) => t.function.name === call.name)?.function;
  if (fn === undefined) {
    const names = tools.map((t) => t.function.name);
    return { errors: [`unknown tool "${short(call.name)}"; available tools: ${names.length > 0 ? names.join(', ') : 'none'}`] };
  }
  const errors: string[] = [];
  validateObject('', fn.parameters, call.arguments, errors, 0);
  return { fn, errors };
}
