// Coordinator logic on the CPU (fake pool: scripted rollouts, a trainer that only counts versions).
import { describe, expect, it } from 'vitest';
import { grpoConfig } from '../grpo';
import { DEFAULT_GRPO_TRAINER } from '../grpoTrainer';
import { DEFAULT_ROLLOUT } from '../rollout';
import { fakePool } from '../../testing/fakePool';
import { type AsyncRlConfig, runAsyncRl } from './coordinator';
import { injectFaults } from './handles';

const rollout = { ...DEFAULT_ROLLOUT, groupSize: 2 };
const config = (o: Partial<AsyncRlConfig> = {}): AsyncRlConfig => ({
  steps: 5, tasksPerStep: 2, seed: 1, warmupSteps: 0, minLrRatio: 1, rollout,
  trainer: { ...DEFAULT_GRPO_TRAINER, grpo: grpoConfig('default', { groupSize: 2 }) },
  staleness: 0, rolloutActors: 1, hangTimeoutMs: 2000, maxRestarts: 3, ...o,
});

function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start < b.end - 1 && b.start < a.end - 1;
}

describe('runAsyncRl (fake pool)', () => {
  it('k = 0 is synchronous: every batch is fresh and no rollout overlaps a training step', async () => {
    const pool = fakePool({ rolloutMs: 30, trainMs: 30, rollout });
    const records = await runAsyncRl(pool, config({ staleness: 0 }));
    expect(records.map((r) => r.version)).toEqual([1, 2, 3, 4, 5]);
    for (const r of records) expect(r.stalenessHistogram).toEqual([4]);
    const trains = pool.timeline.filter((e) => e.kind === 'train');
    const rollouts = pool.timeline.filter((e) => e.kind === 'rollout');
    for (const t of trains) for (const r of rollouts) expect(overlaps(t, r)).toBe(false);
    expect(rollouts).toHaveLength(5); // no batch generated beyond the last step
  });

  it('k = 1 overlaps the next rollout with training and keeps staleness ≤ 1', async () => {
    const pool = fakePool({ rolloutMs: 40, trainMs: 40, rollout });
    const records = await runAsyncRl(pool, config({ staleness: 1, steps: 6 }));
    for (const r of records) expect(r.stalenessHistogram.length).toBeLessThanOrEqual(2);
    expect(records.slice(1).some((r) => r.stalenessHistogram[1] > 0)).toBe(true);
    const trains = pool.timeline.filter((e) => e.kind === 'train');
    const rollouts = pool.timeline.filter((e) => e.kind === 'rollout');
    // Structural, not timed (speed belongs to the bench): the next batch is generated while a step
    // trains, so all trains but the first and the last overlap a rollout (a loaded machine can
    // shift timers, never the order of these events).
    const overlapping = trains.filter((t) => rollouts.some((r) => overlaps(t, r))).length;
    expect(overlapping).toBeGreaterThanOrEqual(trains.length - 2);
  });

  it('several actors with k = 2: never trains on a batch more than 2 versions old', async () => {
    const pool = fakePool({ rolloutMs: 20, trainMs: 25, rollout, rolloutMsByActor: [20, 70, 45] });
    const records = await runAsyncRl(pool, config({ staleness: 2, steps: 8, rolloutActors: 3 }));
    expect(records).toHaveLength(8);
    for (const r of records) expect(r.stalenessHistogram.length).toBeLessThanOrEqual(3);
    const dropped = records.at(-1)!.metrics['async/stale_dropped_episodes'];
    expect(dropped % 4).toBe(0); // whole batches of 2 tasks × G 2
  });

  it('drops (and counts) batches that arrive more than k versions late, and replays their tasks', async () => {
    // k = 1, two actors: the slow one's slot-1 batch (version 0) arrives after the fast one has fed five steps.
    const pool = fakePool({ rolloutMs: 10, trainMs: 10, rollout, rolloutMsByActor: [10, 300] });
    const records = await runAsyncRl(pool, config({ staleness: 1, steps: 6, rolloutActors: 2 }));
    expect(records).toHaveLength(6);
    for (const r of records) expect(r.stalenessHistogram.length).toBeLessThanOrEqual(2);
    expect(records.at(-1)!.metrics['async/stale_dropped_episodes']).toBe(4);
    expect(pool.timeline.filter((e) => e.kind === 'train').map((e) => e.slot).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('records each step\'s slot; a resume trains the slots its checkpoint had not (out of order after a drop), each once', async () => {
    const first = fakePool({ rolloutMs: 10, trainMs: 10, rollout, rolloutMsByActor: [10, 300] });
    const before = await runAsyncRl(first, config({ staleness: 1, steps: 6, rolloutActors: 2 }));
    const slots = before.map((r) => r.metrics['async/slot']);
    expect(slots).toEqual(first.timeline.filter((e) => e.kind === 'train').map((e) => e.slot));
    expect(slots).not.toEqual([0, 1, 2, 3, 4, 5]); // slot 1 was dropped and replayed later
    // resume after 3 steps of that run: the slots trained then, and only the others, follow
    const cut = 3;
    const pool = fakePool({ rolloutMs: 10, trainMs: 10, rollout });
    const after = await runAsyncRl(pool, config({ staleness: 1, steps: 6, from: { step: cut, slotsTrained: slots.slice(0, cut) } }));
    expect(after.map((r) => r.step)).toEqual([4, 5, 6]);
    expect([...slots.slice(0, cut), ...after.map((r) => r.metrics['async/slot'])].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    // a checkpoint whose slots do not fit its steps is refused, not guessed at
    await expect(runAsyncRl(fakePool({ rolloutMs: 10, trainMs: 10, rollout }), config({ steps: 6, from: { step: 2, slotsTrained: [0, 0] } }))).rejects.toThrow(/trained slots \[0, 0\] do not fit its 2 steps/);
  });

  it('restarts a crashed rollout actor, loses only its job, and still trains every step', async () => {
    const pool = fakePool({ rolloutMs: 10, trainMs: 10, rollout });
    const records = await runAsyncRl(injectFaults(pool, { crashJobs: [1] }), config({ steps: 4 }));
    expect(records).toHaveLength(4);
    const last = records.at(-1)!.metrics;
    expect(last['async/restarts']).toBe(1);
    expect(last['async/lost_episodes']).toBe(4);
    expect(pool.created).toBe(2);
    // The crashed slot's tasks were played again: slots 0…3 each trained once.
    expect(pool.timeline.filter((e) => e.kind === 'train').map((e) => e.slot).sort()).toEqual([0, 1, 2, 3]);
  });

  it('treats a job past hangTimeoutMs as a hung actor and replaces it', async () => {
    const pool = fakePool({ rolloutMs: 10, trainMs: 10, rollout });
    const records = await runAsyncRl(injectFaults(pool, { hangJobs: [2] }), config({ steps: 4, hangTimeoutMs: 300 }));
    expect(records).toHaveLength(4);
    expect(records.at(-1)!.metrics['async/restarts']).toBe(1);
  });

  it('gives up with a clear error after maxRestarts failures', async () => {
    const pool = fakePool({ rolloutMs: 5, trainMs: 5, rollout });
    await expect(runAsyncRl(injectFaults(pool, { crashJobs: [0, 1, 2] }), config({ maxRestarts: 2 }))).rejects.toThrow(/failed 3 times/);
  });
});
