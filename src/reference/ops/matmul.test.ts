import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import { checkGradients } from './finiteDiff';
import { matmulBackward, matmulForward, type MatmulSpec } from './matmul';
import { dot, randn64 } from './random';

// Float64 central differences on a bilinear function are exact up to rounding: ≤ 1e-8 relative.
const RTOL = 1e-8;

describe('matmul reference', () => {
  it('multiplies a known 2×3 by 3×2', () => {
    const a = Float64Array.from([1, 2, 3, 4, 5, 6]); // (1, 2, 3)
    const b = Float64Array.from([7, 8, 9, 10, 11, 12]); // (1, 3, 2)
    const c = matmulForward(a, b, { batch: 1, M: 2, K: 3, N: 2, transA: false, transB: false });
    expect(Array.from(c)).toEqual([58, 64, 139, 154]);
  });

  it('transposed layouts give the same product as explicit transposes', () => {
    const a = Float64Array.from([1, 4, 2, 5, 3, 6]); // Aᵀ stored (1, 3, 2)
    const b = Float64Array.from([7, 9, 11, 8, 10, 12]); // Bᵀ stored (1, 2, 3)
    const c = matmulForward(a, b, { batch: 1, M: 2, K: 3, N: 2, transA: true, transB: true });
    expect(Array.from(c)).toEqual([58, 64, 139, 154]);
  });

  it('rejects inputs whose size does not match the spec', () => {
    expect(() => matmulForward(new Float64Array(5), new Float64Array(6), { batch: 1, M: 2, K: 3, N: 2, transA: false, transB: false })).toThrow(/batch·M·K/);
  });

  for (const transA of [false, true]) {
    for (const transB of [false, true]) {
      it(`backward matches finite differences (transA=${transA}, transB=${transB}, batch 2)`, () => {
        const rng = new Rng(11 + Number(transA) * 2 + Number(transB));
        const spec: MatmulSpec = { batch: 2, M: 3, K: 4, N: 5, transA, transB };
        const a = randn64(rng, 2 * 3 * 4);
        const b = randn64(rng, 2 * 4 * 5);
        const r = randn64(rng, 2 * 3 * 5); // dL/dc for L = Σ r·c
        const { da, db } = matmulBackward(r, a, b, spec);
        const loss = () => dot(matmulForward(a, b, spec), r);
        expect(checkGradients(loss, a, da, { samples: 100, rtol: RTOL })).toBeLessThan(RTOL);
        expect(checkGradients(loss, b, db, { samples: 100, rtol: RTOL })).toBeLessThan(RTOL);
      });
    }
  }
});
