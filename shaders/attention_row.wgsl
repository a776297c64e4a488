// Causal grouped-query attention, "row" kernels for CPU adapters: each invocation owns ROWS
// consecutive query rows (forward, dq) or key rows (dk/dv) of one head, keeps them in registers and
// streams the other side's rows from memory. No workgroup memory, no barriers. Reference:
// src/reference/ops/attention.ts. Composed by src/ops/attention.ts after the constants (HEAD_DIM D,
// a multiple of 4; ROWS; THREADS) and attention_common.wgsl (Params, index helpers), with every
// `for (var i = 0u; i < D4; i++)` and `… i < ROWS …` loop unrolled (src/ops/attentionRowUnroll.ts).
//
// Why: SwiftShader and llvmpipe run a workgroup's invocations as SIMD lanes of one CPU thread, so
// the tile kernels' barriers and workgroup-memory traffic cost more than their arithmetic. Here a
// loaded k/v (or q/dO) row is shared by the invocation's ROWS rows, and the mask is applied with
// selects, not branches (CPU SIMD lanes execute both sides of a divergent branch anyway).
//   forward_attention_row        (b, h, query block):  online softmax over keys → out, lse
//   backward_attention_dq_row    (b, h, query block):  dq = scale · Σ_s P·(dP − Δ_t)·k_s
//   backward_attention_dkdv_row  (b, kv head, key block): over the kv group's query heads and the
//       queries t ≥ s:  dv = Σ P·dO_t,  dk = scale · Σ P·(dP − Δ_t)·q_t  (no atomics: it owns the rows)
// Each invocation first skips the keys (queries) before the first one in any of its rows'
// segments, so packed documents cost what their own lengths cost.
// Versions. Forward + backward at B=4, T=512, Hq=4, Hkv=2, D=24 (the nano preset), median of 5
// runs of benchAttention on a shared 2-core host (noisy; min in parentheses):
//                                  SwiftShader        llvmpipe (opengles)
//   tile kernels                   8.5 s (7.8)        4.4 s (3.7)
//   v1  1 row, loops rolled        ~6 s               ~0.28 s
//   v2  8 rows, unrolled            1.30 s (1.13)      0.175 s (0.115)
//   v2, 4 packed documents/row      0.54 s (0.41)      0.043 s (0.036)   [tile: 8.9 s, 3.1 s]
//   v1 — one row per invocation with branches. SwiftShader kept the dynamically indexed register
//        arrays in memory (per-lane gathers): unrolling the D loops alone was 3×.
//   v2 — ROWS rows per invocation (a loaded k/v row serves all of them: ROWS 1 → 8 was 2.3× on
//        SwiftShader, 5× on llvmpipe), branch-free masks (up to 2× on SwiftShader, whose lanes run
//        both sides of a branch), segment-start skip, Δ summed in the dq/dkdv order.

@group(0) @binding(1) var<storage, read> q: array<vec4<f32>>;          // (B, Tq, Hq, D)
@group(0) @binding(2) var<storage, read> k: array<vec4<f32>>;          // (B, Tk, Hkv, D)
@group(0) @binding(3) var<storage, read> v: array<vec4<f32>>;          // (B, Tk, Hkv, D)
@group(0) @binding(4) var<storage, read> segments: array<i32>;         // (B, Tk), or a dummy
@group(0) @binding(5) var<storage, read> offsets: array<i32>;          // (B) past lengths, or a dummy
@group(0) @binding(6) var<storage, read_write> out: array<vec4<f32>>;  // (B, Tq, Hq, D)
@group(0) @binding(7) var<storage, read_write> lse: array<f32>;        // (B, Hq, Tq)
@group(0) @binding(8) var<storage, read> dout: array<vec4<f32>>;       // (B, T, Hq, D)
@group(0) @binding(9) var<storage, read> stats: array<f32>;            // (B, Hq, T, 2) = (lse, Δ)
@group(0) @binding(10) var<storage, read_write> dq: array<vec4<f32>>;  // (B, T, Hq, D)
@group(0) @binding(11) var<storage, read_write> dk: array<vec4<f32>>;  // (B, T, Hkv, D)
@group(0) @binding(12) var<storage, read_write> dv: array<vec4<f32>>;  // (B, T, Hkv, D)
@group(0) @binding(13) var<storage, read> saved_out: array<vec4<f32>>; // (B, T, Hq, D) forward out, for Δ
@group(0) @binding(14) var<storage, read> saved_lse: array<f32>;       // (B, Hq, T) forward lse
@group(0) @binding(15) var<storage, read_write> stats_out: array<f32>; // (B, Hq, T, 2) = (lse, Δ)

