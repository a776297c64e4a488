import { describe, expect, it } from 'vitest';
import { EXAMPLE_PIPELINES } from '../pipeline/presets';
import { compareRuns, flatten } from './runCompare';
import type { RunRecord } from './runStore';
import { RunSeries } from './runSeries';
import { evalSummary, sftEvent } from './testEvents';

const record = (over: Partial<RunRecord>): RunRecord => ({
  id: 'a', createdAt: 0, updatedAt: 0, title: 'routing', config: EXAMPLE_PIPELINES[0].config, status: 'done', checkpointDb: null, lastSaved: null, unsavedSteps: 0, result: null, error: null, adapter: 'x', ...over,
});

describe('comparing two runs', () => {
  it('lists the settings that differ by path, and every result side by side', () => {
    const b = structuredClone(EXAMPLE_PIPELINES[0].config);
    b.seed = 2;
    (b.stages[2] as { lr: number }).lr = 2e-3;
    const sa = new RunSeries();
    sa.add(sftEvent(0, 1, 1, 1, 0.5));
    sa.add({ kind: 'eval', stage: 1, summary: evalSummary('after SFT', 'test', 3, 10) });
    const sb = new RunSeries();
    sb.add({ kind: 'eval', stage: 1, summary: evalSummary('after SFT', 'test', 3, 10) });
    const c = compareRuns({ record: record({}), series: sa }, { record: record({ id: 'b', config: b, status: 'stopped' }), series: sb });
    expect(c.settings.map((r) => [r.label, r.a, r.b])).toEqual([['seed', '1', '2'], ['stages.2.lr', '0.001', '0.002']]);
    expect(c.results.map((r) => [r.label, r.differs])).toEqual([['status', true], ['test success: after SFT', false], ['last SFT loss', true]]);
    expect(c.results[2]).toMatchObject({ a: '0.5000', b: '—' });
  });

  it('flattens nested values', () => {
    expect(Object.fromEntries(flatten({ a: [1, { b: 'x' }], c: null }))).toEqual({ 'a.0': '1', 'a.1.b': '"x"', c: 'null' });
  });
});
