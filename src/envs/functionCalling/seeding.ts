// Seed derivation: one independent stream per (seed, index, split) task and per tool call, so the
// same inputs give the same task and the same simulated tool result on every machine.

function avalanche(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Mixes 32-bit integers into one well-spread 32-bit seed. */
export function mixSeeds(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) h = avalanche((h ^ (p >>> 0)) + 0x9e3779b9);
  return h;
}

/** FNV-1a over UTF-16 code units, then avalanched (stable across runs, fast on megabyte strings). */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return avalanche(h >>> 0);
}

/** Seed of task `index` of `split` in a run seeded `seed`; train and held-out streams never coincide. */
export function taskSeed(seed: number, index: number, split: 'train' | 'heldout', salt = 0): number {
  return mixSeeds(seed, index, split === 'train' ? 0x7a11 : 0x4e1d, salt);
}

/** JSON with object keys sorted, so argument order does not change a call's identity. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v as Record<string, unknown>).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  }) ?? 'null';
}
