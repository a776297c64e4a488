// Global gradient norm + clipping and AdamW, on the GPU, with no readback in between:
//   1. forward_sumsq_partial: per tensor, G workgroups write partial Σ g² into `partials`;
//   2. forward_grad_stats: one workgroup sums all partials → stats = (norm, clip scale, finite);
//   3. forward_adamw: per tensor, reads stats: g ← g · scale; skips the update entirely when the
//      norm is not finite (NaN/Inf gradients never reach the weights).
// AdamW (PyTorch order, decoupled decay): m = β1·m + (1−β1)·g; v = β2·v + (1−β2)·g²;
//   p −= lr · (m/bc1 / (sqrt(v/bc2) + eps) + wd · p), bc1 = 1−β1^t, bc2 = 1−β2^t (from the host, float64).

const WG: u32 = 256u;

struct Params { n: u32, offset: u32, lr: f32, beta1: f32, beta2: f32, eps: f32, wd: f32, bc1: f32, bc2: f32, max_norm: f32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> grad: array<f32>;          // (n) one tensor's gradient
@group(0) @binding(2) var<storage, read_write> partials: array<f32>; // (P) partial sums of squares
@group(0) @binding(3) var<storage, read> partials_in: array<f32>;    // (P)
@group(0) @binding(4) var<storage, read_write> stats: array<f32>;    // (4) norm, scale, finite, unused
@group(0) @binding(5) var<storage, read> stats_in: array<f32>;       // (4)
@group(0) @binding(6) var<storage, read_write> param: array<f32>;    // (n)
@group(0) @binding(7) var<storage, read_write> m: array<f32>;        // (n) first moment
@group(0) @binding(8) var<storage, read_write> v: array<f32>;        // (n) second moment

var<workgroup> scratch: array<f32, WG>;

fn reduce_sum(lid: u32, x: f32) -> f32 {
  scratch[lid] = x;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    if (lid < s) { scratch[lid] = scratch[lid] + scratch[lid + s]; }
    workgroupBarrier();
  }
  return scratch[0];
}

// partials[offset + w] = Σ g² over the elements strided to workgroup w (num_workgroups.x of them).
@compute @workgroup_size(WG)
fn forward_sumsq_partial(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  var s = 0.0;
  let stride = nwg.x * WG;
  for (var i = wid.x * WG + lid; i < params.n; i = i + stride) { let g = grad[i]; s = s + g * g; }
  let total = reduce_sum(lid, s);
  if (lid == 0u) { partials[params.offset + wid.x] = total; }
}

// n = number of partials. max_norm ≤ 0 disables clipping (scale = 1).
@compute @workgroup_size(WG)
fn forward_grad_stats(@builtin(local_invocation_index) lid: u32) {
  var s = 0.0;
  for (var i = lid; i < params.n; i = i + WG) { s = s + partials_in[i]; }
  let total = reduce_sum(lid, s);
  if (lid == 0u) {
    let norm = sqrt(total);
    // Exponent bits all ones ⇔ NaN or ±Inf. A bit test, because drivers may fold (x − x == 0) to true.
    let finite = (bitcast<u32>(total) & 0x7f800000u) != 0x7f800000u;
    var scale = 1.0;
    if (params.max_norm > 0.0) { scale = min(1.0, params.max_norm / (norm + 1e-6)); }
    stats[0] = norm;
    stats[1] = scale;
    stats[2] = select(0.0, 1.0, finite);
    stats[3] = 0.0;
  }
}

@compute @workgroup_size(WG)
fn forward_adamw(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.n) { return; }
  if (stats_in[2] == 0.0) { return; } // non-finite gradients: keep the last good weights
  let g = grad[i] * stats_in[1];
  let mi = params.beta1 * m[i] + (1.0 - params.beta1) * g;
  let vi = params.beta2 * v[i] + (1.0 - params.beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  let p = param[i];
  param[i] = p - params.lr * ((mi / params.bc1) / (sqrt(vi / params.bc2) + params.eps) + params.wd * p);
}
