// RAM, "Reinforced Agent Merging" (arXiv 2601.13572): a merge for RL-trained specialists, whose task
// vectors are sparse (RL updates a small subnetwork; Mukherjee et al. 2025, arXiv 2505.11711).
// Averaging dilutes an update that only one specialist made by 1/n; RAM keeps those at full scale
// and averages only where several specialists changed the same parameter. With τ_i = θ_i − θ_base,
// a_i[j] = [|τ_i[j]| > ε] (ε = --epsilon) and c[j] = Σ_i a_i[j]:
//   θ[j] = θ_base[j] + Σ_i a_i[j]·τ_i[j] / max(c[j], 1)
// i.e. unique updates (c = 1) at full scale, shared ones (c > 1) averaged, untouched ones (c = 0) = base.
// Weights and λ are not part of the method (each update counts once, as in the paper).
// Our AdamW touches every parameter with a gradient, so in f32 runs ε separates real updates from
// noise: choose it near the smallest update that matters (the default 1e-5 is the paper's code's).
import { type MergeMethod, taskVectors } from './types';

export const ram: MergeMethod = {
  name: 'ram',
  summary: 'RL-aware: unique updates at full scale, shared updates averaged (RAM; --epsilon)',
  needsBase: true,
  minModels: 1,
  maxModels: Infinity,
  merge(input, { epsilon }) {
    if (!(epsilon >= 0)) throw new Error(`ram: epsilon must be ≥ 0, got ${epsilon}`);
    const taus = taskVectors(input);
    const base = input.base!;
    const out = new Float32Array(base.length);
    for (let j = 0; j < base.length; j++) {
      let sum = 0;
      let count = 0;
      for (const tau of taus) {
        if (Math.abs(tau[j]) > epsilon) {
          sum += tau[j];
          count++;
        }
      }
      out[j] = base[j] + (count > 1 ? sum / count : sum);
    }
    return out;
  },
};
