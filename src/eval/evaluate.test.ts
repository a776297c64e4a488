import { describe, expect, it } from 'vitest';
import type { Policy } from '../envs/types';
import { formatBreakingPolicy, randomPolicy } from './baselinePolicies';
import { evaluate, evaluateAll, expertPolicyFor } from './evaluate';
import { fakeFamily, type FakeTask } from './fakeFamily';
import { formatEvalTable, formatMixTable } from './formatReport';
import { meanPassAtK } from './passAtK';

const family = fakeFamily();

describe('evaluate on the fake family', () => {
  it('scores the expert at 100 % with full components and per-category rows', async () => {
    const r = await evaluate(family, expertPolicyFor(family), { n: 30, seed: 1 });
    expect(r.successRate).toBe(1);
    expect(r.passAtK).toBe(1);
    expect(r.meanTotal).toBeCloseTo(1, 12);
    expect(r.meanComponents).toEqual({ format: 1, tool: 1, outcome: 1 });
    expect(r.meanTurns).toBe(2);
    expect(r.split).toBe('test');
    expect(r.byCategory.map((c) => c.category)).toEqual(['add', 'mul']);
    expect(r.byCategory.reduce((s, c) => s + c.tasks, 0)).toBe(30);
    expect(r.abnormalEnds).toEqual({});
  });

  it('scores a random policy low and a format breaker at format 0', async () => {
    const random = await evaluate(family, (_t, seed) => randomPolicy(seed), { n: 30, seed: 1 });
    expect(random.successRate).toBeLessThan(0.1);
    const broken = await evaluate(family, () => formatBreakingPolicy(), { n: 10, seed: 1 });
    expect(broken.meanComponents.format).toBe(0);
    expect(broken.successRate).toBe(0);
  });

  it('is deterministic and independent of concurrency', async () => {
    const policyFor = (_t: FakeTask, seed: number) => randomPolicy(seed);
    const a = await evaluate(family, policyFor, { n: 12, seed: 4, k: 2, samples: 3 });
    const b = await evaluate(family, policyFor, { n: 12, seed: 4, k: 2, samples: 3, concurrency: 5 });
    expect(b).toEqual(a);
  });

  it('computes pass@k from k samples per task with different seeds', async () => {
    // Succeeds iff its seed is even: samples of one task get different seeds, so outcomes vary.
    const coin = (task: FakeTask, seed: number): Policy => (seed % 2 === 0 ? family.expertPolicy(task, seed) : async () => 'no idea');
    const r = await evaluate(family, coin, { n: 20, seed: 9, k: 2, samples: 4, keepEpisodes: true });
    const eps = r.episodeList!;
    expect(eps).toHaveLength(80);
    expect(new Set(eps.slice(0, 4).map((e) => e.seed)).size).toBe(4);
    expect(eps.slice(0, 4).every((e) => e.taskId === eps[0].taskId)).toBe(true);
    const perTask = Array.from({ length: 20 }, (_, i) => ({ n: 4, c: eps.slice(4 * i, 4 * i + 4).filter((e) => e.success).length }));
    expect(r.passAtK).toBeCloseTo(meanPassAtK(perTask, 2), 12);
    expect(r.successRate).toBeCloseTo(eps.filter((e) => e.success).length / 80, 12);
    expect(r.passAtK).toBeGreaterThan(r.successRate); // more tries, more chances
  });

  it('counts policy failures as failures with example errors', async () => {
    const r = await evaluate(family, () => async () => { throw new Error('out of memory'); }, { n: 3, seed: 1 });
    expect(r.abnormalEnds).toEqual({ 'policy-error': 3 });
    expect(r.exampleErrors[0]).toMatch(/out of memory/);
    expect(r.successRate).toBe(0);
    const factoryFails = await evaluate(family, () => { throw new Error('no weights'); }, { n: 2, seed: 1 });
    expect(factoryFails.exampleErrors[0]).toMatch(/policy factory failed: no weights/);
  });

  it('rejects bad options with a fix', async () => {
    await expect(evaluate(family, expertPolicyFor(family), { n: 0, seed: 1 })).rejects.toThrow(/n must be a positive integer/);
    await expect(evaluate(family, expertPolicyFor(family), { n: 2, seed: 1, k: 4, samples: 2 })).rejects.toThrow(/≥ k/);
  });
});

describe('evaluateAll and the table', () => {
  it('totals the families and prints a row per family and category', async () => {
    const other = fakeFamily({ expertWrongEvery: 2 });
    const mix = await evaluateAll([family, other], (f, task, seed) => f.expertPolicy(task, seed), { n: 10, seed: 3 });
    expect(mix.families.map((r) => r.successRate)).toEqual([1, 0.5]);
    expect(mix.successRate).toBeCloseTo(0.75, 12);
    expect(mix.episodes).toBe(20);
    const table = formatMixTable(mix);
    expect(table).toMatch(/family \/ category\s+tasks\s+episodes\s+success\s+pass@1\s+reward\s+turns/);
    expect(table).toMatch(/\n {2}add\s+\d+\s+\d+\s+100\.0%/);
    expect(table).toMatch(/components: format 1\.000 · tool 1\.000 · outcome 1\.000/);
    expect(table).toMatch(/\nall\s+20\s+20\s+75\.0%/);
    expect(formatEvalTable([mix.families[0]]).split('\n')).toHaveLength(5);
  });
});
