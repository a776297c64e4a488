// Rotary position embedding, HF/Qwen3 rotate_half convention (dimension i pairs with i + D/2):
//   out[i] = x[i]·cos − x[i+D/2]·sin;  out[i+D/2] = x[i+D/2]·cos + x[i]·sin,  angle = pos·θ^(−2i/D)
// cos/sin come from a (P, D/2) table computed on the host in float64: an f32 angle at position
// 40 000 would be off by ~1e-3 rad. Backward applies the inverse rotation (angle → −angle).
// One thread per (b, t, h, i < D/2).

const WG: u32 = 256u;

struct Params { BT: u32, H: u32, D: u32, P: u32, sign: f32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;          // (B, T, H, D)
@group(0) @binding(2) var<storage, read> positions: array<i32>;  // (B, T)
@group(0) @binding(3) var<storage, read> cos_table: array<f32>;  // (P, D/2)
@group(0) @binding(4) var<storage, read> sin_table: array<f32>;  // (P, D/2)
@group(0) @binding(5) var<storage, read_write> out: array<f32>;  // (B, T, H, D)

// sign = +1: forward rotation; sign = −1: its transpose (the backward of the forward).
@compute @workgroup_size(WG)
fn forward_rope(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let half = params.D / 2u;
  let idx = gid.x + gid.y * nwg.x * WG;
  if (idx >= params.BT * params.H * half) { return; }
  let i = idx % half;
  let bth = idx / half;          // (b·T + t)·H + h
  let bt = bth / params.H;
  let pos = u32(clamp(positions[bt], 0, i32(params.P) - 1));
  let c = cos_table[pos * half + i];
  let s = params.sign * sin_table[pos * half + i];
  let o = bth * params.D;
  let x1 = x[o + i];
  let x2 = x[o + i + half];
  out[o + i] = x1 * c - x2 * s;
  out[o + i + half] = x2 * c + x1 * s;
}
