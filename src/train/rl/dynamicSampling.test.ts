// Dynamic sampling with refill: rounds are drawn until tasksPerStep groups carry signal (or
// maxRounds), the trainer gets the first tasksPerStep such groups, and every drawn group is reported.
import { describe, expect, it } from 'vitest';
import { grpoConfig } from './grpo';
import { refillSize, sampleWithSignal } from './dynamicSampling';
import type { Trajectory } from './trajectory';

const G = 2;
const grpo = grpoConfig('default', { groupSize: G, dynamicSampling: true });

/** A round of groups; each group is [r, r'] (signal when the two differ); `tag` names the round. */
function round(tag: string, groups: [number, number][]): Trajectory[] {
  return groups.flatMap(([a, b], g) => [a, b].map((total, sample) => ({
    taskId: `${tag}-${g}`, group: g, sample, responseTokens: 4, reward: { components: {}, weights: {}, total },
  }) as unknown as Trajectory));
}

const ids = (ts: Trajectory[]) => [...new Set(ts.map((t) => t.taskId))];

describe('sampleWithSignal', () => {
  it('draws more rounds until the step has tasksPerStep groups with signal, and trains exactly those', async () => {
    const rounds = [round('r0', [[1, 1], [0, 1], [0, 0]]), round('r1', [[1, 0], [1, 1], [0, 1]]), round('r2', [[0, 1], [0, 1], [0, 1]])];
    const asked: [number, number][] = [];
    const s = await sampleWithSignal(async (r, n) => (asked.push([r, n]), rounds[r]), { groupSize: G, tasksPerStep: 3, maxRounds: 5, grpo });
    expect(asked).toEqual([[0, 3], [1, 3]]); // 2 missing at a keep rate of 1/3: a full batch
    expect(s.rounds).toBe(2);
    expect(ids(s.train)).toEqual(['r0-1', 'r1-0', 'r1-2']);
    expect(s.drawn).toHaveLength(12);
    expect(s.drawnKept).toEqual([false, true, false, true, false, true]);
    expect(s.drawnRewards).toEqual([1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1]);
  });

  it('sizes a refill to the missing groups over the keep rate so far, within [1, tasksPerStep]', async () => {
    const groups: [number, number][] = [[0, 1], [1, 1], [0, 1], [1, 0], [0, 1], [1, 0]];
    const asked: number[] = [];
    const s = await sampleWithSignal(async (r, n) => (asked.push(n), round(`r${r}`, r === 0 ? [[0, 1], [1, 1], [0, 1], [1, 0]] : groups.slice(0, n))), { groupSize: G, tasksPerStep: 4, maxRounds: 3, grpo });
    expect(asked).toEqual([4, 2]); // 1 missing, 3 of 4 kept: ⌈1 · 4 / 3⌉ = 2 tasks
    expect(ids(s.train)).toEqual(['r0-0', 'r0-2', 'r0-3', 'r1-0']);
    expect(refillSize(1, 8, 0, 5)).toBe(5); // nothing kept yet: a full batch
    expect(refillSize(3, 4, 1, 5)).toBe(5); // capped at tasksPerStep
    expect(refillSize(1, 10, 9, 5)).toBe(2);
  });

  it('keeps only tasksPerStep groups when a round has more with signal', async () => {
    const s = await sampleWithSignal(async () => round('r0', [[0, 1], [1, 0], [0, 1]]), { groupSize: G, tasksPerStep: 2, maxRounds: 3, grpo });
    expect(s.rounds).toBe(1);
    expect(ids(s.train)).toEqual(['r0-0', 'r0-1']);
  });

  it('stops after maxRounds; with no signal at all the trainer gets round 0 (and reports the skip)', async () => {
    const s = await sampleWithSignal(async (r) => round(`r${r}`, [[1, 1], [0, 0]]), { groupSize: G, tasksPerStep: 2, maxRounds: 3, grpo });
    expect(s.rounds).toBe(3);
    expect(s.drawnKept).toEqual([false, false, false, false, false, false]);
    expect(ids(s.train)).toEqual(['r0-0', 'r0-1']);
    const partial = await sampleWithSignal(async (r) => round(`r${r}`, [[1, 1], [0, 1]]), { groupSize: G, tasksPerStep: 3, maxRounds: 2, grpo });
    expect(ids(partial.train)).toEqual(['r0-1', 'r1-1']); // short of 3: trains what it found
  });

  it('refuses maxRounds < 1', async () => {
    await expect(sampleWithSignal(async () => [], { groupSize: G, tasksPerStep: 1, maxRounds: 0, grpo })).rejects.toThrow(/maxRounds = 0/);
  });
});
