import { describe, expect, it } from 'vitest';
import { checkGradients, entropyForward } from '../../../reference/ops';
import { Rng } from '../../../util/rng';
import { grpoConfig } from './config';
import { entropyGradWeights, entropyLogitGradient } from './entropy';

const SEQ = Int32Array.from([0, 0, 0, 0, 1, 1, 1, -1]);
const MASK = [0, 1, 1, 1, 1, 0, 1, 0];

describe('entropy bonus', () => {
  it('entropyGradWeights = −entropyCoef · w_n on policy tokens', () => {
    const layout = { mask: MASK, seqIndex: SEQ, advantages: [1, -1] };
    const tm = entropyGradWeights(layout, grpoConfig('default', { entropyCoef: 0.01 }));
    expect([...tm]).toEqual([0, -0.01 / 5, -0.01 / 5, -0.01 / 5, -0.01 / 5, 0, -0.01 / 5, 0].map(Math.fround));
    const sm = entropyGradWeights(layout, grpoConfig('default', { entropyCoef: 0.01, lossAggregation: 'seq-mean-token-mean' }));
    expect(sm[1]).toBe(Math.fround(-0.01 / 6));
    expect(sm[6]).toBe(Math.fround(-0.01 / 4));
    expect(entropyGradWeights(layout, grpoConfig('default')).every((x) => x === 0)).toBe(true);
  });

  it('entropyLogitGradient matches the central difference of the float64 reference entropy', () => {
    const rng = new Rng(5);
    const V = 11;
    const logits = Float64Array.from({ length: V }, () => rng.normal(0, 2));
    const f = () => entropyForward(logits, 1, V)[0];
    const err = checkGradients(f, logits, entropyLogitGradient(logits), { rtol: 1e-7 });
    expect(err).toBeLessThan(1e-7);
  });

  it('is stable for large logits and zero for a uniform row', () => {
    const g = entropyLogitGradient([1e4, 1e4 - 1, 1e4 - 2]);
    expect([...g].every(Number.isFinite)).toBe(true);
    expect([...entropyLogitGradient([3, 3, 3, 3])].every((x) => Math.abs(x) < 1e-15)).toBe(true);
  });
});
