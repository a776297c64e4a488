// RMSNorm over the last axis (Qwen3 pre-norm, and the per-head QK-norm with N = tokens·heads,
// C = head dim): out = x · rstd · w, rstd = 1 / sqrt(mean(x²) + eps).
// v1: one workgroup of WG threads per row, strided over C, tree reduction in workgroup memory.
// v2: for narrow rows (C ≤ 256: every small preset, and QK-norm's head dim) one invocation per row
//     with no barriers — on CPU adapters a barrier-heavy workgroup per 24-wide row cost 10× more.
// dw is a column sum over rows: one thread per column looping over rows (deterministic, no atomics).

const WG: u32 = 64u;

struct Params { N: u32, C: u32, eps: f32, accumulate: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;            // (N, C)
@group(0) @binding(2) var<storage, read> w: array<f32>;            // (C)
@group(0) @binding(3) var<storage, read_write> out: array<f32>;    // (N, C)
@group(0) @binding(4) var<storage, read_write> rstd: array<f32>;   // (N) saved for backward
@group(0) @binding(5) var<storage, read> dout: array<f32>;         // (N, C)
@group(0) @binding(6) var<storage, read> rstd_in: array<f32>;      // (N)
@group(0) @binding(7) var<storage, read_write> dx: array<f32>;     // (N, C)
@group(0) @binding(8) var<storage, read_write> dw: array<f32>;     // (C)

var<workgroup> partial: array<f32, WG>;

fn row_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 { return wid.x + wid.y * nwg.x; }

fn reduce_sum(lid: u32, v: f32) -> f32 {
  partial[lid] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    if (lid < s) { partial[lid] = partial[lid] + partial[lid + s]; }
    workgroupBarrier();
  }
  let total = partial[0];
  workgroupBarrier(); // partial is reused by the next reduction
  return total;
}

@compute @workgroup_size(WG)
fn forward_rmsnorm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = row_index(wid, nwg);
  if (n >= params.N) { return; } // uniform per workgroup: the barrier below is safe
  let C = params.C;
  let base = n * C;
  var ss = 0.0;
  for (var c = lid; c < C; c = c + WG) { let v = x[base + c]; ss = ss + v * v; }
  let r = inverseSqrt(reduce_sum(lid, ss) / f32(C) + params.eps);
  for (var c = lid; c < C; c = c + WG) { out[base + c] = x[base + c] * r * w[c]; }
  if (lid == 0u) { rstd[n] = r; }
}

// forward: out[c] = x[c] · r · w[c],  ∂r/∂x[c] = −r³ · x[c] / C
// ⇒ dx[c] = dout[c] · w[c] · r − r³ · x[c] / C · Σ_k dout[k] · w[k] · x[k]
@compute @workgroup_size(WG)
fn backward_rmsnorm_dx(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = row_index(wid, nwg);
  if (n >= params.N) { return; }
  let C = params.C;
  let base = n * C;
  let r = rstd_in[n];
  var dot = 0.0;
  for (var c = lid; c < C; c = c + WG) { dot = dot + dout[base + c] * w[c] * x[base + c]; }
  let k = reduce_sum(lid, dot) * r * r * r / f32(C);
  for (var c = lid; c < C; c = c + WG) { dx[base + c] = dout[base + c] * w[c] * r - k * x[base + c]; }
}

// dw[c] (+)= Σ_n dout[n, c] · x[n, c] · rstd[n]
@compute @workgroup_size(WG)
fn backward_rmsnorm_dw(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = gid.x;
  if (c >= params.C) { return; }
  var s = 0.0;
  for (var n = 0u; n < params.N; n = n + 1u) { s = s + dout[n * params.C + c] * x[n * params.C + c] * rstd_in[n]; }
  if (params.accumulate != 0u) { s = s + dw[c]; }
  dw[c] = s;
}

// ---- v2: one invocation per row (narrow rows) ----------------------------------------------

@compute @workgroup_size(WG)
fn forward_rmsnorm_row(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = gid.x + gid.y * nwg.x * WG;
  if (n >= params.N) { return; }
  let C = params.C;
  let base = n * C;
  var ss = 0.0;
  for (var c = 0u; c < C; c = c + 1u) { let v = x[base + c]; ss = ss + v * v; }
  let r = inverseSqrt(ss / f32(C) + params.eps);
  for (var c = 0u; c < C; c = c + 1u) { out[base + c] = x[base + c] * r * w[c]; }
  rstd[n] = r;
}

@compute @workgroup_size(WG)
fn backward_rmsnorm_dx_row(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = gid.x + gid.y * nwg.x * WG;
  if (n >= params.N) { return; }
  let C = params.C;
  let base = n * C;
  let r = rstd_in[n];
  var dot = 0.0;
  for (var c = 0u; c < C; c = c + 1u) { dot = dot + dout[base + c] * w[c] * x[base + c]; }
  let k = dot * r * r * r / f32(C);
  for (var c = 0u; c < C; c = c + 1u) { dx[base + c] = dout[base + c] * w[c] * r - k * x[base + c]; }
}
