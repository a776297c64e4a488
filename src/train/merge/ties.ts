// TIES-merging: Yadav et al. 2023, "TIES-Merging: Resolving interference when merging models"
// (NeurIPS 2023, arXiv 2306.01708). Per tensor, with τ_i = θ_i − θ_base:
//   1. trim:        τ̂_i = keep the top density·n entries of τ_i by magnitude (sparsify.ts)
//   2. elect sign:  γ = sgn(Σ_i w_i τ̂_i)                    (ties → +1, as mergekit's "sum" consensus)
//   3. disjoint mean over the models that agree with γ:
//                   τ_m[j] = Σ_{i: sgn(τ̂_i[j]) = γ[j]} w_i τ̂_i[j] / Σ_{same i} w_i     (0 where none agree)
//   θ = θ_base + λ·τ_m
// With w_i = 1 this is the paper's algorithm; weights follow mergekit's generalisation.
import { checkDensity, trimToDensity } from './sparsify';
import { addScaled, type MergeMethod, taskVectors } from './types';

/** Steps 2–3 on (already sparsified) task vectors: sign election and disjoint weighted mean. */
export function electAndMerge(taus: Float32Array[], weights: number[]): Float64Array {
  const n = taus[0].length;
  const out = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let total = 0;
    for (let i = 0; i < taus.length; i++) total += weights[i] * taus[i][j];
    const sign = total >= 0 ? 1 : -1;
    let num = 0;
    let den = 0;
    for (let i = 0; i < taus.length; i++) {
      const d = weights[i] * taus[i][j];
      if (Math.sign(d) === sign) { // zero entries (trimmed) never agree
        num += d;
        den += weights[i];
      }
    }
    out[j] = den === 0 ? 0 : num / den;
  }
  return out;
}

export const ties: MergeMethod = {
  name: 'ties',
  summary: 'trim to --density, elect signs, disjoint mean (TIES)',
  needsBase: true,
  minModels: 1,
  maxModels: Infinity,
  merge(input, { weights, density, lambda }) {
    checkDensity(density);
    const trimmed = taskVectors(input).map((tau) => trimToDensity(tau, density));
    return addScaled(input.base!, electAndMerge(trimmed, weights), lambda);
  },
};
