// Causal grouped-query attention, forward (flash-attention style) — training and KV-cache decode.
// Reference: src/reference/ops/attention.ts (attentionForward). Composed after the tile constants
// and attention_common.wgsl by src/ops/attention.ts.
//
// Algorithm (one workgroup per (query tile of BLOCK_Q rows, query head h, batch row b)):
//   load the query tile, pre-scaled by `scale`, into workgroup memory
//   for each key tile [k0, k0 + BLOCK_K) up to the last position any row of the tile may see:
//     K tile → S = Q·Kᵀ (masked entries MASKED)
//     per row: m' = max(m, max S), α = exp(m − m'), P = exp(S − m'), l = α·l + ΣP   (online softmax)
//     V tile → acc = α·acc + P·V   (acc lives in registers: each thread owns ACC_N (row, d) pairs)
//   out = acc / l, lse = m + log l; a row with no allowed key (padding) gets out = 0, lse = 0.
// Only out and lse reach memory: no T×T matrix ever exists. Future key tiles are never visited.
// Decode: query row t sits at position pos0 + t (pos0 = past length, uniform or per batch row)
// and attends the cache's keys 0..pos; cache rows past the tile's last position are loaded as 0,
// so unwritten (even NaN) cache memory is never read into the result.
//
// Workgroup memory (floats): (BLOCK_Q + BLOCK_K)·D + BLOCK_Q·BLOCK_K + 4·BLOCK_Q + BLOCK_K;
// the op picks the largest tiles that fit the device's maxComputeWorkgroupStorageSize.
// Versions: v1 — scalar loads, one K/V buffer reused per key tile (4 barriers per key tile).

@group(0) @binding(1) var<storage, read> q: array<f32>;         // (B, Tq, Hq, D)
@group(0) @binding(2) var<storage, read> k: array<f32>;         // (B, Tk, Hkv, D)
@group(0) @binding(3) var<storage, read> v: array<f32>;         // (B, Tk, Hkv, D)
@group(0) @binding(4) var<storage, read> segments: array<i32>;  // (B, Tk), or a dummy
@group(0) @binding(5) var<storage, read> offsets: array<i32>;   // (B) past lengths, or a dummy
@group(0) @binding(6) var<storage, read_write> out: array<f32>; // (B, Tq, Hq, D)
@group(0) @binding(7) var<storage, read_write> lse: array<f32>; // (B, Hq, Tq)

const ACC_N: u32 = (BLOCK_Q * HEAD_DIM + THREADS - 1u) / THREADS; // output elements per thread

var<workgroup> sQ: array<f32, BLOCK_Q * HEAD_DIM>;  // (BLOCK_Q, D) query tile × scale
var<workgroup> sKV: array<f32, BLOCK_K * HEAD_DIM>; // (BLOCK_K, D) key tile, then value tile
var<workgroup> sS: array<f32, BLOCK_Q * BLOCK_K>;   // (BLOCK_Q, BLOCK_K) scores, then probabilities
var<workgroup> sM: array<f32, BLOCK_Q>;             // running row max
var<workgroup> sL: array<f32, BLOCK_Q>;             // running row sum of exp
var<workgroup> sAlpha: array<f32, BLOCK_Q>;         // this tile's rescale of the row's acc
var<workgroup> sSegQ: array<i32, BLOCK_Q>;          // query segment ids
var<workgroup> sSegK: array<i32, BLOCK_K>;          // key segment ids

