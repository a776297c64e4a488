import { describe, expect, it } from 'vitest';
import { generateRoutingTask } from '../../envs/functionCalling/routingTask';
import { acrossSeeds, formatHeadline } from './headline';
import { formatRate, meanInterval, wilson } from './interval';
import { outcomeOf } from './outcomes';
import { summarizeOutcomes } from './summary';
import { formatComparison } from './table';

describe('evaluation reports', () => {
  it('Wilson 95 % intervals match the textbook values, including 0 and n successes', () => {
    const r = (s: number, n: number) => wilson(s, n);
    expect(r(5, 10)).toMatchObject({ rate: 0.5 });
    expect(r(5, 10).lo).toBeCloseTo(0.2366, 4);
    expect(r(5, 10).hi).toBeCloseTo(0.7634, 4);
    expect(r(0, 10).lo).toBe(0);
    expect(r(0, 10).hi).toBeCloseTo(0.2775, 4);
    expect(r(10, 10).lo).toBeCloseTo(0.7225, 4);
    expect(r(81, 100).lo).toBeCloseTo(0.7222, 4);
    expect(r(81, 100).hi).toBeCloseTo(0.8749, 4);
    expect(r(0, 0)).toMatchObject({ rate: 0, lo: 0, hi: 1 });
    expect(() => r(11, 10)).toThrow(/successes must lie in \[0, n\]/);
    expect(formatRate(r(5, 10))).toBe('50.0 % [23.7, 76.3]');
    // a non-binary component: the normal approximation of the mean, clipped to [0, 1]
    const m = meanInterval([0.5, 0.5, 1, 0]);
    expect(m.rate).toBeCloseTo(0.5);
    expect(m.lo).toBeGreaterThanOrEqual(0);
    expect(meanInterval([1, 0, 1])).toEqual(wilson(2, 3));
  });

  it('summarises success, components and the breakdown by tool and category', () => {
    const tasks = Array.from({ length: 40 }, (_, i) => generateRoutingTask(1, i, 'test', 'route8-multi'));
    const outcomes = tasks.map((t, i) => outcomeOf(t, i % 2 === 0, { total: i % 2 === 0 ? 1 : 0.3, components: { exact_match: i % 2 === 0 ? 1 : 0, format: 1 } }));
    const s = summarizeOutcomes('model', 'model', outcomes);
    expect(s.success).toEqual(wilson(20, 40));
    expect(s.meanReward).toBeCloseTo(0.65);
    expect(s.components.format.rate).toBe(1);
    const toolN = Object.values(s.by.tool).reduce((a, r) => a + r.n, 0);
    expect(toolN).toBe(tasks.reduce((a, t) => a + t.groundTruth.length, 0)); // a two-call task counts under both tools
    expect(Object.keys(s.by.category).sort()).toEqual([...new Set(tasks.map((t) => t.category))].sort());
    // by phrasing: every test phrasing used, a task under each of its phrasings, each cell its tasks' success
    const phrasingN = Object.values(s.by.phrasing).reduce((a, r) => a + r.n, 0);
    expect(phrasingN).toBe(tasks.reduce((a, t) => a + new Set(t.phrasings).size, 0));
    for (const [p, r] of Object.entries(s.by.phrasing)) {
      const of = tasks.map((t, i) => [t, i] as const).filter(([t]) => t.phrasings!.includes(p));
      expect(r, p).toEqual(wilson(of.filter(([, i]) => i % 2 === 0).length, of.length));
    }
    const table = formatComparison({ split: 'test', taskSet: 'function-calling/route8-multi', seed: 1 }, [s, { ...summarizeOutcomes('rule', 'baseline', outcomes.map((o) => ({ ...o, success: false })), 'how it works') }]);
    expect(table).toMatch(/^test split · function-calling\/route8-multi · n = 40 · seed 1/);
    expect(table).toMatch(/model\s+40\s+50\.0 % \[35\.2, 64\.8\]/);
    expect(table).toMatch(/— baselines \(same split and tasks\) —/);
    expect(table).toMatch(/success by tool/);
    expect(table).toMatch(/success by category/);
    expect(table).toMatch(/success by phrasing/);
    expect(table).toMatch(/rule: how it works/);
    // 16 phrasings, 8 tools, 2 policies: one value per row is narrower, and every line fits 120 characters
    const lines = table.split('\n');
    const phrasingHead = lines.findIndex((l) => l.startsWith('success by phrasing'));
    expect(lines[phrasingHead]).toMatch(/^success by phrasing\s+n\s+model\s+rule$/);
    for (const p of Object.keys(s.by.phrasing)) expect(lines.some((l) => l.startsWith(p)), p).toBe(true);
    expect(Math.max(...lines.filter((l) => !l.includes(': ')).map((l) => l.length))).toBeLessThanOrEqual(120);
  });

  it('function choice by tool: each tool\'s mean over its episodes, printed after success by tool', () => {
    // route4 tasks of known tools; the model picks the right tool on every time task and on none of the others
    const tasks = Array.from({ length: 24 }, (_, i) => generateRoutingTask(1, i, 'test', 'route4'));
    const toolOf = (t: (typeof tasks)[number]) => Object.keys(t.groundTruth[0])[0];
    const outcomes = tasks.map((t) => outcomeOf(t, false, { total: 0.3, components: { function_choice: toolOf(t) === 'time' ? 1 : 0, format: 1 } }));
    const s = summarizeOutcomes('model', 'model', outcomes);
    const fc = s.componentBy!.function_choice.tool;
    const nTime = tasks.filter((t) => toolOf(t) === 'time').length;
    expect(nTime).toBeGreaterThan(0);
    expect(fc.time).toEqual(wilson(nTime, nTime));
    for (const [tool, r] of Object.entries(fc)) if (tool !== 'time') expect(r.rate, tool).toBe(0);
    expect(Object.keys(s.componentBy!)).toEqual(['function_choice']); // format is not broken down
    const table = formatComparison({ split: 'test', taskSet: 'function-calling/route4', seed: 1 }, [s]);
    expect(table.indexOf('function_choice by tool')).toBeGreaterThan(table.indexOf('success by tool'));
    expect(table).toMatch(new RegExp(`time \\(n=${nTime}\\)`));
    expect(table).toMatch(/model\s+.*100 \[\d+–100\]/);
  });

  it('headline figures: mean and range over ≥ 3 seeds, refused with fewer', () => {
    const figs = [1, 2, 3].map((seed, i) => ({ seed, rate: wilson([50, 60, 70][i], 100) }));
    const h = acrossSeeds(figs);
    expect([h.mean, h.min, h.max]).toEqual([0.6, 0.5, 0.7]);
    expect(formatHeadline(h)).toBe('60.0 % (range 50.0–70.0 %; seeds 1, 2, 3; n = 100 each)');
    expect(() => acrossSeeds(figs.slice(0, 2))).toThrow(/needs ≥ 3 seeds \(got 2: 1, 2\)/);
    expect(() => acrossSeeds([...figs, figs[0]])).toThrow(/seed listed twice/);
  });
});
