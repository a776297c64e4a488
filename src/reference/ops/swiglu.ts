// SwiGLU gate: out = silu(gate) · up, silu(x) = x · sigmoid(x). Elementwise over (N).

function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

export function swigluForward(gate: Float64Array, up: Float64Array): Float64Array {
  if (gate.length !== up.length) throw new Error(`swigluForward: gate has ${gate.length} values, up ${up.length}`);
  const out = new Float64Array(gate.length); // (N)
  for (let i = 0; i < gate.length; i++) out[i] = gate[i] * sigmoid(gate[i]) * up[i];
  return out;
}

export function swigluBackward(
  dout: Float64Array, // (N)
  gate: Float64Array, // (N)
  up: Float64Array, // (N)
): { dgate: Float64Array; dup: Float64Array } {
  if (gate.length !== up.length || dout.length !== gate.length) {
    throw new Error(`swigluBackward: dout ${dout.length}, gate ${gate.length}, up ${up.length} must be equal`);
  }
  const dgate = new Float64Array(gate.length); // (N)
  const dup = new Float64Array(up.length); // (N)
  for (let i = 0; i < gate.length; i++) {
    // forward: out = g · σ(g) · u  ⇒  d/dg = u · σ(g) · (1 + g · (1 − σ(g))),  d/du = g · σ(g)
    const g = gate[i];
    const s = sigmoid(g);
    dgate[i] = dout[i] * up[i] * s * (1 + g * (1 - s));
    dup[i] = dout[i] * g * s;
  }
  return { dgate, dup };
}
