// Canonical JSON and a stable hash, so "final database equals gold database" is one string compare
// that does not depend on key insertion order.

/** Walks `value` as JSON with object keys sorted at every level, emitting the text piece by piece. */
function emitCanonical(value: unknown, emit: (piece: string) => void): void {
  if (value === null || typeof value !== 'object') {
    emit(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    emit('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) emit(',');
      emitCanonical(value[i] === undefined ? null : value[i], emit);
    }
    emit(']');
    return;
  }
  const obj = value as Record<string, unknown>;
  let first = true;
  emit('{');
  for (const key of Object.keys(obj).sort()) {
    if (obj[key] === undefined) continue;
    if (!first) emit(',');
    first = false;
    emit(JSON.stringify(key));
    emit(':');
    emitCanonical(obj[key], emit);
  }
  emit('}');
}

/** JSON with object keys sorted at every level; undefined fields are dropped like JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  let out = '';
  emitCanonical(value, (piece) => {
    out += piece;
  });
  return out;
}

/** 64-bit streaming hash (two 32-bit lanes, cyrb53-style mixing). Not cryptographic. */
class TextHasher {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;

  update(text: string): void {
    let h1 = this.h1;
    let h2 = this.h2;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
  }

  digest(): string {
    let h1 = this.h1;
    let h2 = this.h2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
  }
}

/** 64-bit hash of a text as 16 hex digits. */
export function hashText(text: string): string {
  const h = new TextHasher();
  h.update(text);
  return h.digest();
}

/** Stable hash of any JSON value; equals hashText(canonicalJson(value)) without building the text. */
export function stableHash(value: unknown): string {
  const h = new TextHasher();
  emitCanonical(value, (piece) => h.update(piece));
  return h.digest();
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
