// Storage-layout header of shaders/matmul.wgsl (the shared body, unchanged) whose B operand is a
// frozen weight W (out, in) stored as f16, two per u32 (element e of the flat row-major W is half
// e & 1 of word e >> 1, low half first), read with the core builtin unpack2x16float: no `shader-f16`
// needed, so it runs on every adapter. A and C stay f32. The two products the model needs:
//   forward  Y (M, out) = X (M, in) · Wᵀ   TRANS_B: op(B)[k, n] = W[n, k], K = in, N = out
//   backward dX (M, in) = dY (M, out) · W  !TRANS_B: op(B)[k, n] = W[k, n], K = out, N = in
// PAIRED (W's row length `in` even, so every 4-run along it starts on a word): 2 word loads per 4
// values; otherwise one word per value. A is (M, K) row-major (never transposed), one batch entry,
// read as vec4 when K % 4 == 0 (matmul_packedF16_a_vec4.wgsl; llvmpipe gathers) or per float.
//
// Versions (Node, 256 rows × in 256 × out 768, 5 runs, shared 2-core machine so ±30%):
//   v1: per-float activation loads: llvmpipe 0.64× (forward) / 0.79× (dx) the f32 vec4 matmul.
//   v2 (this): vec4 activation loads when K % 4 == 0: llvmpipe ~20 GFLOP/s, on par with f32;
//       SwiftShader 2.0 / 2.3 vs 2.5 / 2.5 GFLOP/s (0.8–0.9×: the unpack costs ALU, not loads).

struct Params {
  M: u32, K: u32, N: u32,
  batchLoop: u32,  // 1 (the body loops over it)
  aStride: u32,    // 0: one batch entry
  bStride: u32,    // 0: one shared W
  cStride: u32,    // 0: one batch entry
  accumulate: u32, // 1: C += A·op(W)
  wWords: u32,     // u32 words of W: ceil(out·in / 2); word loads clamp below it
}
override TRANS_B: bool = false;
override PAIRED: bool = true;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(2) var<storage, read> B: array<u32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;
// A (binding 1) and loadA come from one of matmul_packedF16_a_{vec4,scalar}.wgsl, prepended.

fn word(i: u32) -> vec2<f32> {
  return unpack2x16float(B[min(i, p.wWords - 1u)]);
}

// W elements e..e+3 for an even e: two words. Past W's end (or its row) the values are other
// finite weights that are never stored or meet a zero of A.
fn quadW(e: u32) -> vec4<f32> {
  return vec4<f32>(word(e >> 1u), word((e >> 1u) + 1u));
}

fn elemW(e: u32) -> f32 {
  let w = word(e >> 1u);
  return select(w.x, w.y, (e & 1u) == 1u);
}

// op(W)[k, c], indices clamped (A is zero wherever k is past K).
fn elemB(k: u32, c: u32) -> f32 {
  let kc = min(k, p.K - 1u);
  let cc = min(c, p.N - 1u);
  if (TRANS_B) { return elemW(cc * p.K + kc); }
  return elemW(kc * p.N + cc);
}

fn rowB(k: u32, c: u32) -> vec4<f32> {
  if (PAIRED && !TRANS_B) { return quadW(min(k, p.K - 1u) * p.N + c); } // N = in is even, c % 4 == 0
  return vec4<f32>(elemB(k, c), elemB(k, c + 1u), elemB(k, c + 2u), elemB(k, c + 3u));
}

// op(W)[k..k+3, col..col+3]; column t holds row k+t.
fn loadB(base: u32, k: u32, col: u32) -> mat4x4<f32> {
  if (PAIRED && TRANS_B) {
    // W (N, K) with K = in even and k % 4 == 0: 4 k of one column are 2 words; transpose the block.
    let last = p.N - 1u;
    return transpose(mat4x4<f32>(
      quadW(min(col, last) * p.K + k), quadW(min(col + 1u, last) * p.K + k),
      quadW(min(col + 2u, last) * p.K + k), quadW(min(col + 3u, last) * p.K + k)));
  }
  return mat4x4<f32>(rowB(k, col), rowB(k + 1u, col), rowB(k + 2u, col), rowB(k + 3u, col));
}
