// Batched matrix multiply C = op(A)·op(B), float64 reference.
//   A: (batch, M, K), or (batch, K, M) when transA
//   B: (batch, K, N), or (batch, N, K) when transB
//   C: (batch, M, N)
// HF Linear y = x·Wᵀ is { batch: 1, M: tokens, K: in, N: out, transA: false, transB: true }.

export interface MatmulSpec {
  batch: number;
  M: number;
  K: number;
  N: number;
  /** A is stored (batch, K, M). */
  transA: boolean;
  /** B is stored (batch, N, K). */
  transB: boolean;
}

function checkSizes(name: string, spec: MatmulSpec, a: Float64Array, b: Float64Array): void {
  const { batch, M, K, N } = spec;
  if (a.length !== batch * M * K) throw new Error(`${name}: a has ${a.length} values, spec needs batch·M·K = ${batch * M * K}`);
  if (b.length !== batch * K * N) throw new Error(`${name}: b has ${b.length} values, spec needs batch·K·N = ${batch * K * N}`);
}

export function matmulForward(a: Float64Array, b: Float64Array, spec: MatmulSpec): Float64Array {
  checkSizes('matmulForward', spec, a, b);
  const { batch, M, K, N, transA, transB } = spec;
  const c = new Float64Array(batch * M * N); // (batch, M, N)
  // element strides of op(A)[i, k] and op(B)[k, j], so the inner loop has no branches (the LM head
  // at a Qwen3 vocabulary is ~10⁹ multiply-adds per few tokens)
  const [aI, aK] = transA ? [1, M] : [K, 1];
  const [bK, bJ] = transB ? [1, K] : [N, 1];
  for (let p = 0; p < batch; p++) {
    const ao = p * M * K;
    const bo = p * K * N;
    const co = p * M * N;
    for (let i = 0; i < M; i++) {
      const ar = ao + i * aI;
      for (let j = 0; j < N; j++) {
        const bc = bo + j * bJ;
        let s = 0;
        for (let k = 0; k < K; k++) s += a[ar + k * aK] * b[bc + k * bK];
        c[co + i * N + j] = s;
      }
    }
  }
  return c;
}

export function matmulBackward(
  dc: Float64Array, // (batch, M, N)
  a: Float64Array,
  b: Float64Array,
  spec: MatmulSpec,
): { da: Float64Array; db: Float64Array } {
  checkSizes('matmulBackward', spec, a, b);
  const { batch, M, K, N, transA, transB } = spec;
  if (dc.length !== batch * M * N) throw new Error(`matmulBackward: dc has ${dc.length} values, needs ${batch * M * N}`);
  const da = new Float64Array(a.length); // same layout as a
  const db = new Float64Array(b.length); // same layout as b
  for (let p = 0; p < batch; p++) {
    const ao = p * M * K;
    const bo = p * K * N;
    const co = p * M * N;
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        // forward: c[i, j] += A[i, k] · B[k, j]
        const g = dc[co + i * N + j];
        if (g === 0) continue;
        for (let k = 0; k < K; k++) {
          const ai = transA ? ao + k * M + i : ao + i * K + k;
          const bi = transB ? bo + j * K + k : bo + k * N + j;
          da[ai] += g * b[bi];
          db[bi] += g * a[ai];
        }
      }
    }
  }
  return { da, db };
}
