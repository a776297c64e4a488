// Checks tool-call arguments against the tool's JSON schema (the subset our specs use) and returns
// the first problem as a message the model can act on. Never throws.

import type { JsonSchema } from '../types';

const MAX_ECHO = 60; // characters of a bad value quoted back in an error

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}

function echo(value: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > MAX_ECHO ? `${s.slice(0, MAX_ECHO)}…` : s;
}

function checkValue(value: unknown, schema: JsonSchema, path: string): string | null {
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return `"${path}" must be a string, got ${describe(value)}`;
      break;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `"${path}" must be an integer, got ${echo(value)}`;
      break;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `"${path}" must be a number, got ${echo(value)}`;
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return `"${path}" must be true or false, got ${echo(value)}`;
      break;
    case 'array': {
      if (!Array.isArray(value)) return `"${path}" must be an array, got ${describe(value)}`;
      if (schema.items) {
        for (let i = 0; i < value.length; i++) {
          const problem = checkValue(value[i], schema.items, `${path}[${i}]`);
          if (problem) return problem;
        }
      }
      break;
    }
    case 'object':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return `"${path}" must be an object, got ${describe(value)}`;
      break;
    default:
      break;
  }
  if (schema.enum && !schema.enum.includes(value as string | number | boolean)) {
    return `"${path}" must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}; got ${echo(value)}`;
  }
  return null;
}

/** Returns null when `args` fits `schema` (an object schema), else what is wrong and how to fix it. */
export function validateArguments(args: Record<string, unknown>, schema: JsonSchema): string | null {
  const properties = schema.properties ?? {};
  for (const name of schema.required ?? []) {
    if (!(name in args)) return `missing required argument "${name}"; required: ${(schema.required ?? []).join(', ')}`;
  }
  for (const [name, value] of Object.entries(args)) {
    const propSchema = properties[name];
    if (!propSchema) {
      if (schema.additionalProperties === false) {
        return `unexpected argument "${name}"; allowed arguments: ${Object.keys(properties).join(', ') || '(none)'}`;
      }
      continue;
    }
    const problem = checkValue(value, propSchema, name);
    if (problem) return problem;
  }
  return null;
}
