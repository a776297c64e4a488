// Task arithmetic: Ilharco et al. 2023, "Editing models with task arithmetic" (ICLR 2023, arXiv 2212.04089).
//   τ_i = θ_i − θ_base,   θ = θ_base + λ · Σ_i w_i τ_i      (w_i = 1 and λ = 1 by default: no normalisation)
import { addScaled, type MergeMethod, taskVectors } from './types';

export const taskArithmetic: MergeMethod = {
  name: 'task-arithmetic',
  summary: 'base + λ·Σ w_i (θ_i − base)',
  needsBase: true,
  minModels: 1,
  maxModels: Infinity,
  merge(input, { weights, lambda }) {
    const taus = taskVectors(input);
    const sum = new Float64Array(input.base!.length);
    taus.forEach((tau, i) => {
      for (let j = 0; j < tau.length; j++) sum[j] += weights[i] * tau[j];
    });
    return addScaled(input.base!, sum, lambda);
  },
};
