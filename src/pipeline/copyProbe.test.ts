// The copy probe's held-out drills are unseen strings, and a tiny run reports one point per probe
// with the exact-copy rate over every held-out drill (the long runs are `npm run copy-probe`).
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { parseCopyProbeArgs } from '../../scripts/lib/copyProbeArgs';
import { COPY_PROBE_DEFAULTS, copyProbeDrills, drillText, runCopyProbe } from './copyProbe';

describe('copy probe', () => {
  it('held-out strings never occur in the training drills', () => {
    const { train, heldOut } = copyProbeDrills({ drills: 5000, heldOut: 64, seed: 1 });
    const seen = new Set(train.map(drillText));
    expect(heldOut).toHaveLength(64);
    expect(heldOut.filter((c) => seen.has(drillText(c)))).toEqual([]);
    expect(heldOut.every((c) => drillText(c).length >= 2)).toBe(true);
  });

  it('a tiny run probes at every --every steps and at the end', async () => {
    const rt = await testRuntime('opengles');
    const points = await runCopyProbe(rt, { ...COPY_PROBE_DEFAULTS, drills: 32, steps: 3, batch: 2, heldOut: 4, probeEvery: 2, seqLen: 256 });
    expect(points.map((p) => p.step)).toEqual([2, 3]);
    for (const p of points) {
      expect(p.exact.n).toBe(4);
      expect(Number.isFinite(p.loss)).toBe(true);
      expect(p.example.want.length).toBeGreaterThan(0);
    }
  }, 120_000);

  it('flags are checked', () => {
    expect(parseCopyProbeArgs(['--steps', '50', '--qk-gain', '3']).qkNormGain).toBe(3);
    expect(parseCopyProbeArgs(['--induction', '500']).induction).toBe(500);
    expect(parseCopyProbeArgs([]).induction).toBe(0);
    expect(() => parseCopyProbeArgs(['--steps', '0'])).toThrow(/--steps takes an integer from 1 to 10000000, got '0'/);
    expect(() => parseCopyProbeArgs(['--preset', 'big'])).toThrow(/--preset takes/);
    expect(() => parseCopyProbeArgs(['--lr=-1'])).toThrow(/--lr takes a positive number/);
  });
});
