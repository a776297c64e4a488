// Shape of one catalogue API: its tool schema, a sampler of concrete user requests with their
// BFCL-style possible answer, and a deterministic simulator of its result.
import type { JsonSchema, ToolSpec } from '../../types';
import type { Rng } from '../../../util/rng';
import type { Split } from '../../splits';
import { pyEqual } from '../bfclChecker';
import type { AcceptableValues } from '../types';

/** Topic of an API; irrelevance tasks offer only APIs of other domains than the request's. */
export type Domain = 'weather' | 'travel' | 'maths' | 'units' | 'finance' | 'files' | 'calendar' | 'messaging' | 'food' | 'language' | 'knowledge';

/** One concrete request for one API. */
export interface Scenario {
  /** Arguments the expert sends (optional parameters the user did not mention are left out). */
  args: Record<string, unknown>;
  /** BFCL possible answer: acceptable values per parameter; "" = may be omitted. */
  answer: Record<string, AcceptableValues>;
  /** The request as one sentence; starts with a common word so it can be lower-cased when joined. */
  request: string;
}

export interface CatalogueFunction {
  /** Topic, used to pick distractors and irrelevance tool sets. */
  domain: Domain;
  /** OpenAI-style schema offered to the model. */
  tool: ToolSpec;
  /** Samples a request the user might make, with the call that fulfils it, from `split`'s values and phrasings (pools.ts). */
  sample(rng: Rng, split: Split): Scenario;
  /** Deterministic made-up result for already-validated arguments. */
  simulate(args: Record<string, unknown>, rng: Rng): unknown;
}

/** Builds an OpenAI-style tool spec. */
export function tool(name: string, description: string, properties: Record<string, JsonSchema>, required: string[]): ToolSpec {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required } } };
}

/** Collects args and possible answer parameter by parameter. */
export class ScenarioBuilder {
  readonly args: Record<string, unknown> = {};
  readonly answer: Record<string, AcceptableValues> = {};

  /** A parameter the request always states. `accepted` lists equivalent spellings (value first). */
  required(name: string, value: unknown, accepted: AcceptableValues = [value]): this {
    this.args[name] = value;
    this.answer[name] = accepted;
    return this;
  }

  /** An optional parameter: `mentioned` null means the user left it to the default (omission accepted). */
  optional(name: string, mentioned: unknown, defaultValue: unknown, accepted?: AcceptableValues): this {
    if (mentioned === null) {
      this.answer[name] = defaultValue === undefined ? [''] : [defaultValue, ''];
      return this;
    }
    this.args[name] = mentioned;
    const spellings = accepted ?? [mentioned];
    // Saying the default out loud still leaves the parameter omittable.
    this.answer[name] = pyEqual(mentioned, defaultValue) ? [...spellings, ''] : spellings;
    return this;
  }

  done(request: string): Scenario {
    return { args: this.args, answer: this.answer, request };
  }
}

/** Every ordering of a short list (BFCL compares lists in order; a user's "A and B" allows both). */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [items.slice()];
  const out: T[][] = [];
  items.forEach((item, i) => {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) out.push([item, ...rest]);
  });
  return out;
}

/** "a", "a and b", "a, b and c". */
export function listPhrase(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
