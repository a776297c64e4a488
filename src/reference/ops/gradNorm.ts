// Global gradient L2 norm and clipping (same rule as torch.nn.utils.clip_grad_norm_).

/** sqrt(Σ over every tensor and entry of g²). */
export function globalGradNorm(grads: Float64Array[]): number {
  let ss = 0;
  for (const g of grads) for (let i = 0; i < g.length; i++) ss += g[i] * g[i];
  return Math.sqrt(ss);
}

/** min(1, maxNorm / (norm + 1e-6)): the factor every gradient is multiplied by. */
export function clipScale(norm: number, maxNorm: number): number {
  return Math.min(1, maxNorm / (norm + 1e-6));
}

/** Scales every gradient IN PLACE by clipScale(globalGradNorm(grads), maxNorm); returns the pre-clip norm. */
export function clipGradients(grads: Float64Array[], maxNorm: number): { norm: number; scale: number } {
  const norm = globalGradNorm(grads);
  const scale = clipScale(norm, maxNorm);
  if (scale !== 1) for (const g of grads) for (let i = 0; i < g.length; i++) g[i] *= scale;
  return { norm, scale };
}
