// Causal grouped-query attention, backward step 3 of 3: dk and dv. Reference: attentionBackward in
// src/reference/ops/attention.ts. Composed after the tile constants and attention_common.wgsl.
//
// Algorithm (one workgroup per (key tile of BLOCK_K rows, kv head kh, batch row b)):
//   load K, V tiles once
//   for each query head h of kh's group (h = kh·group … kh·group + group − 1):
//     for each query tile from the key tile's first row on (earlier, fully masked tiles skipped):
//       load Q, dO tiles and the rows' (lse, Δ)
//       P = exp(scale·Q·Kᵀ − lse) on allowed entries, dP = dO·Vᵀ, dS = P ∘ (dP − Δ)
//       dv += Pᵀ·dO, dk += dSᵀ·Q               (registers: 2·ACC_N (key row, d) pairs per thread)
//   dk = scale · dk
// GQA: the workgroup owns its kv head's rows outright and loops over the group's query heads, so
// the sum over query heads needs no float atomics and no second reduction pass.
//
// Workgroup memory (floats): 2·BLOCK_K·D + 2·BLOCK_Q·D + 2·BLOCK_Q·BLOCK_K + 3·BLOCK_Q + BLOCK_K.
// Versions: v1 — all four tiles resident (2 barriers per query tile).

@group(0) @binding(1) var<storage, read> q: array<f32>;          // (B, T, Hq, D)
@group(0) @binding(2) var<storage, read> k: array<f32>;          // (B, T, Hkv, D)
@group(0) @binding(3) var<storage, read> v: array<f32>;          // (B, T, Hkv, D)
@group(0) @binding(4) var<storage, read> segments: array<i32>;   // (B, T), or a dummy
@group(0) @binding(5) var<storage, read> dout: array<f32>;       // (B, T, Hq, D)
@group(0) @binding(6) var<storage, read> stats: array<f32>;      // (B, Hq, T, 2) = (lse, Δ)
@group(0) @binding(7) var<storage, read_write> dk: array<f32>;   // (B, T, Hkv, D)
@group(0) @binding(8) var<storage, read_write> dv: array<f32>;   // (B, T, Hkv, D)

const ACC_N: u32 = (BLOCK_K * HEAD_DIM + THREADS - 1u) / THREADS; // dk (and dv) elements per thread

var<workgroup> sK: array<f32, BLOCK_K * HEAD_DIM>;  // (BLOCK_K, D)
var<workgroup> sV: array<f32, BLOCK_K * HEAD_DIM>;  // (BLOCK_K, D)
var<workgroup> sQ: array<f32, BLOCK_Q * HEAD_DIM>;  // (BLOCK_Q, D)
var<workgroup> sDO: array<f32, BLOCK_Q * HEAD_DIM>; // (BLOCK_Q, D)
var<workgroup> sP: array<f32, BLOCK_Q * BLOCK_K>;   // (BLOCK_Q, BLOCK_K) probabilities
var<workgroup> sDS: array<f32, BLOCK_Q * BLOCK_K>;  // (BLOCK_Q, BLOCK_K) score gradients
var<workgroup> sLse: array<f32, BLOCK_Q>;
var<workgroup> sDelta: array<f32, BLOCK_Q>;
var<workgroup> sSegQ: array<i32, BLOCK_Q>;
var<workgroup> sSegK: array<i32, BLOCK_K>;

