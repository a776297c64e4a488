// Maximum-weight bipartite assignment (Hungarian algorithm, O(n³)) used to match parallel calls to
// expected calls in any order. BFCL matches greedily; an optimal matching accepts everything the
// greedy one does and never misses a valid pairing because of the order calls were written in.

/** Result of matching rows (expected calls) to columns (model calls). */
export interface Assignment {
  /** Sum of the weights of the chosen pairs. */
  total: number;
  /** rowToCol[i] = column matched to row i, or -1 when row i is unmatched. */
  rowToCol: number[];
}

/** Maximises Σ weights[i][σ(i)] over partial injective maps; weights are ≥ 0, rectangular allowed. */
export function maxWeightAssignment(weights: number[][]): Assignment {
  const rows = weights.length;
  const cols = rows === 0 ? 0 : Math.max(...weights.map((r) => r.length));
  const n = Math.max(rows, cols);
  if (n === 0) return { total: 0, rowToCol: [] };
  let maxW = 0;
  for (const r of weights) for (const w of r) if (w > maxW) maxW = w;
  // Square cost matrix (1-indexed as in the classic formulation); padding cells cost maxW (weight 0).
  const cost = (i: number, j: number): number => maxW - (weights[i - 1]?.[j - 1] ?? 0);
  const u = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const p = new Int32Array(n + 1); // p[j] = row assigned to column j
  const way = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(n + 1).fill(Infinity);
    const used = new Uint8Array(n + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0];
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const cur = cost(i0, j) - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else minv[j] -= delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 !== 0);
  }
  const rowToCol = new Array<number>(rows).fill(-1);
  let total = 0;
  for (let j = 1; j <= n; j++) {
    const i = p[j];
    if (i >= 1 && i <= rows && j <= (weights[i - 1]?.length ?? 0)) {
      const w = weights[i - 1][j - 1];
      if (w > 0) {
        rowToCol[i - 1] = j - 1;
        total += w;
      }
    }
  }
  return { total, rowToCol };
}
