// Causal grouped-query attention, backward step 1 of 3: per query row, the two scalars the dq and
// dk/dv kernels need, packed in one buffer (so those kernels stay within 8 storage bindings):
//   stats[b, h, t] = (lse[b, h, t], Δ[b, h, t] = Σ_d dout[b, t, h, d] · out[b, t, h, d])
// Δ = Σ_s P·dP (the softmax backward's row term), computed from out instead of from P (FlashAttention-2).
// One thread per row; dispatch (ceil(T / THREADS), Hq, B). Composed after the tile constants and
// attention_common.wgsl (BLOCK_Q, BLOCK_K are unused here).

@group(0) @binding(1) var<storage, read> dout: array<f32>;           // (B, T, Hq, D)
@group(0) @binding(2) var<storage, read> out: array<f32>;            // (B, T, Hq, D)
@group(0) @binding(3) var<storage, read> lse: array<f32>;            // (B, Hq, T)
@group(0) @binding(4) var<storage, read_write> stats: array<f32>;    // (B, Hq, T, 2)

@compute @workgroup_size(THREADS)
fn backward_attention_stats(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t = gid.x;
  let h = gid.y;
  let b = gid.z;
  if (t >= params.tq) {
    return;
  }
  var delta = 0.0;
  for (var d = params.loop_start; d < HEAD_DIM; d++) {
    let i = q_index(b, t, h, d);
    delta += dout[i] * out[i];
  }
  let row = row_index(b, h, t);
  stats[2u * row] = lse[row];
  stats[2u * row + 1u] = delta;
}
