// The run's charts: SFT loss; success (sampled train episodes, validation and test evaluations);
// reward and each reward component; KL, clip fraction and entropy; dropped groups; tokens/s; GPU
// memory. One smoothing control for all, a JSONL download of every step, redraws batched to at
// most a few per second so the page stays smooth while training.
import { CHART_IDS, type ChartId, chartData, describeChart } from '../chartData';
import type { RunSeries } from '../runSeries';
import { h } from './dom';
import { downloadBlob } from './download';
import { createMetricChart, type ChartOptions, type MetricChart } from './metricChart';

const OPTIONS: Record<ChartId, Omit<ChartOptions, 'id' | 'describe'>> = {
  'chart-sft-loss': { title: 'SFT loss', xLabel: 'SFT step', yLabel: 'loss', empty: 'The SFT loss appears here once SFT starts.' },
  'chart-success': { title: 'Success', xLabel: 'GRPO step', yLabel: 'success rate', empty: 'Success of the sampled training episodes per GRPO step, and each evaluation, appear here.', yRange: [0, 1] },
  'chart-reward': { title: 'Reward by component', xLabel: 'GRPO step', yLabel: 'mean reward', empty: 'The mean reward and each reward component per GRPO step appear here.' },
  'chart-policy': { title: 'KL · clip fraction · entropy', xLabel: 'GRPO step', yLabel: 'KL, clip fraction', y2Label: 'entropy', empty: 'KL to the reference, the clipped fraction and the entropy per GRPO step appear here.' },
  'chart-groups': { title: 'Groups', xLabel: 'GRPO step', yLabel: 'groups', empty: 'Groups drawn and dropped (all samples equally rewarded) per GRPO step appear here.' },
  'chart-throughput': { title: 'Tokens per second', xLabel: 'training step', yLabel: 'tokens/s', empty: 'Training and sampling speed appear here.' },
  'chart-memory': { title: 'GPU memory', xLabel: 'training step', yLabel: 'MB', empty: 'GPU memory held by the run appears here.' },
};

export interface ChartsPanel {
  el: HTMLElement;
  /** Schedules a redraw from `series` (batched). */
  refresh(series: RunSeries): void;
  restyle(): void;
  chart(id: ChartId): MetricChart;
}

export function createChartsPanel(): ChartsPanel {
  let weight = 0;
  const smoothListeners: (() => void)[] = [];
  const slider = h('input', { testid: 'smoothing', attrs: { type: 'range', min: '0', max: '0.95', step: '0.05', value: '0', id: 'smoothing', 'aria-valuetext': 'no smoothing' } });
  const sliderText = h('span', { class: 'muted', text: 'off' });
  slider.addEventListener('input', () => {
    weight = Number(slider.value);
    sliderText.textContent = weight === 0 ? 'off' : weight.toFixed(2);
    slider.setAttribute('aria-valuetext', weight === 0 ? 'no smoothing' : `smoothing ${weight.toFixed(2)}`);
    for (const l of smoothListeners) l();
  });
  const smoothing = { value: () => weight, onChange: (cb: () => void) => void smoothListeners.push(cb) };
  const charts = new Map<ChartId, MetricChart>(CHART_IDS.map((id) => [id, createMetricChart({ id, ...OPTIONS[id], describe: (d) => describeChart(OPTIONS[id].title, d) }, smoothing)]));
  let latest: RunSeries | null = null;
  const jsonl = h('button', { class: 'small', text: 'All steps (JSONL)', testid: 'charts-jsonl', attrs: { type: 'button' }, on: { click: () => latest && downloadBlob(new Blob([latest.toJsonl()], { type: 'application/jsonl' }), 'tabforge-run.jsonl') } });
  const el = h('section', { class: 'charts', testid: 'charts', attrs: { 'aria-label': 'Charts' } },
    h('div', { class: 'charts-head' }, h('h2', { text: 'Charts' }),
      h('label', { class: 'inline', attrs: { for: 'smoothing' } }, 'Smoothing ', slider, sliderText), jsonl),
    h('div', { class: 'chart-grid' }, ...[...charts.values()].map((c) => c.el)));

  let scheduled = false;
  let drawnVersion = -1;
  let lastDraw = 0;
  const draw = () => {
    scheduled = false;
    if (!latest || latest.version === drawnVersion) return;
    drawnVersion = latest.version;
    lastDraw = performance.now();
    const data = chartData(latest);
    for (const [id, c] of charts) c.update(data[id]);
  };
  return {
    el,
    refresh(series) {
      latest = series;
      if (scheduled) return;
      scheduled = true;
      const wait = Math.max(0, 400 - (performance.now() - lastDraw)); // at most ~2.5 redraws a second
      setTimeout(() => requestAnimationFrame(draw), wait);
    },
    restyle() {
      for (const c of charts.values()) c.restyle();
    },
    chart: (id) => charts.get(id)!,
  };
}
