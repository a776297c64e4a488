// Storage-layout header of shaders/matmul.wgsl: vec4 loads. Used only when every vec4 starts on a
// multiple of 4 floats: K % 4 == 0 for A (M, K) or B (N, K), M % 4 == 0 for A (K, M), N % 4 == 0
// for B (K, N). One vec4 per lane is one gather on CPU adapters instead of four (llvmpipe: ~1.8×).

struct Params {
  M: u32, K: u32, N: u32,
  batchLoop: u32,  // batch entries summed into each C (1; or batch for a shared B's gradient)
  aStride: u32,    // floats between batch entries of A (0: shared)
  bStride: u32,    // floats between batch entries of B (0: shared)
  cStride: u32,    // floats between batch entries of C
  accumulate: u32, // 1: C += op(A)·op(B)
}
override TRANS_A: bool = false;
override TRANS_B: bool = false;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> A: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> B: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;

// A stored (K, M): A[k, r..r+3], zero past K (the K tail; B needs no mask once A is zero).
fn rowsAtK(base: u32, k: u32, r: u32) -> vec4<f32> {
  return select(vec4<f32>(), A[(base + min(k, p.K - 1u) * p.M + r) / 4u], k < p.K);
}

// op(A)[row..row+3, k..k+3]; column r holds row r. Rows past M are clamped (never stored).
fn loadA(base: u32, row: u32, k: u32) -> mat4x4<f32> {
  if (TRANS_A) {
    let r = min(row, p.M - 4u);
    return transpose(mat4x4<f32>(rowsAtK(base, k, r), rowsAtK(base, k + 1u, r), rowsAtK(base, k + 2u, r), rowsAtK(base, k + 3u, r)));
  }
  // A stored (M, K), K % 4 == 0: k..k+3 never passes K.
  let last = p.M - 1u;
  return mat4x4<f32>(
    A[(base + min(row, last) * p.K + k) / 4u],
    A[(base + min(row + 1u, last) * p.K + k) / 4u],
    A[(base + min(row + 2u, last) * p.K + k) / 4u],
    A[(base + min(row + 3u, last) * p.K + k) / 4u]);
}

// op(B)[k..k+3, col..col+3]; column t holds row k+t. k is clamped (A is zero there).
fn loadB(base: u32, k: u32, col: u32) -> mat4x4<f32> {
  if (TRANS_B) {
    // B stored (N, K), K % 4 == 0: one vec4 is 4 k of one column; transpose the block.
    let last = p.N - 1u;
    return transpose(mat4x4<f32>(
      B[(base + min(col, last) * p.K + k) / 4u],
      B[(base + min(col + 1u, last) * p.K + k) / 4u],
      B[(base + min(col + 2u, last) * p.K + k) / 4u],
      B[(base + min(col + 3u, last) * p.K + k) / 4u]));
  }
  let c = min(col, p.N - 4u);
  let lastK = p.K - 1u;
  return mat4x4<f32>(
    B[(base + min(k, lastK) * p.N + c) / 4u],
    B[(base + min(k + 1u, lastK) * p.N + c) / 4u],
    B[(base + min(k + 2u, lastK) * p.N + c) / 4u],
    B[(base + min(k + 3u, lastK) * p.N + c) / 4u]);
}
