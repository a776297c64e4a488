import { describe, expect, it } from 'vitest';
import { EXAMPLE_PIPELINES } from '../../src/pipeline/presets';
import { episode, evalSummary } from '../../src/app/testEvents';
import { demoReportHtml, demoSummaryJson, type DemoReportInput } from './demoReport';

const input: DemoReportInput = {
  adapter: 'llvmpipe', config: EXAMPLE_PIPELINES[0].config, createdAt: new Date('2025-01-01T00:00:00Z'),
  result: { model: 'preset nano', parameters: 432672, evals: [evalSummary('after SFT', 'test', 25, 128, [{ label: 'keyword rule (fit on train)', successes: 77 }]), evalSummary('after GRPO', 'test', 42, 128)], stageSeconds: [60, 20, 100, 20], seconds: 200, selfCheckFailures: 0 },
  episodes: [episode({ source: 'sample', taskId: 'route4-test-1-0', messages: [{ role: 'user', content: 'weather <b>now</b>?' }, { role: 'assistant', content: `${'\n'.repeat(64)}` }], turns: [{ tokens: 64, hitTokenLimit: true, totalAfter: 0 }], success: false }), episode({ source: 'expert' })],
  log: ['SFT: 150 steps'], charts: [{ file: 'charts/chart-sft-loss.png', title: 'SFT loss' }],
};

describe('the demo report', () => {
  it('summarises every evaluation with its interval, n, seeds and baselines as JSON', () => {
    const s = demoSummaryJson(input);
    expect(s.evaluations.map((e) => [e.label, e.split, e.seeds, e.taskSets[0].n, e.taskSets[0].success.rate])).toEqual([['after SFT', 'test', [1], 128, 25 / 128], ['after GRPO', 'test', [1], 128, 42 / 128]]);
    expect(s.evaluations[0].taskSets[0].baselines).toEqual([{ label: 'keyword rule (fit on train)', rate: 77 / 128, lo: 0, hi: 1, n: 128 }]);
    expect(s).toMatchObject({ adapter: 'llvmpipe', seed: 1, preset: 'nano', seconds: 200, episodes: [{ source: 'sample', success: false }, { source: 'expert', success: true }] });
  });

  it('writes HTML with the rates, baselines, charts and escaped episodes (long whitespace collapsed, token limit marked)', () => {
    const html = demoReportHtml(input);
    expect(html).toContain('<td>19.5 %</td>');
    expect(html).toContain('<th>keyword rule (fit on train)</th><td>60.2 %</td>');
    expect(html).toContain('<img src="charts/chart-sft-loss.png" alt="SFT loss">');
    expect(html).toContain('weather &lt;b&gt;now&lt;/b&gt;?');
    expect(html).toContain('[64 whitespace characters]');
    expect(html).toContain('token limit hit');
    expect(html).not.toContain('<b>now</b>');
  });
});
