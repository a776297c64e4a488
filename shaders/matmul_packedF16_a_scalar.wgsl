// A operand of shaders/matmul_packedF16.wgsl, any K: one float per load.
@group(0) @binding(1) var<storage, read> A: array<f32>;

// A[r, k]; zero past K, rows past M clamped (never stored).
fn elemA(base: u32, r: u32, k: u32) -> f32 {
  let v = A[base + min(r, p.M - 1u) * p.K + min(k, p.K - 1u)];
  return select(0.0, v, k < p.K);
}

fn rowA(base: u32, r: u32, k: u32) -> vec4<f32> {
  return vec4<f32>(elemA(base, r, k), elemA(base, r, k + 1u), elemA(base, r, k + 2u), elemA(base, r, k + 3u));
}

// A[row..row+3, k..k+3]; column r holds row r.
fn loadA(base: u32, row: u32, k: u32) -> mat4x4<f32> {
  return mat4x4<f32>(rowA(base, row, k), rowA(base, row + 1u, k), rowA(base, row + 2u, k), rowA(base, row + 3u, k));
}
