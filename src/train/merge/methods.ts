// The merge methods by CLI name, and the option defaults and checks shared by the CLI and the page.
import { dareLinear, dareTies } from './dare';
import { fisher } from './fisher';
import { linear } from './linear';
import { ram } from './ram';
import { slerp } from './slerp';
import { taskArithmetic } from './taskArithmetic';
import { ties } from './ties';
import type { MergeMethod, MergeOptions } from './types';

export const MERGE_METHODS: Record<string, MergeMethod> = Object.fromEntries(
  [linear, taskArithmetic, ties, dareLinear, dareTies, slerp, ram, fisher].map((m) => [m.name, m]),
);

export function mergeMethod(name: string): MergeMethod {
  const m = MERGE_METHODS[name];
  if (!m) throw new Error(`merge: unknown method '${name}'; choose one of ${Object.keys(MERGE_METHODS).join(', ')}`);
  return m;
}

/** Options with defaults filled in, checked against the method and the number of models. */
export function mergeOptions(method: MergeMethod, modelCount: number, given: Partial<MergeOptions> = {}): MergeOptions {
  if (modelCount < method.minModels || modelCount > method.maxModels) {
    const range = method.maxModels === Infinity ? `at least ${method.minModels}` : method.minModels === method.maxModels ? `exactly ${method.minModels}` : `${method.minModels}–${method.maxModels}`;
    throw new Error(`merge: ${method.name} takes ${range} model${method.maxModels === 1 ? '' : 's'}, got ${modelCount}`);
  }
  const weights = given.weights ?? Array(modelCount).fill(1);
  if (weights.length !== modelCount) throw new Error(`merge: ${weights.length} weights for ${modelCount} models; give one weight per model`);
  if (method.needsImportance && !weights.every((w) => w > 0)) throw new Error(`merge: ${method.name} weights must be positive, got ${weights.join(', ')}`);
  if (!weights.every(Number.isFinite)) throw new Error(`merge: weights must be numbers, got ${weights.join(', ')}`);
  const density = given.density ?? (method.name.startsWith('dare') ? 0.5 : 1);
  if (!(density > 0 && density <= 1)) throw new Error(`merge: density must be in (0, 1], got ${density}`);
  return { weights, density, lambda: given.lambda ?? 1, t: given.t ?? 0.5, seed: given.seed ?? 0, epsilon: given.epsilon ?? 1e-5 };
}

export type { MergeMethod, MergeOptions, TensorMergeInput } from './types';
