// Canonical JSON and a stable hash, so "final database equals gold database" is one string compare
// that does not depend on key insertion order.

/** JSON with object keys sorted at every level; undefined fields are dropped like JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  // One growing string instead of per-level arrays: this runs on every database write.
  let out = '';
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') {
      out += JSON.stringify(v) ?? 'null';
      return;
    }
    if (Array.isArray(v)) {
      out += '[';
      for (let i = 0; i < v.length; i++) {
        if (i > 0) out += ',';
        walk(v[i] === undefined ? null : v[i]);
      }
      out += ']';
      return;
    }
    const obj = v as Record<string, unknown>;
    let first = true;
    out += '{';
    for (const key of Object.keys(obj).sort()) {
      if (obj[key] === undefined) continue;
      if (!first) out += ',';
      first = false;
      out += `${JSON.stringify(key)}:`;
      walk(obj[key]);
    }
    out += '}';
  };
  walk(value);
  return out;
}

/** 64-bit hash (two independent 32-bit lanes, cyrb53-style mixing) as 16 hex digits. Not cryptographic. */
export function hashText(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}

/** Stable hash of any JSON value: hashText(canonicalJson(value)). */
export function stableHash(value: unknown): string {
  return hashText(canonicalJson(value));
}

/** Mixes integers into one 32-bit seed (for per-task and per-split seeds). */
export function mixSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x01000193);
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
    h ^= h >>> 12;
  }
  return h >>> 0;
}
