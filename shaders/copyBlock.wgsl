// Copies a (rows, cols) block between two row-major matrices of different widths:
//   dst[r, dstCol0 + c] = src[r, srcCol0 + c]   (or +=, when accumulate)
// The LM head over a vocabulary split into row parts (src/model/lmHead.ts) computes each part's
// logits (n, Vp) separately and places them into columns [v0, v0 + Vp) of the (n, V) logits, and
// takes those columns back out for the part's backward. Memory-bound; one invocation per element.

const WG: u32 = 256u;

struct Params {
  rows: u32,
  cols: u32,
  srcStride: u32, // floats per src row
  srcCol0: u32,
  dstStride: u32, // floats per dst row
  dstCol0: u32,
  accumulate: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(WG)
fn forward_copy_block(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.rows * p.cols) { return; }
  let r = i / p.cols;
  let c = i % p.cols;
  let d = r * p.dstStride + p.dstCol0 + c;
  var v = src[r * p.srcStride + p.srcCol0 + c];
  if (p.accumulate != 0u) { v += dst[d]; }
  dst[d] = v;
}
