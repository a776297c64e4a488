// Batched matmul C = op(A)·op(B), or C += op(A)·op(B) when accumulating; no bias.
//   op(A) (M, K): A stored (batch, M, K), or (batch, K, M) when TRANS_A
//   op(B) (K, N): B stored (batch, K, N), or (batch, N, K) when TRANS_B
//   C (batch, M, N), row-major
// src/ops/matmul.ts prepends one storage-layout header, which declares the bindings, `Params` and
// loadA/loadB: matmul_vec4.wgsl (vec4 loads; the contiguous dims are multiples of 4) or
// matmul_scalar.wgsl (any shape). This file is the shared body; it names no binding itself.
//
// Versions. Ratios are ours / tfjs-webgpu at 1024³, side by side in one page (npm run bench);
// "Node" figures come from Dawn in Node on the same SwiftShader / Mesa, timed by process CPU time
// because the shared 2-core machine makes wall clock noisy.
//   v1, v2 (figures from the project brief, not re-measured): v1 one output per invocation is
//       2–8× slower than v2; v2 tfjs-style shared-memory tiles with 4×4 per invocation and a
//       barrier per k-tile reaches ~0.4× tfjs on SwiftShader. CPU "GPUs" pay for every barrier
//       (a workgroup's SIMD groups are switched as coroutines) and shared memory is only more
//       copying, so v3 drops both.
//   v3.0: no workgroup memory, no barriers. Each invocation owns a 16×8 block of C as eight
//       mat4x4 accumulators and streams A and B straight from storage, 4 k per step. Each lane's
//       load is a gather on CPU adapters, so loads per FMA decide the speed: per step 4 A blocks
//       + 2 B blocks (24 vec4 loads) feed 512 FMAs. vec4-typed bindings matter on llvmpipe (one
//       masked gather per vec4 instead of per float: 1.8× in Node), not on SwiftShader.
//       `c += b * a` as mat4x4 products: Node llvmpipe 2.5×, SwiftShader 6.9×.
//   v3.1 (this): the block product written as 16 explicit vec4 FMAs (mac below): a mat4x4
//       product compiles to separate multiplies and adds. Chromium, 1024³: SwiftShader 2.56 vs
//       0.41 GFLOP/s (6.3×), llvmpipe 8.2 vs 2.4 GFLOP/s (3.4×). ROW_BLOCKS = 1 (4 rows per
//       invocation) for thin outputs: 2× at M ≤ 4 (decode), equal at M = 16.
//   Workgroup sweep (Node, both adapters, all transposes): 4×4, 8×4, 8×8, 16×8, 16×16, 4×16,
//       32×2 invocations are within noise of each other except 4×4 and 4×16 (~25% slower on
//       llvmpipe); 8×8 (a 128×64 tile of C) is used on both (src/ops/matmul.ts, matmulTuning).
//   Also tried (generated kernels in Node): 8×8, 8×16, 16×16 per invocation — none beat 16×8.
//   Not tried: subgroup shuffles (only SwiftShader has subgroups; the per-lane gathers that bound
//       us would remain), so there is no subgroup path and no fallback to test.

override ROW_BLOCKS: u32 = 4u; // 4: 16 rows of C per invocation; 1: 4 rows (M ≤ 4: decode steps)
const TN = 8u;                   // columns of C per invocation (2 blocks of 4)
override WG_X: u32 = 8u;         // invocations along N
override WG_Y: u32 = 8u;         // invocations along M

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
  let row0 = (wg.y * WG_Y + lid.y) * (4u * ROW_BLOCKS);
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
      let b0 = loadB(bBase, k, col0);
      let b1 = loadB(bBase, k, col0 + 4u);
      let a0 = loadA(aBase, row0, k);
      c00 = mac(c00, a0, b0); c01 = mac(c01, a0, b1);
      if (ROW_BLOCKS == 4u) { // a pipeline constant: the compilers drop the dead side
        let a1 = loadA(aBase, row0 + 4u, k);
        let a2 = loadA(aBase, row0 + 8u, k);
        let a3 = loadA(aBase, row0 + 12u, k);
        c10 = mac(c10, a1, b0); c11 = mac(c11, a1, b1);
        c20 = mac(c20, a2, b0); c21 = mac(c21, a2, b1);
        c30 = mac(c30, a3, b0); c31 = mac(c31, a3, b1);
      }
    }
  }
  let cBase = wg.z * p.cStride;
  storeBlock(cBase, row0, col0, c00); storeBlock(cBase, row0, col0 + 4u, c01);
  if (ROW_BLOCKS == 4u) {
    storeBlock(cBase, row0 + 4u, col0, c10); storeBlock(cBase, row0 + 4u, col0 + 4u, c11);
    storeBlock(cBase, row0 + 8u, col0, c20); storeBlock(cBase, row0 + 8u, col0 + 4u, c21);
    storeBlock(cBase, row0 + 12u, col0, c30); storeBlock(cBase, row0 + 12u, col0 + 4u, c31);
  }
}
