import { describe, expect, it } from 'vitest';
import { adamwStep, type AdamWConfig } from './adamw';
import { clipGradients, clipScale, globalGradNorm } from './gradNorm';

describe('adamw reference', () => {
  it('one step by hand', () => {
    const cfg: AdamWConfig = { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01 };
    const param = Float64Array.from([1, -2]);
    const grad = Float64Array.from([0.5, 0]);
    const m = new Float64Array(2), v = new Float64Array(2);
    adamwStep(param, grad, m, v, cfg, 1);
    // m = 0.05, v = 0.00025; m̂ = 0.5, v̂ = 0.25 → update = 0.5 / (0.5 + 1e-8) + 0.01·1
    expect(m[0]).toBeCloseTo(0.05, 15);
    expect(v[0]).toBeCloseTo(0.00025, 15);
    expect(param[0]).toBeCloseTo(1 - 0.1 * (0.5 / (0.5 + 1e-8) + 0.01), 14);
    // zero gradient: only decay acts, on the pre-update value
    expect(param[1]).toBeCloseTo(-2 - 0.1 * (0 + 0.01 * -2), 14);
  });

  it('second step uses the bias corrections of step 2', () => {
    const cfg: AdamWConfig = { lr: 1, beta1: 0.5, beta2: 0.75, eps: 0, weightDecay: 0 };
    const param = Float64Array.from([0]);
    const m = new Float64Array(1), v = new Float64Array(1);
    adamwStep(param, Float64Array.from([1]), m, v, cfg, 1); // m̂ = 1, v̂ = 1 → −1
    adamwStep(param, Float64Array.from([3]), m, v, cfg, 2);
    // m = 0.5·0.5 + 0.5·3 = 1.75, v = 0.75·0.25 + 0.25·9 = 2.4375; m̂ = 1.75/0.75, v̂ = 2.4375/0.4375
    const step2 = (1.75 / 0.75) / Math.sqrt(2.4375 / 0.4375);
    expect(param[0]).toBeCloseTo(-1 - step2, 14);
  });

  it('rejects a 0-based step', () => {
    const z = new Float64Array(1);
    expect(() => adamwStep(z, z, z, z, { lr: 1, beta1: 0.9, beta2: 0.9, eps: 1e-8, weightDecay: 0 }, 0)).toThrow(/1-based/);
  });
});

describe('gradient norm reference', () => {
  it('global norm spans all tensors, and clipping scales in place', () => {
    const g = [Float64Array.from([3]), Float64Array.from([0, 4])];
    expect(globalGradNorm(g)).toBe(5);
    expect(clipScale(5, 10)).toBe(1);
    const { norm, scale } = clipGradients(g, 1);
    expect(norm).toBe(5);
    expect(scale).toBeCloseTo(1 / (5 + 1e-6), 15);
    expect(g[1][1]).toBeCloseTo(4 / (5 + 1e-6), 15);
    expect(globalGradNorm(g)).toBeLessThan(1);
  });
});
