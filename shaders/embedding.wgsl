// Token embedding: out[n, :] = table[ids[n], :]; backward scatter-adds dout rows into dtable.
// Backward: one thread per column c loops over the tokens in order, so repeated ids accumulate
// correctly and deterministically without float atomics (parallel over C, serial over N).
// Out-of-range ids are rejected on the host before dispatch; the guards here only avoid OOB access.

const WG: u32 = 256u;

struct Params { N: u32, C: u32, V: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> ids: array<i32>;          // (N)
@group(0) @binding(2) var<storage, read> table: array<f32>;        // (V, C)
@group(0) @binding(3) var<storage, read_write> out: array<f32>;    // (N, C)
@group(0) @binding(4) var<storage, read> dout: array<f32>;         // (N, C)
@group(0) @binding(5) var<storage, read_write> dtable: array<f32>; // (V, C), accumulated into

@compute @workgroup_size(WG)
fn forward_embedding(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.N * params.C) { return; }
  let n = i / params.C;
  let c = i % params.C;
  let id = ids[n];
  if (id < 0 || u32(id) >= params.V) { out[i] = 0.0; return; }
  out[i] = table[u32(id) * params.C + c];
}

@compute @workgroup_size(WG)
fn backward_embedding(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = gid.x;
  if (c >= params.C) { return; }
  for (var n = 0u; n < params.N; n = n + 1u) {
    let id = ids[n];
    if (id < 0 || u32(id) >= params.V) { continue; }
    let j = u32(id) * params.C + c;
    dtable[j] = dtable[j] + dout[n * params.C + c];
  }
}
