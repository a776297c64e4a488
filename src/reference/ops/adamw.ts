// AdamW step (PyTorch order, decoupled weight decay), updating param, m and v IN PLACE:
//   m = β1·m + (1−β1)·g;  v = β2·v + (1−β2)·g²;  m̂ = m/(1−β1^step);  v̂ = v/(1−β2^step)
//   param −= lr · (m̂ / (sqrt(v̂) + eps) + weightDecay · param)   (decay uses param before the update)

export interface AdamWConfig {
  /** Learning rate. */
  lr: number;
  /** First-moment decay (e.g. 0.9). */
  beta1: number;
  /** Second-moment decay (e.g. 0.999). */
  beta2: number;
  /** Added to sqrt(v̂) (e.g. 1e-8). */
  eps: number;
  /** Decoupled weight decay coefficient (0 disables). */
  weightDecay: number;
}

export function adamwStep(
  param: Float64Array, // (P) updated in place
  grad: Float64Array, // (P)
  m: Float64Array, // (P) first moment, updated in place
  v: Float64Array, // (P) second moment, updated in place
  cfg: AdamWConfig,
  step: number, // 1-based
): void {
  const P = param.length;
  if (grad.length !== P || m.length !== P || v.length !== P) {
    throw new Error(`adamwStep: param ${P}, grad ${grad.length}, m ${m.length}, v ${v.length} must be equal`);
  }
  if (!Number.isInteger(step) || step < 1) throw new Error(`adamwStep: step must be a 1-based integer, got ${step}`);
  const { lr, beta1, beta2, eps, weightDecay } = cfg;
  const bc1 = 1 - Math.pow(beta1, step);
  const bc2 = 1 - Math.pow(beta2, step);
  for (let i = 0; i < P; i++) {
    const g = grad[i];
    m[i] = beta1 * m[i] + (1 - beta1) * g;
    v[i] = beta2 * v[i] + (1 - beta2) * g * g;
    const mHat = m[i] / bc1;
    const vHat = v[i] / bc2;
    param[i] -= lr * (mHat / (Math.sqrt(vHat) + eps) + weightDecay * param[i]);
  }
}
