// Rotary position embedding, HF/Qwen3 "rotate_half" convention: dimension i pairs with i + D/2
// (halves, not interleaved pairs).
//   inv_freq[i] = theta^(−2i/D), i < D/2;  angle = pos · inv_freq[i]
//   out[i]       = x[i]       · cos − x[i + D/2] · sin
//   out[i + D/2] = x[i + D/2] · cos + x[i]       · sin

export interface RopeSpec {
  B: number;
  T: number;
  H: number;
  D: number;
  theta: number;
  /** (B, T) absolute positions of each token. */
  positions: Int32Array;
}

/** positions[b, t] = offset + t: every row of the batch starts at the same offset. */
export function ropePositions(B: number, T: number, offset = 0): Int32Array {
  const pos = new Int32Array(B * T); // (B, T)
  for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) pos[b * T + t] = offset + t;
  return pos;
}

/** Rotates every (B, T, H) row of x by its position; sign = +1 forward, −1 inverse. */
function rotate(x: Float64Array, spec: RopeSpec, sign: number, name: string): Float64Array {
  const { B, T, H, D, theta, positions } = spec;
  if (D % 2 !== 0) throw new Error(`${name}: head dim D = ${D} must be even`);
  if (x.length !== B * T * H * D) throw new Error(`${name}: input has ${x.length} values, needs B·T·H·D = ${B * T * H * D}`);
  if (positions.length !== B * T) throw new Error(`${name}: positions has ${positions.length} values, needs B·T = ${B * T}`);
  const half = D / 2;
  const out = new Float64Array(x.length); // (B, T, H, D)
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const pos = positions[b * T + t];
      for (let i = 0; i < half; i++) {
        const angle = pos * Math.pow(theta, (-2 * i) / D);
        const cos = Math.cos(angle);
        const sin = sign * Math.sin(angle);
        for (let h = 0; h < H; h++) {
          const o = ((b * T + t) * H + h) * D;
          const x1 = x[o + i];
          const x2 = x[o + i + half];
          out[o + i] = x1 * cos - x2 * sin;
          out[o + i + half] = x2 * cos + x1 * sin;
        }
      }
    }
  }
  return out;
}

export function ropeForward(x: Float64Array, spec: RopeSpec): Float64Array {
  return rotate(x, spec, 1, 'ropeForward');
}

export function ropeBackward(dout: Float64Array, spec: RopeSpec): Float64Array {
  // forward: out = R(angle) · x with R orthogonal  ⇒  dx = R(angle)ᵀ · dout = R(−angle) · dout
  return rotate(dout, spec, -1, 'ropeBackward');
}
