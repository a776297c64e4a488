// Depth and size limits for everything that reads model output or user files: the tool-call
// parser, the BFCL loader and checker, the environments, the share link and the CLIs' flags. One
// place, so a limit and its message are the same wherever the input enters. Real inputs stay far
// below them; past them an input is refused with a message that names the limit, instead of a
// stack overflow or a run that never ends.

/** Deepest nesting of arrays and objects accepted in JSON from a model or a file (tool-call arguments, BFCL predictions, answers and schemas). Real calls and schemas nest a handful of levels. */
export const MAX_JSON_DEPTH = 64;

/** Most conversations one `npm run synth` writes (each is kept in memory only until it is written). */
export const MAX_SYNTH_CONVERSATIONS = 10_000_000;

/** Largest share one family may get in `synth --mix` (shares are relative: 1,1,2 is a valid mix). */
export const MAX_MIX_SHARE = 1e6;

/**
 * Nesting depth of a JSON-like value: scalars 0, `[]` and `{}` 1, `[[1]]` 2. Iterative (a 1 M-deep
 * array does not overflow the stack) and cut short: it stops at `limit + 1` once the value is
 * known to be deeper than `limit`, so the cost is bounded by the part it had to look at.
 */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const here = depth + 1;
    if (here > max) max = here;
    if (max > limit) return limit + 1;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, here]);
  }
  return max;
}

/** True when `value` nests deeper than `limit`. */
export function tooDeep(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  return jsonDepth(value, limit) > limit;
}

/** The message for a value nested too deep: what it was and what is accepted. */
export function tooDeepMessage(what: string, limit = MAX_JSON_DEPTH): string {
  return `${what} is nested more than ${limit} levels deep (arrays/objects inside each other); at most ${limit} levels are accepted`;
}
