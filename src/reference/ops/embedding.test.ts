import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import { embeddingBackward, embeddingForward } from './embedding';
import { checkGradients } from './finiteDiff';
import { dot, randn64 } from './random';

describe('embedding reference', () => {
  it('gathers rows', () => {
    const table = Float64Array.from([0, 1, 10, 11, 20, 21]); // (3, 2)
    const out = embeddingForward(Int32Array.from([2, 0, 2]), table, 3, 2);
    expect(Array.from(out)).toEqual([20, 21, 0, 1, 20, 21]);
  });

  it('rejects an id outside the vocabulary', () => {
    expect(() => embeddingForward(Int32Array.from([3]), new Float64Array(6), 3, 2)).toThrow(/outside the vocabulary/);
  });

  it('backward scatter-adds repeated ids and matches finite differences', () => {
    const rng = new Rng(3);
    const V = 5, C = 3;
    const ids = Int32Array.from([1, 4, 1, 1, 0]); // id 1 three times, ids 2 and 3 unused
    const table = randn64(rng, V * C);
    const r = randn64(rng, ids.length * C);
    const dtable = embeddingBackward(r, ids, V, C);
    expect(dtable[1 * C]).toBeCloseTo(r[0 * C] + r[2 * C] + r[3 * C], 12);
    expect(dtable[2 * C]).toBe(0);
    const loss = () => dot(embeddingForward(ids, table, V, C), r);
    expect(checkGradients(loss, table, dtable, { samples: 100, rtol: 1e-8 })).toBeLessThan(1e-8);
  });
});