@compute @workgroup_size(THREADS)
fn forward_attention(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let q0 = wg.x * BLOCK_Q;
  let h = wg.y;
  let b = wg.z;
  let kh = h / params.group;
  var pos0 = params.past_len; // position of query row 0
  if (params.has_offsets == 1u) {
    pos0 = u32(offsets[b]);
  }
  let rows = min(BLOCK_Q, params.tq - q0);
  let kEnd = min(params.tk, pos0 + q0 + rows); // keys [0, kEnd) may be seen by some row

  for (var i = lid; i < BLOCK_Q * HEAD_DIM; i += THREADS) {
    let r = i / HEAD_DIM;
    var x = 0.0;
    if (r < rows) {
      x = q[q_index(b, q0 + r, h, i % HEAD_DIM)] * params.scale;
    }
    sQ[i] = x;
  }
  if (lid < BLOCK_Q) {
    var seg = NO_QUERY_SEG;
    if (lid < rows) {
      seg = 0;
      if (params.has_segments == 1u) {
        seg = segments[b * params.tk + pos0 + q0 + lid];
      }
    }
    sSegQ[lid] = seg;
    sM[lid] = MASKED;
    sL[lid] = 0.0;
  }
  var acc: array<f32, ACC_N>; // (row, d) pairs lid + j·THREADS of the (BLOCK_Q, D) output tile

  let nTiles = (kEnd + BLOCK_K - 1u) / BLOCK_K;
  for (var kt = 0u; kt < nTiles; kt++) {
    let k0 = kt * BLOCK_K;
    // K tile and key segment ids
    for (var i = lid; i < BLOCK_K * HEAD_DIM; i += THREADS) {
      let s = k0 + i / HEAD_DIM;
      var x = 0.0;
      if (s < kEnd) {
        x = k[kv_index(b, s, kh, i % HEAD_DIM)];
      }
      sKV[i] = x;
    }
    if (lid < BLOCK_K) {
      let s = k0 + lid;
      var seg = NO_KEY_SEG;
      if (s < kEnd) {
        seg = 0;
        if (params.has_segments == 1u) {
          seg = segments[b * params.tk + s];
        }
      }
      sSegK[lid] = seg;
    }
    workgroupBarrier();

    // S = Q·Kᵀ on allowed entries
    for (var i = lid; i < BLOCK_Q * BLOCK_K; i += THREADS) {
      let r = i / BLOCK_K;
      let c = i % BLOCK_K;
      var score = MASKED;
      if (k0 + c <= pos0 + q0 + r && sSegQ[r] >= 0 && sees(sSegQ[r], sSegK[c])) {
        var dot = 0.0;
        for (var d = params.loop_start; d < HEAD_DIM; d++) {
          dot += sQ[r * HEAD_DIM + d] * sKV[c * HEAD_DIM + d];
        }
        score = dot;
      }
      sS[i] = score;
    }
    workgroupBarrier();

    // online softmax, one thread per row
    if (lid < BLOCK_Q) {
      let r = lid;
      var mTile = MASKED;
      for (var c = params.loop_start; c < BLOCK_K; c++) {
        mTile = max(mTile, sS[r * BLOCK_K + c]);
      }
      let mOld = sM[r];
      let mNew = max(mOld, mTile);
      var sum = 0.0;
      for (var c = params.loop_start; c < BLOCK_K; c++) {
        let sc = sS[r * BLOCK_K + c];
        let p = select(0.0, exp(sc - mNew), sc > 0.5 * MASKED);
        sS[r * BLOCK_K + c] = p;
        sum += p;
      }
      let alpha = exp(mOld - mNew); // 1 while the row has seen nothing (acc is 0 then)
      sAlpha[r] = alpha;
      sM[r] = mNew;
      sL[r] = sL[r] * alpha + sum;
    }
    workgroupBarrier(); // everyone is done with the K tile

    // V tile
    for (var i = lid; i < BLOCK_K * HEAD_DIM; i += THREADS) {
      let s = k0 + i / HEAD_DIM;
      var x = 0.0;
      if (s < kEnd) {
        x = v[kv_index(b, s, kh, i % HEAD_DIM)];
      }
      sKV[i] = x;
    }
    workgroupBarrier();

    // acc = α·acc + P·V
    for (var j = 0u; j < ACC_N; j++) {
      let i = lid + j * THREADS;
      if (i < BLOCK_Q * HEAD_DIM) {
        let r = i / HEAD_DIM;
        let d = i % HEAD_DIM;
        var a = acc[j] * sAlpha[r];
        for (var c = params.loop_start; c < BLOCK_K; c++) {
          a += sS[r * BLOCK_K + c] * sKV[c * HEAD_DIM + d];
        }
        acc[j] = a;
      }
    }
    workgroupBarrier(); // before the next tile overwrites sKV, sS and sAlpha
  }

  // the row stats written by threads < BLOCK_Q are visible here: kEnd ≥ 1, so the loop ran at
  // least one key tile, and it ends on a barrier
  for (var j = 0u; j < ACC_N; j++) {
    let i = lid + j * THREADS;
    let r = i / HEAD_DIM;
    if (i < BLOCK_Q * HEAD_DIM && r < rows) {
      let l = sL[r];
      out[q_index(b, q0 + r, h, i % HEAD_DIM)] = select(0.0, acc[j] / l, l > 0.0);
    }
  }
  if (lid < rows) {
    let l = sL[lid];
    lse[row_index(b, h, q0 + lid)] = select(0.0, sM[lid] + log(l), l > 0.0);
  }
}
