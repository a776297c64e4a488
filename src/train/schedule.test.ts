import { describe, expect, it } from 'vitest';
import { learningRate } from './schedule';

describe('learning-rate schedule', () => {
  const s = { lr: 1e-3, warmupSteps: 10, totalSteps: 110, minLrRatio: 0.1 };
  it('warms up linearly, peaks, then decays by cosine to minLr', () => {
    expect(learningRate(s, 1)).toBeCloseTo(1e-4, 12);
    expect(learningRate(s, 10)).toBeCloseTo(1e-3, 12);
    expect(learningRate(s, 60)).toBeCloseTo(1e-4 + 0.5 * 9e-4, 12); // halfway: mean of peak and floor
    expect(learningRate(s, 110)).toBeCloseTo(1e-4, 12);
    expect(learningRate(s, 500)).toBeCloseTo(1e-4, 12);
  });
});