const D4: u32 = HEAD_DIM / 4u; // vec4s per head row
// The op unrolls the loops over D4 and ROWS (so register arrays get constant indices); loops that
// run once per invocation use SETUP_ROWS and stay loops: unrolling them as well tripled
// SwiftShader's compile time (13 s → 4 s at ROWS = 8, D = 24) and gained nothing.
const SETUP_ROWS: u32 = ROWS;

// segment id of position `pos` of batch row b (0 without segments)
fn segment_of(b: u32, pos: u32) -> i32 {
  if (params.has_segments == 1u) {
    return segments[b * params.tk + pos];
  }
  return 0;
}

// ---- forward ----------------------------------------------------------------------------------
// Online softmax per row: m' = max(m, score), α = exp(m − m'), l = α·l + p, acc = α·acc + p·v,
// p = exp(score − m'); finally out = acc / l, lse = m + log l (out = lse = 0 for a row with no key).
@compute @workgroup_size(THREADS)
fn forward_attention_row(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t0 = gid.x * ROWS;
  let h = gid.y;
  let b = gid.z;
  if (t0 >= params.tq) {
    return;
  }
  let kh = h / params.group;
  var pos0 = params.past_len; // position of query row 0 (decode); 0 in training
  if (params.has_offsets == 1u) {
    pos0 = u32(offsets[b]);
  }
  let nRows = min(ROWS, params.tq - t0);
  var seg: array<i32, ROWS>;
  var valid: array<bool, ROWS>;      // a real row that is not padding
  var qr: array<vec4<f32>, ROWS * D4>;  // q rows × scale
  var acc: array<vec4<f32>, ROWS * D4>; // Σ_s exp(score − m) · v_s
  var m: array<f32, ROWS>;           // running max score
  var l: array<f32, ROWS>;           // running Σ exp(score − m)
  for (var r = 0u; r < SETUP_ROWS; r++) {
    let t = t0 + min(r, nRows - 1u); // rows past the end repeat the last one, masked out
    seg[r] = segment_of(b, pos0 + t);
    valid[r] = r < nRows && seg[r] >= 0;
    m[r] = MASKED;
    l[r] = 0.0;
    let qBase = q_index(b, t, h, 0u) / 4u;
    for (var d = 0u; d < D4; d++) {
      qr[r * D4 + d] = q[qBase + d] * params.scale;
      acc[r * D4 + d] = vec4<f32>(0.0);
    }
  }
  let kEnd = min(pos0 + t0 + nRows, params.tk); // keys [0, kEnd) may be seen by some row
  // skip keys before the first one in any valid row's segment
  var s = params.loop_start;
  for (; s < kEnd; s++) {
    let segK = segment_of(b, s);
    var hit = false;
    for (var r = 0u; r < ROWS; r++) {
      hit = hit || (valid[r] && sees(seg[r], segK));
    }
    if (hit) {
      break;
    }
  }
  for (; s < kEnd; s++) {
    let segK = segment_of(b, s);
    let kBase = kv_index(b, s, kh, 0u) / 4u;
    var kr: array<vec4<f32>, D4>;
    var vr: array<vec4<f32>, D4>;
    for (var d = 0u; d < D4; d++) {
      kr[d] = k[kBase + d];
      vr[d] = v[kBase + d];
    }
    for (var r = 0u; r < ROWS; r++) {
      let allowed = valid[r] && sees(seg[r], segK) && s <= pos0 + t0 + r;
      var dot4 = vec4<f32>(0.0);
      for (var d = 0u; d < D4; d++) {
        dot4 = fma(qr[r * D4 + d], kr[d], dot4);
      }
      let score = select(MASKED, dot4.x + dot4.y + dot4.z + dot4.w, allowed);
      let mNew = max(m[r], score);
      let alpha = exp(m[r] - mNew); // 1 unless the max moved; scales zeros before the first key
      let p = select(0.0, exp(score - mNew), allowed);
      m[r] = mNew;
      l[r] = fma(l[r], alpha, p);
      for (var d = 0u; d < D4; d++) {
        acc[r * D4 + d] = fma(acc[r * D4 + d], vec4<f32>(alpha), p * vr[d]);
      }
    }
  }
  for (var r = 0u; r < SETUP_ROWS; r++) {
    if (r < nRows) {
      let ok = l[r] > 0.0; // false for a padding row
      let inv = select(0.0, 1.0 / l[r], ok);
      let qBase = q_index(b, t0 + r, h, 0u) / 4u;
      for (var d = 0u; d < D4; d++) {
        out[qBase + d] = acc[r * D4 + d] * inv;
      }
      lse[row_index(b, h, t0 + r)] = select(0.0, m[r] + log(l[r]), ok);
    }
  }
}

