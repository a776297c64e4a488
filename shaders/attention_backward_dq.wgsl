// Causal grouped-query attention, backward step 2 of 3: dq. Reference: attentionBackward in
// src/reference/ops/attention.ts. Composed after the tile constants and attention_common.wgsl.
//
// Algorithm (one workgroup per (query tile of BLOCK_Q rows, query head h, batch row b)):
//   load Q, dO tiles and the rows' (lse, Δ) once
//   for each key tile up to the tile's last row (future tiles skipped):
//     V tile → dP = dO·Vᵀ                       (BLOCK_Q, BLOCK_K), kept in sS
//     K tile → P = exp(scale·Q·Kᵀ − lse) on allowed entries, dS = P ∘ (dP − Δ), written over dP
//     acc += dS·K                               (registers: ACC_N (row, d) pairs per thread)
//   dq = scale · acc
// Probabilities are recomputed from q, k and lse: no T×T matrix is stored. A padding row has no
// allowed entry, so P = 0 and its dq is 0.
//
// Workgroup memory (floats): 2·BLOCK_Q·D + BLOCK_K·D + BLOCK_Q·BLOCK_K + 3·BLOCK_Q + BLOCK_K.
// Versions: v1 — one K/V buffer reused per key tile (5 barriers per key tile).

@group(0) @binding(1) var<storage, read> q: array<f32>;          // (B, T, Hq, D)
@group(0) @binding(2) var<storage, read> k: array<f32>;          // (B, T, Hkv, D)
@group(0) @binding(3) var<storage, read> v: array<f32>;          // (B, T, Hkv, D)
@group(0) @binding(4) var<storage, read> segments: array<i32>;   // (B, T), or a dummy
@group(0) @binding(5) var<storage, read> dout: array<f32>;       // (B, T, Hq, D)
@group(0) @binding(6) var<storage, read> stats: array<f32>;      // (B, Hq, T, 2) = (lse, Δ)
@group(0) @binding(7) var<storage, read_write> dq: array<f32>;   // (B, T, Hq, D)

const ACC_N: u32 = (BLOCK_Q * HEAD_DIM + THREADS - 1u) / THREADS; // dq elements per thread

var<workgroup> sQ: array<f32, BLOCK_Q * HEAD_DIM>;  // (BLOCK_Q, D)
var<workgroup> sDO: array<f32, BLOCK_Q * HEAD_DIM>; // (BLOCK_Q, D)
var<workgroup> sKV: array<f32, BLOCK_K * HEAD_DIM>; // (BLOCK_K, D) value tile, then key tile
var<workgroup> sS: array<f32, BLOCK_Q * BLOCK_K>;   // (BLOCK_Q, BLOCK_K) dP, then dS
var<workgroup> sLse: array<f32, BLOCK_Q>;
var<workgroup> sDelta: array<f32, BLOCK_Q>;
var<workgroup> sSegQ: array<i32, BLOCK_Q>;
var<workgroup> sSegK: array<i32, BLOCK_K>;

@compute @workgroup_size(THREADS)
fn backward_attention_dq(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let q0 = wg.x * BLOCK_Q;
  let h = wg.y;
  let b = wg.z;
  let kh = h / params.group;
  let T = params.tq;
  let rows = min(BLOCK_Q, T - q0);
  let kEnd = q0 + rows; // causal: keys [0, kEnd)

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
  var acc: array<f32, ACC_N>; // (row, d) pairs lid + j·THREADS of the (BLOCK_Q, D) dq tile

  let nTiles = (kEnd + BLOCK_K - 1u) / BLOCK_K;
  for (var kt = 0u; kt < nTiles; kt++) {
    let k0 = kt * BLOCK_K;
    // V tile and key segment ids
    for (var i = lid; i < BLOCK_K * HEAD_DIM; i += THREADS) {
      let s = k0 + i / HEAD_DIM;
      var x = 0.0;
      if (s < kEnd) {
        x = v[kv_index(b, s, kh, i % HEAD_DIM)];
      }
      sKV[i] = x;
    }
    if (lid < BLOCK_K) {
      let s = k0 + lid;
      var seg = NO_KEY_SEG;
      if (s < kEnd) {
        seg = 0;
        if (params.has_segments == 1u) {
          seg = segments[b * T + s];
        }
      }
      sSegK[lid] = seg;
    }
    workgroupBarrier();

    // dP = dO·Vᵀ (the same thread later turns its own entries into dS: no barrier needed between)
    for (var i = lid; i < BLOCK_Q * BLOCK_K; i += THREADS) {
      let r = i / BLOCK_K;
      let c = i % BLOCK_K;
      var dp = 0.0;
      for (var d = params.loop_start; d < HEAD_DIM; d++) {
        dp += sDO[r * HEAD_DIM + d] * sKV[c * HEAD_DIM + d];
      }
      sS[i] = dp;
    }
    workgroupBarrier(); // everyone is done with the V tile

    // K tile
    for (var i = lid; i < BLOCK_K * HEAD_DIM; i += THREADS) {
      let s = k0 + i / HEAD_DIM;
      var x = 0.0;
      if (s < kEnd) {
        x = k[kv_index(b, s, kh, i % HEAD_DIM)];
      }
      sKV[i] = x;
    }
    workgroupBarrier();

    // forward: P = softmax(score) ⇒ dS = P ∘ (dP − Δ), with P = exp(scale·q·k − lse)
    for (var i = lid; i < BLOCK_Q * BLOCK_K; i += THREADS) {
      let r = i / BLOCK_K;
      let c = i % BLOCK_K;
      var ds = 0.0;
      if (k0 + c <= q0 + r && sSegQ[r] >= 0 && sees(sSegQ[r], sSegK[c])) {
        var dot = 0.0;
        for (var d = params.loop_start; d < HEAD_DIM; d++) {
          dot += sQ[r * HEAD_DIM + d] * sKV[c * HEAD_DIM + d];
        }
        let p = exp(params.scale * dot - sLse[r]);
        ds = p * (sS[i] - sDelta[r]);
      }
      sS[i] = ds;
    }
    workgroupBarrier();

    // forward: score = scale·q·k ⇒ dq += dS·k (scale applied at the end)
    for (var j = 0u; j < ACC_N; j++) {
      let i = lid + j * THREADS;
      if (i < BLOCK_Q * HEAD_DIM) {
        let r = i / HEAD_DIM;
        let d = i % HEAD_DIM;
        var a = acc[j];
        for (var c = params.loop_start; c < BLOCK_K; c++) {
          a += sS[r * BLOCK_K + c] * sKV[c * HEAD_DIM + d];
        }
        acc[j] = a;
      }
    }
    workgroupBarrier(); // before the next tile overwrites sKV and sS
  }

  for (var j = 0u; j < ACC_N; j++) {
    let i = lid + j * THREADS;
    let r = i / HEAD_DIM;
    if (i < BLOCK_Q * HEAD_DIM && r < rows) {
      dq[q_index(b, q0 + r, h, i % HEAD_DIM)] = params.scale * acc[j];
    }
  }
}
