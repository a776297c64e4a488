// SLERP: spherical linear interpolation (Shoemake 1985, "Animating rotation with quaternion
// curves", SIGGRAPH), applied per tensor to the flattened weights as in mergekit. With
//   u = θ_0/‖θ_0‖, v = θ_1/‖θ_1‖, Ω = arccos(u·v):
//   θ = sin((1−t)Ω)/sin Ω · θ_0 + sin(tΩ)/sin Ω · θ_1
// and plain linear interpolation (1−t)θ_0 + tθ_1 when the directions are nearly colinear
// (|u·v| > 0.9995) or a tensor is zero. θ_0, θ_1: the two models (or the base and one model).
import type { MergeMethod } from './types';

const COLINEAR = 0.9995;

export function slerpVectors(a: Float32Array, b: Float32Array, t: number): Float32Array {
  let aa = 0;
  let bb = 0;
  let ab = 0;
  for (let j = 0; j < a.length; j++) {
    aa += a[j] * a[j];
    bb += b[j] * b[j];
    ab += a[j] * b[j];
  }
  const out = new Float32Array(a.length);
  const dot = aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 1;
  let s0 = 1 - t;
  let s1 = t;
  if (Math.abs(dot) <= COLINEAR) {
    const omega = Math.acos(dot);
    const sin = Math.sin(omega);
    s0 = Math.sin((1 - t) * omega) / sin;
    s1 = Math.sin(t * omega) / sin;
  }
  for (let j = 0; j < a.length; j++) out[j] = s0 * a[j] + s1 * b[j];
  return out;
}

export const slerp: MergeMethod = {
  name: 'slerp',
  summary: 'spherical interpolation of two models at --t (or of the base and one model)',
  needsBase: false,
  minModels: 1,
  maxModels: 2,
  merge({ name, base, models }, { t }) {
    if (!(t >= 0 && t <= 1)) throw new Error(`slerp: t must be in [0, 1], got ${t}`);
    const [a, b] = models.length === 2 ? models : [base, models[0]];
    if (!a || !b) throw new Error(`slerp: tensor '${name}' needs two models, or --base and one model`);
    return slerpVectors(a, b, t);
  },
};
