// The contract of a merge method: one tensor at a time (streaming), host Float32Arrays, every
// model's tensor of the same name and shape. Formulas and papers are in each method's module.

export interface MergeOptions {
  /** w_i per model (default 1 each). */
  weights: number[];
  /** Fraction of each task vector kept (TIES trim, DARE keep probability); default 1 (TIES) / 0.5 (DARE). */
  density: number;
  /** λ: scale of the merged task vector (default 1). */
  lambda: number;
  /** SLERP interpolation factor t ∈ [0, 1] (0: the first model, 1: the second). */
  t: number;
  /** Seed of DARE's random drops. */
  seed: number;
  /** RAM: |τ| ≤ epsilon counts as "not updated" (default 1e-5, as the paper's code). */
  epsilon: number;
}

/** One tensor to merge. */
export interface TensorMergeInput {
  /** HF name (DARE salts its random mask with it, so the result does not depend on tensor order). */
  name: string;
  /** θ_base (null when the method takes no base). */
  base: Float32Array | null;
  /** θ_1 … θ_n. */
  models: Float32Array[];
  /** F_1 … F_n: each model's diagonal Fisher for this tensor (methods with needsImportance; fisher.ts). */
  importance?: Float32Array[];
}

export interface MergeMethod {
  name: string;
  /** One line for --help. */
  summary: string;
  /** True: needs θ_base (task-vector methods). */
  needsBase: boolean;
  /** True: needs each model's per-parameter importance (Fisher merging), computed from task data on the GPU. */
  needsImportance?: boolean;
  minModels: number;
  maxModels: number;
  merge(input: TensorMergeInput, opts: MergeOptions): Float32Array;
}

/** τ_i = θ_i − θ_base, one per model. */
export function taskVectors(input: TensorMergeInput): Float32Array[] {
  const base = input.base;
  if (!base) throw new Error(`merge: tensor '${input.name}' needs the base model's values (task vectors are θ_i − θ_base)`);
  return input.models.map((m) => {
    const t = new Float32Array(m.length);
    for (let j = 0; j < m.length; j++) t[j] = m[j] - base[j];
    return t;
  });
}

/** θ_base + λ·τ in a new array. */
export function addScaled(base: Float32Array, tau: Float32Array | Float64Array, lambda: number): Float32Array {
  const out = new Float32Array(base.length);
  for (let j = 0; j < base.length; j++) out[j] = base[j] + lambda * tau[j];
  return out;
}
