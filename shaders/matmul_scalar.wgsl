// Storage-layout header of shaders/matmul.wgsl: one float per load, any shape (37×53×29, M = 1,
// K = 1, odd strides). Indices are clamped into range and A is zero past K, so the shared body
// needs no bounds checks in its hot loop.

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
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;

// op(A)[r, k]; zero past K, rows past M clamped.
fn elemA(base: u32, r: u32, k: u32) -> f32 {
  let rc = min(r, p.M - 1u);
  let kc = min(k, p.K - 1u);
  var v: f32;
  if (TRANS_A) { v = A[base + kc * p.M + rc]; } else { v = A[base + rc * p.K + kc]; }
  return select(0.0, v, k < p.K);
}

// op(B)[k, c], indices clamped (A is zero wherever k is past K).
fn elemB(base: u32, k: u32, c: u32) -> f32 {
  let kc = min(k, p.K - 1u);
  let cc = min(c, p.N - 1u);
  if (TRANS_B) { return B[base + cc * p.K + kc]; }
  return B[base + kc * p.N + cc];
}

fn rowA(base: u32, r: u32, k: u32) -> vec4<f32> {
  return vec4<f32>(elemA(base, r, k), elemA(base, r, k + 1u), elemA(base, r, k + 2u), elemA(base, r, k + 3u));
}

fn rowB(base: u32, k: u32, c: u32) -> vec4<f32> {
  return vec4<f32>(elemB(base, k, c), elemB(base, k, c + 1u), elemB(base, k, c + 2u), elemB(base, k, c + 3u));
}

// op(A)[row..row+3, k..k+3]; column r holds row r.
fn loadA(base: u32, row: u32, k: u32) -> mat4x4<f32> {
  return mat4x4<f32>(rowA(base, row, k), rowA(base, row + 1u, k), rowA(base, row + 2u, k), rowA(base, row + 3u, k));
}

// op(B)[k..k+3, col..col+3]; column t holds row k+t.
fn loadB(base: u32, k: u32, col: u32) -> mat4x4<f32> {
  return mat4x4<f32>(rowB(base, k, col), rowB(base, k + 1u, col), rowB(base, k + 2u, col), rowB(base, k + 3u, col));
}
