import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import * as ref from '../reference/ops';
import { Rng } from '../util/rng';
import { adamwStep, GradNorm, type OptimizerSlot } from './optimizer';
import { errorVs, randF32as64, upload64 } from './testUtil';

const TOL = 1e-4;
const CFG = { lr: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1 };

describe.each(TEST_ADAPTERS)('grad norm, clipping and AdamW on %s', (adapter) => {
  it(`three AdamW steps with clipping over tensors of awkward sizes match the reference, rel err ≤ ${TOL}`, async () => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(5);
    const sizes = [1, 37, 1000, 70_001];
    const params = sizes.map((n) => randF32as64(rng, n));
    const ms = sizes.map((n) => new Float64Array(n));
    const vs = sizes.map((n) => new Float64Array(n));
    const slots: OptimizerSlot[] = sizes.map((n, i) => ({
      param: upload64(rt, params[i], [n], `p${i}`),
      grad: rt.zeros([n], 'f32', `g${i}`),
      m: rt.zeros([n]),
      v: rt.zeros([n]),
      decay: i !== 0, // a norm weight: no decay
    }));
    const norm = new GradNorm(rt, slots.map((s) => s.grad));
    for (let step = 1; step <= 3; step++) {
      const grads = sizes.map((n) => randF32as64(rng, n, 0.1));
      grads.forEach((g, i) => rt.write(slots[i].grad, Float32Array.from(g)));
      norm.compute(1.0);
      adamwStep(rt, slots, CFG, step, norm.stats);
      const stats = await norm.read();
      const { norm: refNorm, scale } = ref.clipGradients(grads, 1.0); // scales grads in place
      expect(Math.abs(stats.norm - refNorm) / refNorm).toBeLessThanOrEqual(TOL);
      expect(Math.abs(stats.scale - scale) / scale).toBeLessThanOrEqual(TOL);
      expect(stats.finite).toBe(true);
      grads.forEach((g, i) => ref.adamwStep(params[i], g, ms[i], vs[i], { ...CFG, weightDecay: i === 0 ? 0 : CFG.weightDecay }, step));
    }
    for (let i = 0; i < sizes.length; i++) {
      expect(await errorVs(rt, slots[i].param, params[i])).toBeLessThanOrEqual(TOL);
      expect(await errorVs(rt, slots[i].m, ms[i])).toBeLessThanOrEqual(TOL);
      expect(await errorVs(rt, slots[i].v, vs[i])).toBeLessThanOrEqual(TOL);
    }
  });

  it('skips the update and keeps the weights when a gradient is NaN or Inf', async () => {
    const rt = await testRuntime(adapter);
    const p0 = Float32Array.from([1, 2, 3]);
    const slot: OptimizerSlot = { param: rt.upload(p0, [3]), grad: rt.upload(Float32Array.from([0.1, Number.NaN, 0.2]), [3]), m: rt.zeros([3]), v: rt.zeros([3]), decay: true };
    const norm = new GradNorm(rt, [slot.grad]);
    norm.compute(1.0);
    adamwStep(rt, [slot], CFG, 1, norm.stats);
    expect((await norm.read()).finite).toBe(false);
    expect(Array.from(await rt.readF32(slot.param))).toEqual([1, 2, 3]);
    rt.write(slot.grad, Float32Array.from([0.1, Number.POSITIVE_INFINITY, 0.2]));
    norm.compute(0);
    adamwStep(rt, [slot], CFG, 1, norm.stats);
    expect((await norm.read()).finite).toBe(false);
    expect(Array.from(await rt.readF32(slot.param))).toEqual([1, 2, 3]);
  });

  it('without clipping (maxNorm 0) the scale is 1', async () => {
    const rt = await testRuntime(adapter);
    const g = rt.upload(Float32Array.from([30, 40]), [2]);
    const norm = new GradNorm(rt, [g]);
    norm.compute(0);
    expect(await norm.read()).toEqual({ norm: 50, scale: 1, finite: true });
  });
});
