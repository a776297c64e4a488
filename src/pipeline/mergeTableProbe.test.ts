import { describe, expect, it } from 'vitest';
import { scaledLabel, scaleTaskVector } from './mergeTableProbe';

describe('scale probe', () => {
  it('base + λ·(specialist − base) per tensor, hand-computed; λ 0 gives the base, λ 1 the specialist', () => {
    const base = new Map([['a', new Float32Array([1, 2])], ['b', new Float32Array([0])]]);
    const spec = new Map([['a', new Float32Array([3, 0])], ['b', new Float32Array([-4])]]);
    // a: 1 + 0.5·2 = 2, 2 + 0.5·(−2) = 1; b: 0 + 0.5·(−4) = −2
    expect(scaleTaskVector(base, spec, 0.5)).toEqual(new Map([['a', new Float32Array([2, 1])], ['b', new Float32Array([-2])]]));
    // λ 1.5 extrapolates: a: 1 + 3 = 4, 2 − 3 = −1; b: −6
    expect(scaleTaskVector(base, spec, 1.5)).toEqual(new Map([['a', new Float32Array([4, -1])], ['b', new Float32Array([-6])]]));
    expect(scaleTaskVector(base, spec, 0)).toEqual(base);
    expect(scaleTaskVector(base, spec, 1)).toEqual(spec);
  });

  it('refuses models of another shape and a λ that is not finite, naming the tensor', () => {
    const base = new Map([['a', new Float32Array([1, 2])]]);
    expect(() => scaleTaskVector(base, new Map([['a', new Float32Array([1])]]), 0.5)).toThrow(/tensor 'a' is 1 values in the specialist and 2 in the base/);
    expect(() => scaleTaskVector(base, new Map(), 0.5)).toThrow(/tensor 'a' is missing in the specialist/);
    expect(() => scaleTaskVector(base, new Map([['a', new Float32Array(2)], ['c', new Float32Array(1)]]), 0.5)).toThrow(/the specialist has 2 tensors, the base 1/);
    expect(() => scaleTaskVector(base, base, Number.NaN)).toThrow(/finite/);
  });

  it('labels never read as the specialist itself (the own-specialist lookup matches "specialist <set>" exactly)', () => {
    expect(scaledLabel('function-calling/route4', 0.5)).toBe('specialist function-calling/route4 at scale 0.5 (base + 0.5·τ)');
  });
});
