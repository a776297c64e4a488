// GRPO throughput rows: names, the fixed workload, and the derived speed-up (no GPU, no browser).
import { describe, expect, it } from 'vitest';
import { describeWorkload, GRPO_VARIANTS, grpoRowName, grpoWorkload, idealSpeedUp, speedUp, speedUpNote, speedUpRowName } from './grpoRows';

const measured = (tokensPerSecond: number, R = 1, T = 2) => ({ tokensPerSecond, rolloutSecondsPerStep: R, trainSecondsPerStep: T });

describe('grpo bench rows', () => {
  it('names the rows as the issue asks, and the derived rows so one filter keeps them all', () => {
    expect(GRPO_VARIANTS.map(grpoRowName)).toEqual(['grpo throughput sync', 'grpo throughput async k=1', 'grpo throughput async k=2']);
    expect(speedUpRowName(2)).toBe('grpo throughput speed-up async k=2 / sync');
    expect(speedUpRowName(1).includes('grpo throughput')).toBe(true);
  });

  it('runs one workload per adapter: only the timed step count changes', () => {
    const s = grpoWorkload(false, 'swiftshader');
    const l = grpoWorkload(false, 'llvmpipe');
    expect({ ...s, steps: 0 }).toEqual({ ...l, steps: 0 });
    expect([s.steps, l.steps, grpoWorkload(true, 'llvmpipe').steps]).toEqual([2, 4, 1]);
    expect(describeWorkload(l)).toBe('nano, routing tasks, 2 tasks × G=4, 32 new tokens/episode, prompt shared per group, 4 timed steps after warm-up');
  });

  it('divides async by sync, and says which side is missing instead of guessing', () => {
    expect(speedUp(measured(100), measured(150), 1)).toBeCloseTo(1.5, 12);
    expect(() => speedUp(undefined, measured(150), 1)).toThrow(/'grpo throughput sync' did not run/);
    expect(() => speedUp(measured(100), { error: 'worker pool could not start' }, 2)).toThrow(/'grpo throughput async k=2' failed: worker pool could not start/);
    expect(() => speedUp(measured(0), measured(150), 1)).toThrow(/measured 0 tokens\/s/);
  });

  it('states the target and the perfect-overlap bound (R + T) / max(R, T)', () => {
    expect(idealSpeedUp(1, 2)).toBe(1.5);
    expect(idealSpeedUp(3, 3)).toBe(2);
    expect(speedUpNote(1.2, measured(100, 1, 3))).toBe('1.20× (below the 1.5× target); perfect overlap would give 1.33× (sync: rollout 1.00 s + train 3.00 s per step)');
    expect(speedUpNote(1.6, { error: 'x' })).toBe('1.60× (meets the 1.5× target)');
    expect(speedUpNote(1.6, measured(100, 1, 3))).toMatch(/^1\.60× \(meets the 1\.5× target\); perfect overlap would give 1\.33× .*; above that bound, so the rows ran under different conditions/);
  });
});
