// Derived seeds and string hashes, one implementation for the whole project: a run seed fans out
// into per-task, per-sample and per-family seeds. Hashing (instead of seed + i) keeps neighbouring
// runs (seed 1 vs seed 2) from sharing most streams.

/** murmur3's 32-bit finaliser: spreads every input bit over the whole word. */
function avalanche(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Mixes integers into one 32-bit unsigned seed (murmur3-style block mixing per part); deterministic. */
export function mixSeeds(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    let k = Math.imul(part >>> 0, 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h = Math.imul(((h ^ k) << 13) | ((h ^ k) >>> 19), 5) + 0xe6546b64;
  }
  return avalanche(h);
}

/** A stable, well-spread 32-bit number for a string: FNV-1a over UTF-16 code units, then avalanched (fast on megabyte strings). */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return avalanche(h);
}
