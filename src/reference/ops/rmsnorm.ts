// RMSNorm over the last axis: out = x · rstd · w, rstd = 1 / sqrt(mean(x²) + eps).
// Qwen3's per-head QK-norm is the same op with N = tokens·heads, C = headDim.

export function rmsnormForward(
  x: Float64Array, // (N, C)
  w: Float64Array, // (C)
  N: number,
  C: number,
  eps: number,
): { out: Float64Array; rstd: Float64Array } {
  if (x.length !== N * C) throw new Error(`rmsnormForward: x has ${x.length} values, needs N·C = ${N * C}`);
  if (w.length !== C) throw new Error(`rmsnormForward: w has ${w.length} values, needs C = ${C}`);
  const out = new Float64Array(N * C); // (N, C)
  const rstd = new Float64Array(N); // (N)
  for (let n = 0; n < N; n++) {
    let ss = 0;
    for (let c = 0; c < C; c++) ss += x[n * C + c] * x[n * C + c];
    const r = 1 / Math.sqrt(ss / C + eps);
    rstd[n] = r;
    for (let c = 0; c < C; c++) out[n * C + c] = x[n * C + c] * r * w[c];
  }
  return { out, rstd };
}

export function rmsnormBackward(
  dout: Float64Array, // (N, C)
  x: Float64Array, // (N, C)
  w: Float64Array, // (C)
  rstd: Float64Array, // (N)
  N: number,
  C: number,
): { dx: Float64Array; dw: Float64Array } {
  const dx = new Float64Array(N * C); // (N, C)
  const dw = new Float64Array(C); // (C)
  for (let n = 0; n < N; n++) {
    const r = rstd[n];
    // forward: out[c] = x[c] · r · w[c],  r = (mean(x²) + eps)^(−1/2)  ⇒  ∂r/∂x[c] = −r³ · x[c] / C
    let dot = 0; // Σ_c dout[c] · w[c] · x[c]
    for (let c = 0; c < C; c++) {
      const i = n * C + c;
      dot += dout[i] * w[c] * x[i];
      dw[c] += dout[i] * x[i] * r;
    }
    for (let c = 0; c < C; c++) {
      const i = n * C + c;
      dx[i] = dout[i] * w[c] * r - (dot * r * r * r * x[i]) / C;
    }
  }
  return { dx, dw };
}
