// Canonical JSON: object keys sorted at every level, so two values that differ only in key order
// (a call's arguments, a database) give the same text.

/** Walks `value` as JSON with object keys sorted at every level, emitting the text piece by piece (hashes can stream it). */
export function emitCanonicalJson(value: unknown, emit: (piece: string) => void): void {
  if (value === null || typeof value !== 'object') {
    emit(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    emit('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) emit(',');
      emitCanonicalJson(value[i] === undefined ? null : value[i], emit);
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
    emitCanonicalJson(obj[key], emit);
  }
  emit('}');
}

/** JSON with object keys sorted at every level; undefined fields are dropped like JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  let out = '';
  emitCanonicalJson(value, (piece) => {
    out += piece;
  });
  return out;
}
