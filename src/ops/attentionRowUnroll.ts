// Loop unrolling for WGSL composed at run time (the attention row kernels).
//
// Why: SwiftShader keeps a function-scope array that is indexed by a loop variable in memory and
// reads it with per-lane gathers; with every index a constant the array lives in registers. The
// attention row kernels measured 3× faster on SwiftShader with their head-dim loops unrolled
// (llvmpipe unrolls such loops itself). WGSL has no unroll attribute, so the op does it here.

/**
 * Unrolls every loop written exactly as `for (var i = 0u; i < N; i++) { … }` where N is a key of
 * `trips`: the body is repeated trips[N] times, each copy in its own `{ … }` block (so `let`s do not
 * collide) with the loop variable replaced by the literal `0u`, `1u`, …. Nested loops are unrolled
 * too. Other loops are left alone. Bodies must not `break` or `continue` the unrolled loop.
 */
export function unrollLoops(code: string, trips: Record<string, number>): string {
  const head = /for \(var (\w+) = 0u; \1 < (\w+); \1\+\+\) \{/g;
  let out = '';
  let from = 0;
  for (let m = head.exec(code); m; m = head.exec(code)) {
    const [text, name, bound] = m;
    if (!(bound in trips)) continue;
    const open = m.index + text.length - 1;
    const close = matchingBrace(code, open);
    const body = unrollLoops(code.slice(open + 1, close), trips);
    if (/\b(break|continue)\b/.test(body)) throw new Error(`unrollLoops: the loop over ${name} < ${bound} uses break/continue; it cannot be unrolled`);
    const variable = new RegExp(`\\b${name}\\b`, 'g');
    const copies = Array.from({ length: trips[bound] }, (_, i) => `{${body.replace(variable, `${i}u`)}}`);
    out += code.slice(from, m.index) + copies.join(' ');
    from = close + 1;
    head.lastIndex = from;
  }
  return out + code.slice(from);
}

function matchingBrace(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '{') depth++;
    else if (code[i] === '}' && --depth === 0) return i;
  }
  throw new Error(`unrollLoops: no closing brace for the loop at offset ${open}`);
}