// ---- backward: row statistics ------------------------------------------------------------------
// stats[b, h, t] = (lse, Δ = Σ_d dO·out), Δ summed in the order the dq and dk/dv kernels sum
// dP = dO·v: a row with one allowed key has out = v exactly, so dP − Δ is exactly 0 there (as in
// float64) instead of a rounding residue.
@compute @workgroup_size(THREADS)
fn backward_attention_stats_row(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t = gid.x;
  let h = gid.y;
  let b = gid.z;
  if (t >= params.tq) {
    return;
  }
  let base = q_index(b, t, h, 0u) / 4u;
  var delta4 = vec4<f32>(0.0);
  for (var d = 0u; d < D4; d++) {
    delta4 = fma(dout[base + d], saved_out[base + d], delta4);
  }
  let row = row_index(b, h, t);
  stats_out[2u * row] = saved_lse[row];
  stats_out[2u * row + 1u] = delta4.x + delta4.y + delta4.z + delta4.w;
}

// ---- backward: dq -----------------------------------------------------------------------------
// forward: score = scale·q·k, P = softmax(score), out = P·v.  With dP = dO·v and Δ = rowsum(dO ∘ out):
//   dS = P ∘ (dP − Δ),  dq = scale · Σ_s dS·k_s   (P recomputed as exp(score − lse))
@compute @workgroup_size(THREADS)
fn backward_attention_dq_row(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t0 = gid.x * ROWS;
  let h = gid.y;
  let b = gid.z;
  if (t0 >= params.tq) {
    return;
  }
  let kh = h / params.group;
  let nRows = min(ROWS, params.tq - t0);
  var seg: array<i32, ROWS>;
  var valid: array<bool, ROWS>;
  var rowLse: array<f32, ROWS>;
  var delta: array<f32, ROWS>;
  var qr: array<vec4<f32>, ROWS * D4>;  // q rows × scale
  var gr: array<vec4<f32>, ROWS * D4>;  // dout rows
  var acc: array<vec4<f32>, ROWS * D4>; // Σ_s dS · k_s
  for (var r = 0u; r < SETUP_ROWS; r++) {
    let t = t0 + min(r, nRows - 1u);
    seg[r] = segment_of(b, t);
    valid[r] = r < nRows && seg[r] >= 0;
    let row = row_index(b, h, t);
    rowLse[r] = stats[2u * row];
    delta[r] = stats[2u * row + 1u];
    let qBase = q_index(b, t, h, 0u) / 4u;
    for (var d = 0u; d < D4; d++) {
      qr[r * D4 + d] = q[qBase + d] * params.scale;
      gr[r * D4 + d] = dout[qBase + d];
      acc[r * D4 + d] = vec4<f32>(0.0);
    }
  }
  let last = t0 + nRows - 1u;
  var s = params.loop_start;
  for (; s <= last; s++) {
    let segK = segment_of(b, s);
    var hit = false;
    for (var r = 0u; r < ROWS; r++) {
      hit = hit || (valid[r] && sees(seg[r], segK));
    }
    if (hit) {
      break;
    }
  }
  for (; s <= last; s++) {
    let segK = segment_of(b, s);
    let kBase = kv_index(b, s, kh, 0u) / 4u;
    var kr: array<vec4<f32>, D4>;
    var vr: array<vec4<f32>, D4>;
    for (var d = 0u; d < D4; d++) {
      kr[d] = k[kBase + d];
      vr[d] = v[kBase + d];
    }
    for (var r = 0u; r < ROWS; r++) {
      let allowed = valid[r] && sees(seg[r], segK) && s <= t0 + r;
      var dot4 = vec4<f32>(0.0);
      var dp4 = vec4<f32>(0.0);
      for (var d = 0u; d < D4; d++) {
        dot4 = fma(qr[r * D4 + d], kr[d], dot4);
        dp4 = fma(gr[r * D4 + d], vr[d], dp4);
      }
      // a masked entry's exp may overflow: select, never multiply, to drop it
      let p = select(0.0, exp(dot4.x + dot4.y + dot4.z + dot4.w - rowLse[r]), allowed);
      let ds = p * (dp4.x + dp4.y + dp4.z + dp4.w - delta[r]);
      for (var d = 0u; d < D4; d++) {
        acc[r * D4 + d] = fma(vec4<f32>(ds), kr[d], acc[r * D4 + d]);
      }
    }
  }
  for (var r = 0u; r < SETUP_ROWS; r++) {
    if (r < nRows) {
      let qBase = q_index(b, t0 + r, h, 0u) / 4u;
      for (var d = 0u; d < D4; d++) {
        dq[qBase + d] = acc[r * D4 + d] * params.scale;
      }
    }
  }
}

