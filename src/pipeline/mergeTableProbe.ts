// The scale probe of the merge table: each specialist's own task vector at scale λ,
// θ = θ_base + λ·(θ_specialist − θ_base), scored like every other row. Why: a merge of K
// specialists that averages (linear, task arithmetic at λ = 1/K, SLERP at t = ½) hands each task its
// own task vector scaled by about 1/K, plus the others' vectors. If the skill is already gone at
// λ = ½ with no other vector present, no averaging merge can keep it, and the loss is the task
// vector's non-linearity, not interference between tasks; if it survives at ½ but the merge loses it,
// interference is to blame.
import { addScaled, taskVectors } from '../train/merge/types';

type Weights = Map<string, Float32Array>;

/** θ_base + λ·(θ − θ_base), tensor by tensor; the same tensor names and sizes in both, or an error. */
export function scaleTaskVector(base: Weights, model: Weights, lambda: number): Weights {
  if (!Number.isFinite(lambda)) throw new Error(`scale probe: λ must be a finite number, got ${lambda}`);
  const out: Weights = new Map();
  for (const [name, b] of base) {
    const m = model.get(name);
    if (!m || m.length !== b.length) throw new Error(`scale probe: tensor '${name}' is ${m ? `${m.length} values` : 'missing'} in the specialist and ${b.length} in the base; both must come from one base`);
    const [tau] = taskVectors({ name, base: b, models: [m] });
    out.set(name, addScaled(b, tau, lambda));
  }
  if (model.size !== base.size) throw new Error(`scale probe: the specialist has ${model.size} tensors, the base ${base.size}`);
  return out;
}

/** The row label of specialist `label` at scale λ (never "specialist <set>", which names the specialist itself). */
export const scaledLabel = (label: string, lambda: number) => `specialist ${label} at scale ${lambda} (base + ${lambda}·τ)`;
