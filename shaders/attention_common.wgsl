// Attention family — shared part, composed by src/ops/attention.ts in this order:
//   1. tile constants (written by the op, one pipeline per head dim and tiling):
//        HEAD_DIM D, BLOCK_Q (query rows per tile), BLOCK_K (key rows per tile), THREADS
//   2. this file: the uniform parameters and index helpers
//   3. one kernel file (attention_forward / _backward_stats / _backward_dq / _backward_dkdv)
// Layouts: q, out, dout, dq (B, Tq, Hq, D); k, v, dk, dv (B, Tk, Hkv, D); lse (B, Hq, Tq);
// stats (B, Hq, Tq, 2) = [lse, rowsum(dout ∘ out)]; segments (B, Tk) i32; offsets (B) i32.
// Mask: query at position p attends key s iff s ≤ p, segQ ≥ 0 and sees(segQ, segK): the same
// segment, or — for a branch segment — its prefix segment (ids: src/data/segments.ts). Kernels keep the
// segment ids of a tile in workgroup memory; rows/keys outside the sequence get ids that never
// match (query -1, key -2), so one test covers causality, packing, shared prefixes, padding and tails.

struct Params {
  batch: u32,        // B
  tq: u32,           // query rows per batch row
  tk: u32,           // key rows per batch row (= tq in training; cache capacity Tmax in decode)
  hq: u32,           // query heads
  hkv: u32,          // kv heads
  group: u32,        // hq / hkv: query head h reads kv head h / group
  scale: f32,        // score scale (1/sqrt(D) by default)
  has_segments: u32, // 1: the segments buffer holds (B, tk) ids; 0: it is a dummy, all ids 0
  has_offsets: u32,  // decode: 1 → query row t sits at position offsets[b] + t
  past_len: u32,     // decode: uniform position of query row 0 when has_offsets == 0
  loop_start: u32,   // always 0: inner loops start here so compilers see an unknown trip count and
                     // do not unroll them fully (llvmpipe took 30 s to compile the unrolled forward)
}

@group(0) @binding(0) var<uniform> params: Params;

const MASKED: f32 = -1e30;       // score of a masked entry (finite: exp(MASKED - m) underflows to 0)
const NO_QUERY_SEG: i32 = -1;    // segment id of a query row past the end (attends nothing)
const NO_KEY_SEG: i32 = -2;      // segment id of a key past the end (matches no query)
const BRANCH_FLAG: i32 = 0x40000000; // a branch segment id: BRANCH_FLAG | prefix id << 8 | branch

// A query of segment segQ sees keys of segment segK: its own segment, and a branch also sees its
// prefix (G samples of one prompt share the prompt's keys in a GRPO row). Padding ids are negative.
fn sees(segQ: i32, segK: i32) -> bool {
  return segK == segQ || (segQ >= BRANCH_FLAG && segK == ((segQ >> 8u) & 0x3fffff));
}

// (B, Tq, Hq, D) element
fn q_index(b: u32, t: u32, h: u32, d: u32) -> u32 {
  return ((b * params.tq + t) * params.hq + h) * HEAD_DIM + d;
}

// (B, Tk, Hkv, D) element
fn kv_index(b: u32, s: u32, kh: u32, d: u32) -> u32 {
  return ((b * params.tk + s) * params.hkv + kh) * HEAD_DIM + d;
}

// (B, Hq, Tq) row
fn row_index(b: u32, h: u32, t: u32) -> u32 {
  return (b * params.hq + h) * params.tq + t;
}