// ---- backward: dk, dv -------------------------------------------------------------------------
// dv[s] = Σ_{h in kv group, t ≥ s} P[t, s] · dO_t;  dk[s] = scale · Σ dS[t, s] · q_t
@compute @workgroup_size(THREADS)
fn backward_attention_dkdv_row(@builtin(global_invocation_id) gid: vec3<u32>) {
  let s0 = gid.x * ROWS;
  let kh = gid.y;
  let b = gid.z;
  let T = params.tq;
  if (s0 >= T) {
    return;
  }
  let nKeys = min(ROWS, T - s0);
  var seg: array<i32, ROWS>;
  var valid: array<bool, ROWS>;        // a real key that is not padding (padding keys: no query sees them)
  var kr: array<vec4<f32>, ROWS * D4>;   // k rows
  var vr: array<vec4<f32>, ROWS * D4>;   // v rows
  var accK: array<vec4<f32>, ROWS * D4>; // Σ dS · scale·q_t
  var accV: array<vec4<f32>, ROWS * D4>; // Σ P · dO_t
  for (var r = 0u; r < SETUP_ROWS; r++) {
    let s = s0 + min(r, nKeys - 1u);
    seg[r] = segment_of(b, s);
    valid[r] = r < nKeys && seg[r] >= 0;
    let kBase = kv_index(b, s, kh, 0u) / 4u;
    for (var d = 0u; d < D4; d++) {
      kr[r * D4 + d] = k[kBase + d];
      vr[r * D4 + d] = v[kBase + d];
      accK[r * D4 + d] = vec4<f32>(0.0);
      accV[r * D4 + d] = vec4<f32>(0.0);
    }
  }
  // queries past the last one in any valid key's segment see none of these keys
  var tEnd = T;
  for (; tEnd > s0; tEnd--) {
    let segT = segment_of(b, tEnd - 1u);
    var hit = false;
    for (var r = 0u; r < ROWS; r++) {
      hit = hit || (valid[r] && sees(segT, seg[r]));
    }
    if (hit) {
      break;
    }
  }
  for (var j = 0u; j < params.group; j++) {
    let h = kh * params.group + j;
    for (var t = s0 + params.loop_start; t < tEnd; t++) {
      let segT = segment_of(b, t);
      let row = row_index(b, h, t);
      let rowLse = stats[2u * row];
      let delta = stats[2u * row + 1u];
      let qBase = q_index(b, t, h, 0u) / 4u;
      var qt: array<vec4<f32>, D4>; // q row × scale, as the forward rounds it
      var gt: array<vec4<f32>, D4>;
      for (var d = 0u; d < D4; d++) {
        qt[d] = q[qBase + d] * params.scale;
        gt[d] = dout[qBase + d];
      }
      for (var r = 0u; r < ROWS; r++) {
        let allowed = valid[r] && sees(segT, seg[r]) && t >= s0 + r;
        var dot4 = vec4<f32>(0.0);
        var dp4 = vec4<f32>(0.0);
        for (var d = 0u; d < D4; d++) {
          dot4 = fma(qt[d], kr[r * D4 + d], dot4);
          dp4 = fma(gt[d], vr[r * D4 + d], dp4);
        }
        let p = select(0.0, exp(dot4.x + dot4.y + dot4.z + dot4.w - rowLse), allowed);
        let ds = p * (dp4.x + dp4.y + dp4.z + dp4.w - delta);
        for (var d = 0u; d < D4; d++) {
          accV[r * D4 + d] = fma(vec4<f32>(p), gt[d], accV[r * D4 + d]);
          accK[r * D4 + d] = fma(vec4<f32>(ds), qt[d], accK[r * D4 + d]);
        }
      }
    }
  }
  for (var r = 0u; r < SETUP_ROWS; r++) {
    if (r < nKeys) {
      let kBase = kv_index(b, s0 + r, kh, 0u) / 4u;
      for (var d = 0u; d < D4; d++) {
        dk[kBase + d] = accK[r * D4 + d];
        dv[kBase + d] = accV[r * D4 + d];
      }
    }
  }
}
