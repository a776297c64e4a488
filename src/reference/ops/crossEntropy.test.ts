import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import {
  crossEntropyBackward, crossEntropyForward, entropyForward, logprobBackward, logprobForward,
} from './crossEntropy';
import { checkGradients } from './finiteDiff';
import { dot, randint32, randn64 } from './random';

const RTOL = 1e-7;

describe('log-prob / cross-entropy reference', () => {
  it('is stable for logits of 1e4', () => {
    const logits = Float64Array.from([1e4, 1e4, 1e4 - 1, -1e4]); // (1, 4)
    const { logp, lse } = logprobForward(logits, Int32Array.from([2]), 1, 4);
    const z = 2 + Math.exp(-1);
    expect(lse[0]).toBeCloseTo(1e4 + Math.log(z), 9);
    expect(logp[0]).toBeCloseTo(-1 - Math.log(z), 12);
    expect(entropyForward(logits, 1, 4)[0]).toBeGreaterThan(0);
  });

  it('uniform logits give logp = −log V and entropy = log V', () => {
    const V = 7;
    const logits = new Float64Array(2 * V).fill(3.5);
    expect(logprobForward(logits, Int32Array.from([0, 6]), 2, V).logp[1]).toBeCloseTo(-Math.log(V), 14);
    expect(entropyForward(logits, 2, V)[0]).toBeCloseTo(Math.log(V), 14);
  });

  it('masked loss is Σ mask·(−logp) / max(Σ mask, 1) and masked rows report 0', () => {
    const rng = new Rng(6);
    const N = 4, V = 5;
    const logits = randn64(rng, N * V);
    const targets = Int32Array.from([0, 1, 2, 3]);
    const mask = Float64Array.from([1, 0, 2, 0]);
    const { logp } = logprobForward(logits, targets, N, V);
    const { loss, losses } = crossEntropyForward(logits, targets, mask, N, V);
    expect(loss).toBeCloseTo((-logp[0] - 2 * logp[2]) / 3, 14);
    expect(losses[1]).toBe(0);
    expect(losses[2]).toBeCloseTo(-logp[2], 14);
    expect(crossEntropyForward(logits, targets, new Float64Array(N), N, V).loss).toBe(0);
  });

  it('logprob backward matches finite differences', () => {
    const rng = new Rng(7);
    const N = 3, V = 6;
    const logits = randn64(rng, N * V, 2);
    const targets = randint32(rng, N, 0, V - 1);
    const r = randn64(rng, N);
    const { lse } = logprobForward(logits, targets, N, V);
    const dlogits = logprobBackward(r, logits, targets, lse, N, V);
    const loss = () => dot(logprobForward(logits, targets, N, V).logp, r);
    expect(checkGradients(loss, logits, dlogits, { samples: 100, rtol: RTOL })).toBeLessThan(RTOL);
  });

  it('cross-entropy backward (weighted mask, dloss ≠ 1) matches finite differences', () => {
    const rng = new Rng(8);
    const N = 4, V = 5;
    const logits = randn64(rng, N * V, 2);
    const targets = randint32(rng, N, 0, V - 1);
    const mask = Float64Array.from([1, 0, 0.5, 1]);
    const { lse } = crossEntropyForward(logits, targets, mask, N, V);
    const dlogits = crossEntropyBackward(logits, targets, mask, lse, N, V, 2.5);
    const loss = () => 2.5 * crossEntropyForward(logits, targets, mask, N, V).loss;
    expect(checkGradients(loss, logits, dlogits, { samples: 100, rtol: RTOL })).toBeLessThan(RTOL);
    expect(Array.from(dlogits.subarray(V, 2 * V))).toEqual(new Array(V).fill(0)); // masked row
  });

  it('rejects a target outside the vocabulary', () => {
    expect(() => logprobForward(new Float64Array(4), Int32Array.from([4]), 1, 4)).toThrow(/outside the vocabulary/);
  });
});
