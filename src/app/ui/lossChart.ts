// Live SFT loss chart (uPlot): training loss per optimizer step, and held-out loss when measured.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h, panel } from './dom';

export interface LossChart {
  el: HTMLElement;
  reset(): void;
  push(step: number, loss: number, evalLoss?: number): void;
  /** Points drawn so far (tests read it through data-points). */
  readonly points: number;
}

export function createLossChart(): LossChart {
  const host = h('div', { class: 'chart', testid: 'loss-chart' });
  const empty = h('p', { class: 'muted chart-empty', text: 'The loss appears here once SFT starts.' });
  const el = panel('SFT loss', 'chart-panel', empty, host);
  const steps: number[] = [];
  const losses: number[] = [];
  const evals: (number | null)[] = [];
  let plot: uPlot | null = null;

  const width = () => Math.max(240, host.clientWidth || 480);
  const make = () => {
    plot = new uPlot({
      width: width(),
      height: 220,
      scales: { x: { time: false } },
      legend: { live: false },
      axes: [
        // Whole steps only: a 2-step run would otherwise get ticks at 1.2, 1.4, …
        { label: 'step', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000], values: (_u, ticks) => ticks.map((t) => String(t)) },
        { label: 'loss', size: 56 },
      ],
      series: [
        { label: 'step' },
        { label: 'train loss', stroke: '#2f6fdb', width: 2, points: { show: true, size: 4 }, value: (_u, v) => (v == null ? '–' : v.toFixed(4)) },
        { label: 'held-out loss', stroke: '#d9822b', width: 2, spanGaps: true, value: (_u, v) => (v == null ? '–' : v.toFixed(4)) },
      ],
    }, [steps, losses, evals], host);
  };
  new ResizeObserver(() => plot?.setSize({ width: width(), height: 220 })).observe(host);

  const chart: LossChart = {
    el,
    reset() {
      steps.length = 0;
      losses.length = 0;
      evals.length = 0;
      plot?.destroy();
      plot = null;
      empty.hidden = false;
      host.dataset.points = '0';
    },
    push(step, loss, evalLoss) {
      steps.push(step);
      losses.push(loss);
      evals.push(evalLoss ?? null);
      if (!plot) make();
      empty.hidden = true;
      plot!.setData([steps, losses, evals]);
      host.dataset.points = String(steps.length);
    },
    get points() {
      return steps.length;
    },
  };
  chart.reset();
  return chart;
}
