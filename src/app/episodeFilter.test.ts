import { describe, expect, it } from 'vitest';
import { groupEpisodes, matches, NO_FILTER, stepsOf } from './episodeFilter';
import { episode } from './testEvents';

describe('trajectory filters', () => {
  const eps = [
    episode({ group: 0, sample: 0, success: true }), episode({ group: 0, sample: 1, success: false }),
    episode({ step: 2, label: 'GRPO step 2', group: 0, sample: 0, success: false, taskId: 'route4-train-2-0', category: 'price' }),
    episode({ source: 'eval', step: 0, label: 'after SFT', stage: 1, taskId: 'route4-test-1-0', success: false }),
    episode({ source: 'sample', step: 0, stage: -1, label: 'final model', taskId: 'route4-test-1-0' }),
    episode({ source: 'expert', step: 0, stage: -1, label: 'expert', taskId: 'route4-test-1-0' }),
  ];

  it('groups the G samples of a task together, newest group first', () => {
    const g = groupEpisodes(eps, NO_FILTER);
    expect(g.map((x) => [x.title, x.episodes.length])).toEqual([
      ['expert (reference)', 1], ['final model', 1], ['evaluation: after SFT', 1], ['GRPO step 2 · group 1 · route4-train-2-0', 1], ['GRPO step 1 · group 1 · route4-train-1-0', 2],
    ]);
  });

  it('filters by source, failure, task and step', () => {
    const n = (f: Partial<typeof NO_FILTER>) => eps.filter((e) => matches(e, { ...NO_FILTER, ...f })).length;
    expect(n({ failedOnly: true })).toBe(3);
    expect(n({ source: 'rollout' })).toBe(3);
    expect(n({ source: 'final' })).toBe(2);
    expect(n({ task: 'PRICE' })).toBe(1);
    expect(n({ task: 'test-1' })).toBe(3);
    expect(n({ step: 1 })).toBe(2);
    expect(stepsOf(eps)).toEqual([1, 2]);
  });
});
