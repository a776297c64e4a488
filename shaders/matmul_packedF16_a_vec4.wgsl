// A operand of shaders/matmul_packedF16.wgsl when K % 4 == 0: one vec4 per row and k-step (one
// gather instead of four on CPU adapters). k..k+3 never passes K; rows past M are clamped.
@group(0) @binding(1) var<storage, read> A: array<vec4<f32>>;

// A[row..row+3, k..k+3]; column r holds row r.
fn loadA(base: u32, row: u32, k: u32) -> mat4x4<f32> {
  let last = p.M - 1u;
  return mat4x4<f32>(
    A[(base + min(row, last) * p.K + k) / 4u],
    A[(base + min(row + 1u, last) * p.K + k) / 4u],
    A[(base + min(row + 2u, last) * p.K + k) / 4u],
    A[(base + min(row + 3u, last) * p.K + k) / 4u]);
}
