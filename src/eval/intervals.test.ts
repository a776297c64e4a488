import { describe, expect, it } from 'vitest';
import { wilsonInterval } from './intervals';

describe('wilsonInterval', () => {
  it('matches hand-computed Wilson bounds', () => {
    // 8/10, z = 1.96: centre = (0.8 + 0.19208) / 1.38416 = 0.71676, half = 1.41602 · sqrt(0.016 + 0.0096040) = 0.22661
    const [lo, hi] = wilsonInterval(8, 10);
    expect(lo).toBeCloseTo(0.4902, 4);
    expect(hi).toBeCloseTo(0.9433, 4);
  });
  it('stays inside [0, 1] at 0 and n successes, and is [0, 1] for n = 0', () => {
    expect(wilsonInterval(0, 20)[0]).toBe(0);
    expect(wilsonInterval(0, 20)[1]).toBeCloseTo(0.1611, 4);
    expect(wilsonInterval(20, 20)[1]).toBe(1);
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
  });
  it('refuses counts that are not a rate', () => {
    expect(() => wilsonInterval(11, 10)).toThrow(/not a rate/);
  });
});
