import { describe, expect, it } from 'vitest';
import { chartData, describeChart } from './chartData';
import { pooledSuccess, RunSeries, smooth, toCsv } from './runSeries';
import { evalSummary, grpoEvent, sftEvent } from './testEvents';

function run(): RunSeries {
  const s = new RunSeries();
  for (let i = 1; i <= 3; i++) s.add(sftEvent(0, i, 3, 1000 * i));
  s.add({ kind: 'eval', stage: 1, summary: evalSummary('after SFT', 'test', 3, 10, [{ label: 'keyword rule', successes: 5 }]) });
  for (let i = 1; i <= 2; i++) s.add(grpoEvent(2, i, 2, 5000 + 1000 * i, { 'reward/arguments': 0.25 * i }));
  s.add({ kind: 'curve', stage: 2, step: 1, summary: evalSummary('GRPO step 1', 'validation', 4, 10) });
  s.add({ kind: 'memory', bytes: 5e6, at: 9000 });
  s.add({ kind: 'eval', stage: 3, summary: evalSummary('after GRPO', 'test', 6, 10) });
  return s;
}

describe('run series', () => {
  it('counts steps across stages and places evaluations after the GRPO steps before them', () => {
    const s = run();
    expect(s.sft.map((p) => [p.sftIndex, p.overall])).toEqual([[1, 1], [2, 2], [3, 3]]);
    expect(s.grpo.map((p) => [p.grpoIndex, p.overall])).toEqual([[1, 4], [2, 5]]);
    expect(s.evals.map((e) => [e.label, e.split, e.grpoIndex, e.success])).toEqual([['after SFT', 'test', 0, 0.3], ['GRPO step 1', 'validation', 2, 0.4], ['after GRPO', 'test', 2, 0.6]]);
    expect(s.componentNames()).toEqual(['arguments', 'exact_match', 'format']);
  });

  it('gives each chart its series; success keeps train, validation and test apart', () => {
    const d = chartData(run());
    expect(d['chart-sft-loss'].x).toEqual([1, 2, 3]);
    expect(d['chart-success'].x).toEqual([0, 1, 2]);
    expect(d['chart-success'].ys).toEqual([[null, 0.5, 1], [null, null, 0.4], [0.3, null, 0.6]]);
    expect(d['chart-reward'].series.map((x) => x.label)).toEqual(['total reward', 'arguments', 'exact_match', 'format']);
    expect(d['chart-reward'].ys[1]).toEqual([0.25, 0.5]);
    expect(d['chart-policy'].series.map((x) => [x.label, x.scale])).toEqual([['KL to reference', undefined], ['clip fraction', undefined], ['entropy', 'y2']]);
    expect(d['chart-throughput'].ys).toEqual([[1001, 1002, 1003, null, null], [null, null, null, 50, 50], [null, null, null, 300, 300]]);
    expect(d['chart-memory'].ys).toEqual([[5]]);
    expect(describeChart('SFT loss', d['chart-sft-loss'])).toBe('SFT loss (x from 1 to 3): train loss: 3 values, last 4.7, lowest 4.7, highest 4.9.');
  });

  it('smooths with a debiased EMA, leaving gaps and the first value alone', () => {
    expect(smooth([1, 2, null, 3], 0)).toEqual([1, 2, null, 3]);
    const s = smooth([1, 3, null, 3], 0.5);
    expect(s[0]).toBe(1);
    expect(s[1]).toBeCloseTo((0.25 * 1 + 0.5 * 3) / 0.75);
    expect(s[2]).toBeNull();
  });

  it('exports CSV (quoted where needed) and JSONL of every step and evaluation', () => {
    expect(toCsv(['step', 'label'], [[1, 'a,b'], [2, null], [3, Number.NaN]])).toBe('step,label\n1,"a,b"\n2,\n3,\n');
    const lines = run().toJsonl().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.kind)).toEqual(['sft', 'sft', 'sft', 'grpo', 'grpo', 'eval', 'eval', 'eval']);
    expect(lines[3]).toMatchObject({ kind: 'grpo', stage: 2, step: 1, 'reward/arguments': 0.25 });
  });

  it('pools several task sets with a Wilson interval', () => {
    const a = evalSummary('x', 'test', 8, 10);
    const two = { ...a, taskSets: [a.taskSets[0], { ...a.taskSets[0], taskSet: 'service/retail', model: { ...a.taskSets[0].model, n: 10, success: { successes: 2, n: 10, rate: 0.2, lo: 0, hi: 1 } } }] };
    const p = pooledSuccess(two);
    expect(p.rate).toBeCloseTo(0.5);
    expect(p.n).toBe(20);
    expect(p.lo).toBeCloseTo(0.299, 2);
    expect(p.hi).toBeCloseTo(0.701, 2);
  });

  it('restores a resumed run from its checkpoint, in stage order', () => {
    const s = run();
    s.restore({ sft: [{ stage: 0, steps: [{ step: 1, loss: 4, lr: 1, gradNorm: 1, tokensPerSec: 1 }] }], grpo: [], evals: [{ stage: 1, summary: evalSummary('after SFT', 'test', 1, 10) }] });
    expect([s.sft.length, s.grpo.length, s.evals.length, s.memory.length]).toEqual([1, 0, 1, 0]);
  });
});
