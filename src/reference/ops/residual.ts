// Residual add: out = a + b, elementwise.

export function addForward(a: Float64Array, b: Float64Array): Float64Array {
  if (a.length !== b.length) throw new Error(`addForward: a has ${a.length} values, b ${b.length}`);
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] + b[i];
  return out;
}

export function addBackward(dout: Float64Array): { da: Float64Array; db: Float64Array } {
  // forward: out = a + b  ⇒  da = db = dout (copies, so callers may accumulate into them)
  return { da: Float64Array.from(dout), db: Float64Array.from(dout) };
}
