// Token embedding: out[n, :] = table[ids[n], :]; backward scatter-adds dout rows into dtable.
// A table larger than one storage binding is stored as row parts (src/model/weights.ts): each
// dispatch sees rows [row0, row0 + V) of the full table; ids outside them are left to the other
// parts' dispatches (`partial` = 1) or, for a whole table, give zeros (never happens: ids are
// checked on the host before dispatch; the guard only avoids out-of-bounds access).
// Backward: one thread per column c loops over the tokens in order, so repeated ids accumulate
// correctly and deterministically without float atomics (parallel over C, serial over N).
// forward_embedding_f16 reads a frozen table stored as f16 pairs in u32 words (low half = even
// element, src/ops/matmulPackedF16.ts), unpacked with the core builtin: no `shader-f16` needed.

const WG: u32 = 256u;

struct Params {
  N: u32,
  C: u32,
  V: u32,       // rows bound in this dispatch
  row0: u32,    // first vocabulary row of the bound part
  partial: u32, // 1: ids outside [row0, row0 + V) belong to another part: leave their output alone
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> ids: array<i32>;          // (N)
@group(0) @binding(2) var<storage, read> table: array<f32>;        // (V, C)
@group(0) @binding(3) var<storage, read_write> out: array<f32>;    // (N, C)
@group(0) @binding(4) var<storage, read> dout: array<f32>;         // (N, C)
@group(0) @binding(5) var<storage, read_write> dtable: array<f32>; // (V, C), accumulated into
@group(0) @binding(6) var<storage, read> tableF16: array<u32>;     // (V, C) as ceil(V·C / 2) f16 pairs

// Row of token n inside the bound part, or -1 when it lies outside.
fn localRow(n: u32) -> i32 {
  let r = ids[n] - i32(params.row0);
  if (r < 0 || u32(r) >= params.V) { return -1; }
  return r;
}

@compute @workgroup_size(WG)
fn forward_embedding(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.N * params.C) { return; }
  let n = i / params.C;
  let c = i % params.C;
  let r = localRow(n);
  if (r < 0) {
    if (params.partial == 0u) { out[i] = 0.0; }
    return;
  }
  out[i] = table[u32(r) * params.C + c];
}

@compute @workgroup_size(WG)
fn forward_embedding_f16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.N * params.C) { return; }
  let n = i / params.C;
  let c = i % params.C;
  let r = localRow(n);
  if (r < 0) {
    if (params.partial == 0u) { out[i] = 0.0; }
    return;
  }
  let e = u32(r) * params.C + c;
  let pair = unpack2x16float(tableF16[e >> 1u]);
  out[i] = select(pair.x, pair.y, (e & 1u) == 1u);
}

@compute @workgroup_size(WG)
fn backward_embedding(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = gid.x;
  if (c >= params.C) { return; }
  for (var n = 0u; n < params.N; n = n + 1u) {
    let r = localRow(n);
    if (r < 0) { continue; }
    let j = u32(r) * params.C + c;
    dtable[j] = dtable[j] + dout[n * params.C + c];
  }
}
