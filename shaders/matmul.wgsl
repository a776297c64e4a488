// Batched matmul C = op(A)·op(B), or C += op(A)·op(B) when accumulating; no bias.
//   op(A) (M, K): A stored (batch, M, K), or (batch, K, M) when TRANS_A
//   op(B) (K, N): B stored (batch, K, N), or (batch, N, K) when TRANS_B
//   C (batch, M, N), row-major
// src/ops/matmul.ts prepends one storage-layout header, which declares the bindings, `Params` and
// loadA/loadB: matmul_vec4.wgsl (vec4 loads; the contiguous dims are multiples of 4) or
// matmul_scalar.wgsl (any shape). This file is the shared body; it names no binding itself.
//
// Versions (GFLOP/s at 1024³ on this project's 2-core CPU adapters, process CPU time; see
// scripts/bench.ts for the side-by-side wall-clock figures against tfjs-webgpu):
//   v1: one output per invocation, straight loops — 2–8× slower than v2.
//   v2: tfjs-style 32×32 workgroup tiles in shared memory, 4×4 per invocation, a barrier per
//       k-tile — about 0.4× tfjs-webgpu on SwiftShader: CPU "GPUs" pay for every barrier (the
//       workgroup's SIMD groups are switched as coroutines) and shared memory is just more
//       memory traffic.
//   v3 (this): no workgroup memory and no barriers. Each invocation owns a 16×8 block of C as
//       eight mat4x4 accumulators and streams A and B straight from storage, 4 k at a time.
//       On CPU adapters each lane's load is a gather, so loads per FMA decide the speed:
//       per 4-deep k step an invocation loads 4 A blocks + 2 B blocks (24 vec4) for 512 FMAs.
//       vec4-typed bindings matter on llvmpipe (one masked gather per vec4, not per float: ~1.8×),
//       not on SwiftShader. Workgroup shape per adapter is chosen in src/ops/matmul.ts.

const TM = 16u; // rows of C per invocation (4 blocks of 4)
const TN = 8u;  // columns of C per invocation (2 blocks of 4)
override WG_X: u32 = 8u; // invocations along N
override WG_Y: u32 = 8u; // invocations along M

// c + b·a for 4×4 blocks (column r of b·a = Σ_t b[t]·a[r][t]) as 16 vec4 FMAs: written out
// because a mat4x4 product compiles to separate multiplies and adds (2× the work on llvmpipe).
fn mac(c: mat4x4<f32>, a: mat4x4<f32>, b: mat4x4<f32>) -> mat4x4<f32> {
  return mat4x4<f32>(
    fma(b[3], vec4<f32>(a[0].w), fma(b[2], vec4<f32>(a[0].z), fma(b[1], vec4<f32>(a[0].y), fma(b[0], vec4<f32>(a[0].x), c[0])))),
    fma(b[3], vec4<f32>(a[1].w), fma(b[2], vec4<f32>(a[1].z), fma(b[1], vec4<f32>(a[1].y), fma(b[0], vec4<f32>(a[1].x), c[1])))),
    fma(b[3], vec4<f32>(a[2].w), fma(b[2], vec4<f32>(a[2].z), fma(b[1], vec4<f32>(a[2].y), fma(b[0], vec4<f32>(a[2].x), c[2])))),
    fma(b[3], vec4<f32>(a[3].w), fma(b[2], vec4<f32>(a[3].z), fma(b[1], vec4<f32>(a[3].y), fma(b[0], vec4<f32>(a[3].x), c[3])))));
}

// One 4×4 block of C, rows row..row+3, columns col..col+3; column r of `c` is row r of the block.
fn storeBlock(cBase: u32, row: u32, col: u32, c: mat4x4<f32>) {
  for (var r = 0u; r < 4u; r++) {
    let i = row + r;
    if (i >= p.M) { return; }
    for (var q = 0u; q < 4u; q++) {
      let j = col + q;
      if (j < p.N) {
        let idx = cBase + i * p.N + j;
        var v = c[r][q];
        if (p.accumulate != 0u) { v += C[idx]; }
        C[idx] = v;
      }
    }
  }
}

@compute @workgroup_size(WG_X, WG_Y)
fn forward_matmul(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let row0 = (wg.y * WG_Y + lid.y) * TM;
  let col0 = (wg.x * WG_X + lid.x) * TN;
  // c<i><j>: rows row0+4i.., columns col0+4j..; loads clamp rows/columns, so lanes past the edge
  // compute garbage that storeBlock never writes (no divergent branch in the hot loop).
  var c00 = mat4x4<f32>(); var c01 = mat4x4<f32>();
  var c10 = mat4x4<f32>(); var c11 = mat4x4<f32>();
  var c20 = mat4x4<f32>(); var c21 = mat4x4<f32>();
  var c30 = mat4x4<f32>(); var c31 = mat4x4<f32>();
  // batchLoop > 1 sums several batch entries into one C (weight gradients of a shared B).
  for (var s = 0u; s < p.batchLoop; s++) {
    let bat = wg.z * p.batchLoop + s;
    let aBase = bat * p.aStride;
    let bBase = bat * p.bStride;
    for (var k = 0u; k < p.K; k += 4u) {
      // a_i: column r = op(A)[row0+4i+r, k..k+3] (zero past K); b_j: column t = op(B)[k+t, col0+4j..]
      let a0 = loadA(aBase, row0, k);
      let a1 = loadA(aBase, row0 + 4u, k);
      let a2 = loadA(aBase, row0 + 8u, k);
      let a3 = loadA(aBase, row0 + 12u, k);
      let b0 = loadB(bBase, k, col0);
      let b1 = loadB(bBase, k, col0 + 4u);
      c00 = mac(c00, a0, b0); c01 = mac(c01, a0, b1);
      c10 = mac(c10, a1, b0); c11 = mac(c11, a1, b1);
      c20 = mac(c20, a2, b0); c21 = mac(c21, a2, b1);
      c30 = mac(c30, a3, b0); c31 = mac(c31, a3, b1);
    }
  }
  let cBase = wg.z * p.cStride;
  storeBlock(cBase, row0, col0, c00); storeBlock(cBase, row0, col0 + 4u, c01);
  storeBlock(cBase, row0 + 4u, col0, c10); storeBlock(cBase, row0 + 4u, col0 + 4u, c11);
  storeBlock(cBase, row0 + 8u, col0, c20); storeBlock(cBase, row0 + 8u, col0 + 4u, c21);
  storeBlock(cBase, row0 + 12u, col0, c30); storeBlock(cBase, row0 + 12u, col0 + 4u, c31);
}
