import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import { checkGradients, relativeError } from './finiteDiff';
import { dot, randn64 } from './random';
import { ropeBackward, ropeForward, ropePositions, type RopeSpec } from './rope';

describe('rope reference', () => {
  it('position 0 is the identity', () => {
    const rng = new Rng(1);
    const x = randn64(rng, 2 * 1 * 3 * 8);
    const spec: RopeSpec = { B: 2, T: 1, H: 3, D: 8, theta: 10000, positions: ropePositions(2, 1) };
    expect(relativeError(ropeForward(x, spec), x)).toBe(0);
  });

  it('rotates halves (i, i + D/2), not interleaved pairs', () => {
    // D = 4, theta = 1 → inv_freq = [1, 1]; position 1 → angle 1 rad for both pairs.
    const x = Float64Array.from([1, 0, 0, 0]); // (1, 1, 1, 4)
    const out = ropeForward(x, { B: 1, T: 1, H: 1, D: 4, theta: 1, positions: Int32Array.from([1]) });
    expect(out[0]).toBeCloseTo(Math.cos(1), 14);
    expect(out[2]).toBeCloseTo(Math.sin(1), 14); // partner is i + D/2 = 2
    expect(out[1]).toBe(0);
    expect(out[3]).toBe(0);
  });

  it('uses inv_freq = theta^(-2i/D)', () => {
    // D = 4, theta = 100 → inv_freq[1] = 100^(-1/2) = 0.1; position 5 → angle 0.5 for pair (1, 3).
    const x = Float64Array.from([0, 1, 0, 0]);
    const out = ropeForward(x, { B: 1, T: 1, H: 1, D: 4, theta: 100, positions: Int32Array.from([5]) });
    expect(out[1]).toBeCloseTo(Math.cos(0.5), 14);
    expect(out[3]).toBeCloseTo(Math.sin(0.5), 14);
  });

  it('ropePositions applies the offset to every batch row', () => {
    expect(Array.from(ropePositions(2, 3, 4))).toEqual([4, 5, 6, 4, 5, 6]);
  });

  it('backward is the inverse rotation and matches finite differences', () => {
    const rng = new Rng(2);
    const B = 2, T = 3, H = 2, D = 6;
    const positions = Int32Array.from([0, 1, 2, 7, 8, 100]);
    const spec: RopeSpec = { B, T, H, D, theta: 10000, positions };
    const x = randn64(rng, B * T * H * D);
    expect(relativeError(ropeBackward(ropeForward(x, spec), spec), x)).toBeLessThan(1e-14);
    const r = randn64(rng, x.length);
    const dx = ropeBackward(r, spec);
    const loss = () => dot(ropeForward(x, spec), r);
    expect(checkGradients(loss, x, dx, { samples: 200, rtol: 1e-8 })).toBeLessThan(1e-8);
  });
});
