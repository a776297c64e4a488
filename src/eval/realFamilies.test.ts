// The three reference policies on every real family: the expert near
// 100 %, a random agent low, a format breaker at 0 (and at format 0 where the family scores format).
import { describe, expect, it } from 'vitest';
import { allFamilies } from '../data/families';
import { formatBreakingPolicy, randomPolicy } from './baselinePolicies';
import { evaluate, expertPolicyFor } from './evaluate';

const families = allFamilies();

// Tasks per family: enough to cover every category, small enough for two shared cores.
const N = 40;

describe.each(families.map((f) => [f.name, f] as const))('%s', (_name, family) => {
  it('expert ≈ 100 % success on held-out tasks, every episode ending normally', async () => {
    const r = await evaluate(family, expertPolicyFor(family), { n: N, seed: 11 });
    expect(r.abnormalEnds).toEqual({});
    expect(r.successRate).toBeGreaterThanOrEqual(0.97);
    expect(r.meanTotal).toBeGreaterThanOrEqual(0.97);
    expect(r.byCategory.length).toBeGreaterThan(1);
  });

  it('a random policy succeeds rarely', async () => {
    const r = await evaluate(family, (_task, seed) => randomPolicy(seed), { n: N, seed: 11 });
    expect(r.successRate).toBeLessThan(0.25);
    expect(r.meanTotal).toBeLessThan(0.6);
  });

  it('a format-breaking policy never succeeds and scores format 0', async () => {
    const r = await evaluate(family, () => formatBreakingPolicy(), { n: N, seed: 11 });
    expect(r.successRate).toBe(0);
    if ('format' in family.defaultWeights) expect(r.meanComponents.format).toBe(0);
    expect(r.meanTotal).toBeLessThan(0.5);
  });
});

it('covers the three families of the mix', () => {
  expect(families.map((f) => f.name)).toEqual(['function-calling', 'service', 'coding']);
});
