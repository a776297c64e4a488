// Canonical JSON and a stable hash, so "final database equals gold database" is one string compare
// that does not depend on key insertion order.
import { canonicalJson, emitCanonicalJson } from '../../util/canonicalJson';

// re-exported for the service modules that import it from here (one implementation: src/util)
export { canonicalJson };

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
  emitCanonicalJson(value, (piece) => h.update(piece));
  return h.digest();
}