@compute @workgroup_size(THREADS)
fn backward_attention_dkdv(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let k0 = wg.x * BLOCK_K;
  let kh = wg.y;
  let b = wg.z;
  let T = params.tq;
  let keys = min(BLOCK_K, T - k0);

  for (var i = lid; i < BLOCK_K * HEAD_DIM; i += THREADS) {
    let c = i / HEAD_DIM;
    var x = 0.0;
    var y = 0.0;
    if (c < keys) {
      let gi = kv_index(b, k0 + c, kh, i % HEAD_DIM);
      x = k[gi];
      y = v[gi];
    }
    sK[i] = x;
    sV[i] = y;
  }
  if (lid < BLOCK_K) {
    var seg = NO_KEY_SEG;
    if (lid < keys) {
      seg = 0;
      if (params.has_segments == 1u) {
        seg = segments[b * T + k0 + lid];
      }
    }
    sSegK[lid] = seg;
  }
  var accK: array<f32, ACC_N>; // (key row, d) pairs lid + j·THREADS of the (BLOCK_K, D) dk tile
  var accV: array<f32, ACC_N>; // the same pairs of the dv tile

  let firstTile = k0 / BLOCK_Q; // query tiles before it only hold rows t < k0: fully masked
  let nTiles = (T + BLOCK_Q - 1u) / BLOCK_Q;
  for (var j = 0u; j < params.group; j++) {
    let h = kh * params.group + j;
    for (var qt = firstTile; qt < nTiles; qt++) {
      let q0 = qt * BLOCK_Q;
      let rows = min(BLOCK_Q, T - q0);
      // Q, dO tiles and row stats (the previous iteration ended on a barrier)
      for (var i = lid; i < BLOCK_Q * HEAD_DIM; i += THREADS) {
        let r = i / HEAD_DIM;
        var x = 0.0;
        var g = 0.0;
        if (r < rows) {
          let gi = q_index(b, q0 + r, h, i % HEAD_DIM);
          x = q[gi];
          g = dout[gi];
        }
        sQ[i] = x;
        sDO[i] = g;
      }
      if (lid < BLOCK_Q) {
        var seg = NO_QUERY_SEG;
        var l = 0.0;
        var delta = 0.0;
        if (lid < rows) {
          let row = row_index(b, h, q0 + lid);
          l = stats[2u * row];
          delta = stats[2u * row + 1u];
          seg = 0;
          if (params.has_segments == 1u) {
            seg = segments[b * T + q0 + lid];
          }
        }
        sSegQ[lid] = seg;
        sLse[lid] = l;
        sDelta[lid] = delta;
      }
      workgroupBarrier();

      // P = exp(scale·q·k − lse), dP = dO·v, dS = P ∘ (dP − Δ) on allowed entries
      for (var i = lid; i < BLOCK_Q * BLOCK_K; i += THREADS) {
        let r = i / BLOCK_K;
        let c = i % BLOCK_K;
        var p = 0.0;
        var ds = 0.0;
        if (k0 + c <= q0 + r && sSegQ[r] >= 0 && sees(sSegQ[r], sSegK[c])) {
          var dot = 0.0;
          var dp = 0.0;
          for (var d = params.loop_start; d < HEAD_DIM; d++) {
            dot += sQ[r * HEAD_DIM + d] * sK[c * HEAD_DIM + d];
            dp += sDO[r * HEAD_DIM + d] * sV[c * HEAD_DIM + d];
          }
          p = exp(params.scale * dot - sLse[r]);
          ds = p * (dp - sDelta[r]);
        }
        sP[i] = p;
        sDS[i] = ds;
      }
      workgroupBarrier();

      // forward: out = P·v ⇒ dv += Pᵀ·dO;  forward: score = scale·q·k ⇒ dk += dSᵀ·q (scale at the end)
      for (var jj = 0u; jj < ACC_N; jj++) {
        let i = lid + jj * THREADS;
        if (i < BLOCK_K * HEAD_DIM) {
          let c = i / HEAD_DIM;
          let d = i % HEAD_DIM;
          var aK = accK[jj];
          var aV = accV[jj];
          for (var r = params.loop_start; r < BLOCK_Q; r++) {
            aV += sP[r * BLOCK_K + c] * sDO[r * HEAD_DIM + d];
            aK += sDS[r * BLOCK_K + c] * sQ[r * HEAD_DIM + d];
          }
          accK[jj] = aK;
          accV[jj] = aV;
        }
      }
      workgroupBarrier(); // before the next query tile overwrites sQ, sDO, sP and sDS
    }
  }

  for (var jj = 0u; jj < ACC_N; jj++) {
    let i = lid + jj * THREADS;
    let c = i / HEAD_DIM;
    if (i < BLOCK_K * HEAD_DIM && c < keys) {
      let gi = kv_index(b, k0 + c, kh, i % HEAD_DIM);
      dk[gi] = params.scale * accK[jj];
      dv[gi] = accV[jj];
    }
  }
}
