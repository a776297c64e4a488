// Fused log-softmax + gather over the vocabulary: token log-probabilities (GRPO needs them) and
// masked cross-entropy (SFT), plus the per-row entropy (an RL metric).
// Forward: one workgroup per row; max then Σ exp(x − max) keeps logits of 1e4 finite.
// Small vocabularies (byte presets, V ≤ 2048) use one invocation per row instead: no barriers,
// which is much faster on CPU adapters.
// Backward: one thread per logit, softmax recomputed from the saved lse (no (N, V) probabilities
// kept), dlogits = dlogp · (onehot(t) − softmax). The in-place variant overwrites the logits with
// their gradient (llm.c style), saving an (N, V) buffer — the largest one in a Qwen3-vocab model.
// Entropy bonus (GRPO): the *_entropy backward variants take per-row coefficients (dlogp, dH, H)
// and add dH · ∂H/∂z_j = −dH · p_j · (log p_j + H) in the same pass, so the in-place backward
// still reads each logit exactly once before overwriting it (H from forward_entropy*, run earlier).
// Temperature (GRPO with rollouts sampled at T ≠ 1): every kernel reads the logits as z = x · invTemp,
// so logp, lse, H and p are those of softmax(x / T), and the backward's dlogits = invTemp · dL/dz
// (chain rule through z = x / T). invTemp = 1 multiplies by 1.0: exactly the untempered results.

const WG: u32 = 256u;

struct Params { N: u32, V: u32, invTemp: f32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;          // (N, V)
@group(0) @binding(2) var<storage, read> targets: array<i32>;         // (N)
@group(0) @binding(3) var<storage, read_write> logp: array<f32>;      // (N)
@group(0) @binding(4) var<storage, read_write> lse: array<f32>;       // (N)
@group(0) @binding(5) var<storage, read> dlogp: array<f32>;           // (N)
@group(0) @binding(6) var<storage, read> lse_in: array<f32>;          // (N)
@group(0) @binding(7) var<storage, read_write> dlogits: array<f32>;   // (N, V)
@group(0) @binding(8) var<storage, read_write> logits_rw: array<f32>; // (N, V) in-place backward
@group(0) @binding(9) var<storage, read_write> entropy: array<f32>;   // (N)
@group(0) @binding(10) var<storage, read> grad_rows: array<f32>;      // (N, 3) (dlogp, dH, H) per row

var<workgroup> scratch: array<f32, WG>;

fn row_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 { return wid.x + wid.y * nwg.x; }

fn reduce_max(lid: u32, v: f32) -> f32 {
  scratch[lid] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    if (lid < s) { scratch[lid] = max(scratch[lid], scratch[lid + s]); }
    workgroupBarrier();
  }
  let r = scratch[0];
  workgroupBarrier();
  return r;
}

fn reduce_sum(lid: u32, v: f32) -> f32 {
  scratch[lid] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    if (lid < s) { scratch[lid] = scratch[lid] + scratch[lid + s]; }
    workgroupBarrier();
  }
  let r = scratch[0];
  workgroupBarrier();
  return r;
}

// the tempered logit z = x / T of element i
fn z(i: u32) -> f32 { return logits[i] * params.invTemp; }

fn row_lse(lid: u32, base: u32) -> f32 {
  var m = -3.402823e38;
  for (var j = lid; j < params.V; j = j + WG) { m = max(m, z(base + j)); }
  m = reduce_max(lid, m);
  var s = 0.0;
  for (var j = lid; j < params.V; j = j + WG) { s = s + exp(z(base + j) - m); }
  return m + log(reduce_sum(lid, s));
}

// logp[n] = z[n, t_n] − lse[n]  (lse over z)
@compute @workgroup_size(WG)
fn forward_logprob(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = row_index(wid, nwg);
  if (n >= params.N) { return; }
  let base = n * params.V;
  let l = row_lse(lid, base);
  if (lid == 0u) {
    lse[n] = l;
    logp[n] = z(base + u32(targets[n])) - l;
  }
}

// entropy[n] = −Σ_j p_j log p_j = lse − Σ_j p_j · z_j
@compute @workgroup_size(WG)
fn forward_entropy(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let n = row_index(wid, nwg);
  if (n >= params.N) { return; }
  let base = n * params.V;
  let l = lse_in[n];
  var s = 0.0;
  for (var j = lid; j < params.V; j = j + WG) {
    let x = z(base + j);
    s = s + exp(x - l) * x;
  }
  let px = reduce_sum(lid, s);
  if (lid == 0u) { entropy[n] = l - px; }
}

// forward: logp = z[t] − lse  ⇒  dlogits[j] = invTemp · dlogp · (onehot(t)[j] − softmax(z)[j])
@compute @workgroup_size(WG)
fn backward_logprob(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.N * params.V) { return; }
  let n = i / params.V;
  let j = i % params.V;
  let onehot = select(0.0, 1.0, i32(j) == targets[n]);
  dlogits[i] = params.invTemp * dlogp[n] * (onehot - exp(z(i) - lse_in[n]));
}

@compute @workgroup_size(WG)
fn backward_logprob_inplace(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.N * params.V) { return; }
  let n = i / params.V;
  let j = i % params.V;
  let onehot = select(0.0, 1.0, i32(j) == targets[n]);
  logits_rw[i] = params.invTemp * dlogp[n] * (onehot - exp(logits_rw[i] * params.invTemp - lse_in[n]));
}

// forward: logp = z_t − lse, H = −Σ_j p_j log p_j, p = softmax(z)  ⇒
//   dlogits[j] = invTemp · (dlogp · (onehot(t)[j] − p_j) + dH · (−p_j · (log p_j + H)))
// x is the stored (untempered) logit.
fn logprob_entropy_grad(i: u32, x: f32) -> f32 {
  let n = i / params.V;
  let j = i % params.V;
  let a = grad_rows[3u * n];
  let b = grad_rows[3u * n + 1u];
  let H = grad_rows[3u * n + 2u];
  let lp = x * params.invTemp - lse_in[n];
  let p = exp(lp);
  let onehot = select(0.0, 1.0, i32(j) == targets[n]);
  return params.invTemp * (a * onehot - p * (a + b * (lp + H)));
}

@compute @workgroup_size(WG)
fn backward_logprob_entropy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.N * params.V) { return; }
  dlogits[i] = logprob_entropy_grad(i, logits[i]);
}

@compute @workgroup_size(WG)
fn backward_logprob_entropy_inplace(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.N * params.V) { return; }
  logits_rw[i] = logprob_entropy_grad(i, logits_rw[i]);
}

// ---- one invocation per row (small vocabularies) --------------------------------------------

@compute @workgroup_size(64)
fn forward_logprob_row(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = gid.x + gid.y * nwg.x * 64u;
  if (n >= params.N) { return; }
  let base = n * params.V;
  var m = -3.402823e38;
  for (var j = 0u; j < params.V; j = j + 1u) { m = max(m, z(base + j)); }
  var s = 0.0;
  for (var j = 0u; j < params.V; j = j + 1u) { s = s + exp(z(base + j) - m); }
  let l = m + log(s);
  lse[n] = l;
  logp[n] = z(base + u32(targets[n])) - l;
}

@compute @workgroup_size(64)
fn forward_entropy_row(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = gid.x + gid.y * nwg.x * 64u;
  if (n >= params.N) { return; }
  let base = n * params.V;
  let l = lse_in[n];
  var s = 0.0;
  for (var j = 0u; j < params.V; j = j + 1u) { let x = z(base + j); s = s + exp(x - l) * x; }
  entropy[n] = l - s;
}
