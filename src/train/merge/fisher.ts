// Fisher merging: Matena & Raffel 2022, "Merging Models with Fisher-Weighted Averaging"
// (arXiv 2111.09832, eq. 3). Each parameter is averaged with the weight of how much each model's
// own task depends on it, the diagonal of that model's Fisher information F_i:
//   θ[j] = Σ_i w_i F_i[j] θ_i[j] / Σ_i w_i F_i[j]
// so where one specialist's task is sensitive to a parameter and the other's is not, the first
// keeps its value instead of meeting the other halfway (the interference a plain average causes).
// F_i is the empirical Fisher, E[(∇_θ log p(y | x))²] over demonstrations of the model's own task
// set (fisherDiagonal.ts). A floor ε = 1e-6 · (the tensor's mean Fisher over all models) is added to
// every F_i[j] (the paper's "fisher floor"), so a parameter no task uses gets the w-weighted average
// instead of 0/0; a tensor with no Fisher at all is the w-weighted average outright. No base model.
import type { MergeMethod } from './types';

/** Conversations per specialist for its Fisher (the pipeline's merge stage; Matena & Raffel use hundreds to thousands of examples — 64 keeps a CPU merge under a minute at nano). */
export const FISHER_EXAMPLES = 64;

/** ε relative to the tensor's mean Fisher (see the header). */
export const FISHER_FLOOR = 1e-6;

export const fisher: MergeMethod = {
  name: 'fisher',
  summary: 'Fisher-weighted average: each parameter weighted by each model\'s diagonal Fisher on its own task data',
  needsBase: false,
  needsImportance: true,
  minModels: 1,
  maxModels: Infinity,
  merge({ name, models, importance }, { weights }) {
    if (!importance || importance.length !== models.length) {
      throw new Error(`fisher merge: tensor '${name}' needs each model's Fisher diagonal (${importance?.length ?? 0} for ${models.length} models); it is computed from each specialist's task data on the GPU — use fisher in a pipeline merge stage or npm run merge-table`);
    }
    const n = models[0].length;
    let total = 0;
    for (const f of importance) {
      if (f.length !== n) throw new Error(`fisher merge: tensor '${name}' has ${n} values but a Fisher diagonal of ${f.length}`);
      for (let j = 0; j < n; j++) {
        if (!(f[j] >= 0)) throw new Error(`fisher merge: tensor '${name}' has a negative or non-finite Fisher value (${f[j]} at ${j}); a Fisher diagonal is a mean of squares`);
        total += f[j];
      }
    }
    const floor = total > 0 ? (FISHER_FLOOR * total) / (n * models.length) : 1;
    const out = new Float32Array(n);
    for (let j = 0; j < n; j++) {
      let num = 0;
      let den = 0;
      models.forEach((m, i) => {
        const c = weights[i] * (importance[i][j] + floor);
        num += c * m[j];
        den += c;
      });
      if (!(Math.abs(den) > 0)) throw new Error(`fisher merge: tensor '${name}': the weighted Fisher sums to 0 at ${j}; give positive weights`);
      out[j] = num / den;
    }
    return out;
  },
};
