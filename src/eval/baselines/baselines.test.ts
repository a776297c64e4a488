import { describe, expect, it } from 'vitest';
import { ROUTING_FAMILIES } from '../../envs/functionCalling/family';
import type { FunctionCallingTask } from '../../envs/functionCalling/types';
import { taskSet } from '../../envs/taskSets';
import { outcomeOf } from '../report/outcomes';
import { compareWithBaselines, runBaselines } from './index';
import { fitRoutingRules, requestOf } from './textRules';

const tasks = (split: 'train' | 'test', n: number, level: 'route4' | 'route8' = 'route8') => Array.from({ length: n }, (_, i) => ROUTING_FAMILIES[level].generateTask(3, i, split) as FunctionCallingTask);

describe('cheap baselines', () => {
  it('routing rules are fit on train only; the extractor finds unseen test values', () => {
    const rules = fitRoutingRules(tasks('train', 1500));
    const test = tasks('test', 300);
    const value = (t: FunctionCallingTask) => Object.values(Object.values(t.groundTruth[0])[0])[0][0];
    const extracted = test.filter((t) => rules.extract(requestOf(t)) === value(t)).length / test.length;
    expect(extracted).toBeGreaterThan(0.8);
    // the type-only rule can tell at most one of each type's two route8 tools
    const typeRight = test.filter((t) => rules.valueType(t)[0].name === Object.keys(t.groundTruth[0])[0]).length / test.length;
    expect(typeRight).toBeLessThan(0.56);
  });

  it('on the test split: rules above do-nothing and random, all scored by the environment; the table has them all', async () => {
    const set = taskSet('function-calling', 'route8');
    const summaries = await runBaselines(set, { split: 'test', n: 64, seed: 1, fitN: 800 });
    const by = Object.fromEntries(summaries.map((s) => [s.label, s.success.rate]));
    expect(Object.keys(by)).toEqual(['majority tool (fit on train)', 'value-type rule (fit on train)', 'keyword rule (fit on train)', 'do nothing', 'random']);
    expect(by['do nothing']).toBe(0);
    expect(by['keyword rule (fit on train)']).toBeGreaterThan(by['majority tool (fit on train)']);
    for (const s of summaries) expect(s.n).toBe(64);
    const model = Array.from({ length: 64 }, (_, i) => outcomeOf(set.envFamily.generateTask(1, i, 'test'), true, { total: 1, components: { exact_match: 1 } }));
    const { table } = await compareWithBaselines(set, { split: 'test', n: 64, seed: 1, fitN: 800, models: [{ label: 'perfect model', outcomes: model }] });
    expect(table).toMatch(/perfect model\s+64\s+100\.0 %/);
    expect(table).toMatch(/keyword rule \(fit on train\)\s+64/);
    await expect(compareWithBaselines(set, { split: 'test', n: 65, seed: 1, models: [{ label: 'short', outcomes: model }] })).rejects.toThrow(/has 64 outcomes for n = 65 tasks/);
  });

  it('every task set has do-nothing and random baselines that run', async () => {
    for (const [family, level] of [['function-calling', 'bfcl'], ['function-calling', 'bfcl-unseen-tools'], ['service', 'retail']] as const) {
      const summaries = await runBaselines(taskSet(family, level), { split: 'test', n: 6, seed: 2, fitN: 200 });
      expect(summaries.map((s) => s.label)).toContain('do nothing');
      expect(summaries.map((s) => s.label)).toContain('random');
    }
  });
});
