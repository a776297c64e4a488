// Learning-rate schedule: linear warm-up to peak, then cosine decay to minLr over the remaining steps.

export interface LrSchedule {
  /** Peak learning rate. */
  lr: number;
  /** Steps of linear warm-up from lr/warmup to lr. */
  warmupSteps: number;
  /** Total optimizer steps (the cosine reaches minLr here). */
  totalSteps: number;
  /** Final learning rate as a fraction of lr (e.g. 0.1). */
  minLrRatio: number;
}

/** lr at 1-based optimizer step `step`. */
export function learningRate(s: LrSchedule, step: number): number {
  if (step <= s.warmupSteps) return (s.lr * step) / Math.max(1, s.warmupSteps);
  const span = Math.max(1, s.totalSteps - s.warmupSteps);
  const progress = Math.min(1, (step - s.warmupSteps) / span);
  const minLr = s.lr * s.minLrRatio;
  return minLr + 0.5 * (s.lr - minLr) * (1 + Math.cos(Math.PI * progress));
}
