// Attention segment ids, (B, T) i32 per token, as the attention kernels read them
// (`sees` in shaders/attention_common.wgsl) and the float64 reference checks them:
//   plain id p ≥ 0      a document, or a prompt shared by several branches: its tokens see the
//                       earlier tokens of the same id (packed documents never see each other);
//   branch id           BRANCH_FLAG | p << 8 | j: branch j of prefix p (a GRPO sample continuing a
//                       shared prompt) sees the earlier tokens of its own id and of plain id p;
//   negative            padding: a query sees nothing and no query sees the key.
// Causality (key position in the row ≤ query position) is applied on top, so a shared prefix must
// come before its branches in the row.

export const BRANCH_FLAG = 0x40000000;
/** Largest plain id a branch can point at (22 bits). */
export const MAX_PREFIX_ID = 0x3fffff;
/** Branches per prefix (8 bits). */
export const MAX_BRANCHES = 256;

/** Segment id of branch `j` (0-based) of the plain prefix segment `prefix`. */
export function branchSegment(prefix: number, j: number): number {
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > MAX_PREFIX_ID) throw new Error(`branchSegment: prefix id ${prefix} must be an integer in [0, ${MAX_PREFIX_ID}]`);
  if (!Number.isInteger(j) || j < 0 || j >= MAX_BRANCHES) throw new Error(`branchSegment: branch ${j} must be an integer in [0, ${MAX_BRANCHES})`);
  return (BRANCH_FLAG | (prefix << 8) | j) >>> 0;
}

/** Whether a query of segment `q` may attend a key of segment `k` (before the causal test). */
export function segmentSees(q: number, k: number): boolean {
  return q >= 0 && (k === q || (q >= BRANCH_FLAG && k === ((q >> 8) & MAX_PREFIX_ID)));
}
