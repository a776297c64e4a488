// Inputs for the property-based fuzz suite (fast-check): model replies with and without tool calls,
// JSON of any shape and depth, byte soup. Every suite runs with a fixed seed (FUZZ_SEED, or the
// TABFORGE_FUZZ_SEED environment variable to explore another one) and ≥ FUZZ_RUNS cases per target.
import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '../util/limits';

/** The seed of every property (fast-check prints it with a counterexample; set TABFORGE_FUZZ_SEED to replay another). */
export const FUZZ_SEED = Number(process.env.TABFORGE_FUZZ_SEED ?? 20_240_613);
/** Cases per target. */
export const FUZZ_RUNS = 10_000;
/** fast-check parameters for one target: seeded, FUZZ_RUNS cases, counterexamples shrunk. */
export const fuzzParams = (offset = 0): fc.Parameters<unknown> => ({ seed: FUZZ_SEED + offset, numRuns: FUZZ_RUNS, endOnFailure: true });

/** Nested arrays/objects exactly `depth` levels deep around a leaf (iterative: any depth). */
export function nestedValue(depth: number, leaf: unknown = 1, objectEvery = 2): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % objectEvery === 0 ? [v] : { k: v };
  return v;
}

/** JSON text nested `depth` levels deep (built as text: a 100 000-deep value is cheap this way). */
export function nestedJsonText(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

/** Strings that matter to our parsers: tags, JSON punctuation, control and surrogate characters. */
const TOKENS = [
  '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<|im_end|>', '<think>', '{', '}', '[', ']', '"', ':', ',',
  '\\', 'null', 'true', '1e999', '-0', 'NaN', '{"name": ', '"arguments": ', '"parameters": ', '\n', ' ', '🙂', '\u202e', '\ud800',
  '\u0000', '\uFEFF', 'ß', '中文', '__proto__', 'constructor',
];

/** Text made of tokens and random characters. */
export const soup = (): fc.Arbitrary<string> =>
  fc.array(fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 40 }).map((parts) => parts.join(''));

/** JSON values of any kind, sometimes nested past the depth limit. */
export const anyJson = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 6 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 * MAX_JSON_DEPTH }).map((d) => nestedValue(d)) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, '', [], {}, -0, 1e308, '\ud800', { __proto__: 1 }, { constructor: 'x' }) },
  );

/** One `<tool_call>` block: a well-formed call to one of `names` (or another name) with any arguments (often named from `params`), or a broken one. */
export const toolCallBlock = (names: readonly string[], params: readonly string[] = []): fc.Arbitrary<string> => {
  const name = names.length > 0 ? fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 });
  const param = fc.oneof(fc.constantFrom(...params, 'code', 'city', 'order_id', 'user_id', 'reason', 'x'), fc.string({ maxLength: 6 }));
  const args = fc.oneof(fc.dictionary(param, anyJson(), { maxKeys: 4 }), anyJson());
  const wellFormed = fc.record({ name, arguments: args }).map((c) => JSON.stringify(c));
  const asString = fc.record({ name, arguments: args }).map((c) => JSON.stringify({ name: c.name, arguments: JSON.stringify(c.arguments) }));
  // Up to 2 000 levels: past MAX_JSON_DEPTH every depth takes the same path (100 000 deep: deepInput.test.ts).
  const deep = fc.tuple(name, param, fc.integer({ min: 1, max: 2_000 })).map(([n, p, d]) => `{"name": ${JSON.stringify(n)}, "arguments": {${JSON.stringify(p)}: ${nestedJsonText(d)}}}`);
  const body = fc.oneof({ weight: 5, arbitrary: wellFormed }, { weight: 1, arbitrary: asString }, { weight: 1, arbitrary: deep }, { weight: 2, arbitrary: soup() });
  return fc.tuple(body, fc.boolean(), fc.boolean()).map(([b, open, close]) => `${open ? '<tool_call>' : ''}\n${b}\n${close || !open ? '</tool_call>' : ''}`);
};

/** A model reply: prose and tool-call blocks (calling `names` with `params` most of the time) in any order. */
export const reply = (names: readonly string[], params: readonly string[] = []): fc.Arbitrary<string> =>
  fc.array(fc.oneof({ weight: 3, arbitrary: toolCallBlock(names, params) }, { weight: 2, arbitrary: soup() }, { weight: 1, arbitrary: fc.string({ maxLength: 30 }) }), { maxLength: 4 }).map((parts) => parts.join(''));

/** True for an error a parser may throw on bad input: a message, not a crash (TypeError, RangeError …). */
export function isCleanError(e: unknown): boolean {
  if (!(e instanceof Error) || e.message.length === 0) return false;
  return !(e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError || e.constructor === SyntaxError);
}

/**
 * Runs a parser: its value, or undefined when it threw a clean error (of class `allowed`, when
 * given). Anything else is rethrown. Check the value outside: an assertion failing inside would
 * look like a clean error.
 */
export function attempt<T>(parse: () => T, allowed?: abstract new (...args: never[]) => Error): T | undefined {
  try {
    return parse();
  } catch (e) {
    if ((allowed !== undefined && !(e instanceof allowed)) || !isCleanError(e)) throw e;
    return undefined;
  }
}
