// KV cache write: copies the new keys/values of Tq tokens per batch row into the cache at each
// row's own offset: cache[b, pastLen[b] + t, :, :] = src[b, t, :, :]. Rows past the capacity are
// dropped (the host checks capacity before decoding). Also a row gather used to pick, per batch
// row, the hidden state of its last real token before the LM head.

const WG: u32 = 256u;

struct Params { B: u32, Tq: u32, Tmax: u32, HD: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<f32>;          // (B, Tq, Hkv·D)
@group(0) @binding(2) var<storage, read> past_len: array<i32>;     // (B)
@group(0) @binding(3) var<storage, read_write> cache: array<f32>;  // (B, Tmax, Hkv·D)

@compute @workgroup_size(WG)
fn forward_cache_write(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.B * params.Tq * params.HD) { return; }
  let e = i % params.HD;
  let bt = i / params.HD;
  let t = bt % params.Tq;
  let b = bt / params.Tq;
  let row = u32(past_len[b]) + t;
  if (row >= params.Tmax) { return; }
  cache[(b * params.Tmax + row) * params.HD + e] = src[i];
}
