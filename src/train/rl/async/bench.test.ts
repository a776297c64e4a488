// benchGrpoThroughput's async timing on the CPU (fake pool: rollouts and training steps that take
// a chosen wall time): the warm-up run reuses its rollout actor, and the clock covers the steady state.
import { describe, expect, it } from 'vitest';
import type { GpuRuntime } from '../../../gpu/runtime';
import { fakePool, type FakePool } from '../../testing/fakePool';
import { benchGrpoThroughput } from './bench';

const rt = {} as GpuRuntime; // async with a pool factory never touches the page's device

describe('benchGrpoThroughput (async, fake pool)', () => {
  it('warms up on the same actors, then times steps 2…N+1 of an overlapped run', async () => {
    let pool: FakePool | null = null;
    const ms = 60;
    const r = await benchGrpoThroughput(rt, { mode: 'async', k: 1, steps: 3, pool: (_init, cfg) => (pool = fakePool({ rolloutMs: ms, trainMs: ms, rollout: cfg.rollout })) });
    const p = pool as FakePool | null;
    if (!p) throw new Error('the pool factory was not called');
    expect(p.created).toBe(1); // the warm-up run's rollout actor (and its compiled pipelines) served the timed run
    const trains = p.timeline.filter((e) => e.kind === 'train');
    expect(trains.map((e) => e.slot)).toEqual([0, 0, 1, 2, 3]); // warm-up slot 0, then the timed run's slots 0…3
    expect([r.mode, r.k, r.steps]).toEqual(['async', 1, 3]);
    // Overlapped steady state: one step per max(R, T) = 60 ms, not R + T = 120 ms.
    expect(r.seconds).toBeGreaterThanOrEqual((3 * ms * 0.95) / 1000);
    expect(r.seconds).toBeLessThan((3 * 2 * ms) / 1000);
    expect(r.tokensPerSecond).toBeGreaterThan(0);
    expect(r.rolloutSecondsPerStep).toBeCloseTo(ms / 1000, 6);
    expect(r.totalSeconds).toBeGreaterThan(r.seconds);
  });
});
