// Linear merge ("model soup"): Wortsman et al. 2022, "Model soups: averaging weights of multiple
// fine-tuned models improves accuracy without increasing inference time" (arXiv 2203.05482).
//   θ = Σ_i w_i θ_i / Σ_i w_i        (weights normalised to sum to 1; equal weights by default)
// No base model: the models are averaged directly.
import type { MergeMethod } from './types';

export const linear: MergeMethod = {
  name: 'linear',
  summary: 'weighted average of the models (model soup)',
  needsBase: false,
  minModels: 1,
  maxModels: Infinity,
  merge({ name, models }, { weights }) {
    const total = weights.reduce((a, b) => a + b, 0);
    if (Math.abs(total) < 1e-12) throw new Error(`linear merge: the weights sum to 0 (tensor '${name}'); give weights with a non-zero sum`);
    const acc = new Float64Array(models[0].length);
    models.forEach((m, i) => {
      const w = weights[i] / total;
      for (let j = 0; j < m.length; j++) acc[j] += w * m[j];
    });
    return Float32Array.from(acc);
  },
};
