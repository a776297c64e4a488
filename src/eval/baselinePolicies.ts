// Baseline policies that bound an evaluation from below: a seeded random agent and an agent that
// always breaks the tool-call format. The expert (family.expertPolicy) bounds it from above.
import { formatToolCalls } from '../tokenizer/toolCalls';
import { Rng } from '../util/rng';
import type { JsonSchema, Policy, ToolSpec } from '../envs/types';

const WORDS = ['the', 'order', 'please', 'value', 'result', 'check', 'done', 'thanks', 'yes', 'no', 'maybe', 'data', 'item', 'answer', 'now'];

/** The text the format breaker sends every turn: an opened call whose body is not JSON and never closed. */
export const BROKEN_CALL_TEXT = '<tool_call>{not json';

function randomWords(rng: Rng, min: number, max: number): string {
  return Array.from({ length: rng.int(min, max) }, () => rng.pick(WORDS)).join(' ');
}

/** A random value of roughly the schema's type (random enough to be wrong almost always). */
function randomValue(rng: Rng, schema: JsonSchema | undefined, depth = 0): unknown {
  if (schema?.enum && schema.enum.length > 0) return rng.pick(schema.enum);
  switch (schema?.type) {
    case 'integer':
      return rng.int(-5, 100);
    case 'number':
      return Math.round(rng.uniform(-5, 100) * 100) / 100;
    case 'boolean':
      return rng.next() < 0.5;
    case 'array':
      return depth > 2 ? [] : Array.from({ length: rng.int(0, 2) }, () => randomValue(rng, schema.items, depth + 1));
    case 'object':
      return depth > 2 ? {} : randomArguments(rng, schema, depth + 1);
    default:
      return randomWords(rng, 1, 3);
  }
}

function randomArguments(rng: Rng, schema: JsonSchema | undefined, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    if (rng.next() < 0.6) out[name] = randomValue(rng, prop, depth);
  }
  return out;
}

/**
 * A seeded random agent: each turn, with probability `callProbability` it calls a random offered
 * tool (or a made-up one when none is offered) with random arguments, otherwise it writes random
 * words. Always well-formed, so it scores format but little else.
 */
export function randomPolicy(seed: number, callProbability = 0.6): Policy {
  const rng = new Rng(seed);
  return async (_messages, tools: ToolSpec[]) => {
    if (rng.next() >= callProbability) return randomWords(rng, 2, 12);
    const tool = tools.length > 0 ? rng.pick(tools).function : { name: `tool_${rng.int(0, 9)}`, parameters: {} as JsonSchema };
    return formatToolCalls([{ name: tool.name, arguments: randomArguments(rng, tool.parameters) }]);
  };
}

/** An agent that emits BROKEN_CALL_TEXT every turn: its format component must be 0. */
export function formatBreakingPolicy(): Policy {
  return async () => BROKEN_CALL_TEXT;
}
