// Live GRPO chart (uPlot): per RL step, the sampled episodes' success rate and mean reward (both 0 … 1
// for the routing tasks), next to the SFT loss chart.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { GrpoProgress } from '../../pipeline/demoPipeline';
import { h, panel } from './dom';

export interface GrpoChart {
  el: HTMLElement;
  reset(): void;
  push(p: GrpoProgress): void;
  /** Steps drawn so far (tests read it through data-points). */
  readonly points: number;
}

export function createGrpoChart(): GrpoChart {
  const host = h('div', { class: 'chart', testid: 'grpo-chart' });
  const empty = h('p', { class: 'muted chart-empty', text: 'Success rate and reward per GRPO step appear here once RL starts.' });
  const el = panel('GRPO success & reward', 'chart-panel', empty, host);
  const steps: number[] = [];
  const success: number[] = [];
  const reward: number[] = [];
  let plot: uPlot | null = null;

  const width = () => Math.max(240, host.clientWidth || 480);
  const make = () => {
    plot = new uPlot({
      width: width(),
      height: 200,
      scales: { x: { time: false }, y: { range: [0, 1] } },
      legend: { live: false },
      axes: [
        { label: 'GRPO step', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], values: (_u, ticks) => ticks.map((t) => String(t)) },
        { label: 'rate / reward', size: 56 },
      ],
      series: [
        { label: 'step' },
        { label: 'success rate', stroke: '#2a9d5c', width: 2, points: { show: true, size: 4 }, value: (_u, v) => (v == null ? '–' : `${(100 * v).toFixed(0)} %`) },
        { label: 'mean reward', stroke: '#8a4fd8', width: 2, value: (_u, v) => (v == null ? '–' : v.toFixed(3)) },
      ],
    }, [steps, success, reward], host);
  };
  new ResizeObserver(() => plot?.setSize({ width: width(), height: 200 })).observe(host);

  const chart: GrpoChart = {
    el,
    reset() {
      steps.length = 0;
      success.length = 0;
      reward.length = 0;
      plot?.destroy();
      plot = null;
      empty.hidden = false;
      host.dataset.points = '0';
    },
    push(p) {
      steps.push(p.step);
      success.push(p.successRate);
      reward.push(p.reward);
      if (!plot) make();
      empty.hidden = true;
      plot!.setData([steps, success, reward]);
      host.dataset.points = String(steps.length);
    },
    get points() {
      return steps.length;
    },
  };
  chart.reset();
  return chart;
}
