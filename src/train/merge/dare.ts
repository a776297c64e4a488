// DARE (Drop And REscale): Yu et al. 2024, "Language models are Super Mario: absorbing abilities
// from homologous models as a free lunch" (ICML 2024, arXiv 2311.03099). Per tensor and model:
//   τ̃_i = (m_i ⊙ τ_i) / density,   m_i[j] ~ Bernoulli(density), seeded by (seed, tensor name, i)
// then combined
//   dare-linear: θ = θ_base + λ·Σ_i w_i τ̃_i                      (task arithmetic on τ̃)
//   dare-ties:   θ = θ_base + λ·TIES sign election + disjoint mean of τ̃   (ties.ts, steps 2–3)
import { electAndMerge } from './ties';
import { checkDensity, dareRng, dropAndRescale } from './sparsify';
import { addScaled, type MergeMethod, type TensorMergeInput, taskVectors } from './types';

function dropped(input: TensorMergeInput, density: number, seed: number): Float32Array[] {
  checkDensity(density);
  return taskVectors(input).map((tau, i) => dropAndRescale(tau, density, dareRng(seed, input.name, i)));
}

export const dareLinear: MergeMethod = {
  name: 'dare-linear',
  summary: 'random drop (keep --density, seeded) and rescale, then task arithmetic',
  needsBase: true,
  minModels: 1,
  maxModels: Infinity,
  merge(input, { weights, density, lambda, seed }) {
    const taus = dropped(input, density, seed);
    const sum = new Float64Array(input.base!.length);
    taus.forEach((tau, i) => {
      for (let j = 0; j < tau.length; j++) sum[j] += weights[i] * tau[j];
    });
    return addScaled(input.base!, sum, lambda);
  },
};

export const dareTies: MergeMethod = {
  name: 'dare-ties',
  summary: 'random drop (keep --density, seeded) and rescale, then TIES sign election and disjoint mean',
  needsBase: true,
  minModels: 1,
  maxModels: Infinity,
  merge(input, { weights, density, lambda, seed }) {
    return addScaled(input.base!, electAndMerge(dropped(input, density, seed), weights), lambda);
  },
};
