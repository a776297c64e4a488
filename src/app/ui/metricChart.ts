// One live chart (uPlot): series over a step axis, values at the cursor in the legend, smoothing
// (EMA, raw values stay in the table and the exports), a table view of every value (what screen
// readers get; the chart also carries a one-sentence summary), and PNG / CSV downloads.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { smooth, toCsv } from '../runSeries';
import { h } from './dom';
import { downloadBlob } from './download';

export interface ChartSeriesSpec {
  label: string;
  color: string;
  /** Right-hand axis ('y2') for a second unit. */
  scale?: 'y' | 'y2';
  dash?: number[];
  /** Draw only points (sparse series: evaluations). */
  pointsOnly?: boolean;
  /** Never smoothed (evaluations, memory). */
  raw?: boolean;
  digits?: number;
}

export interface ChartData {
  x: number[];
  series: ChartSeriesSpec[];
  ys: (number | null)[][];
}

export interface ChartOptions {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  y2Label?: string;
  empty: string;
  yRange?: [number, number];
  /** One sentence for screen readers about the data (latest values, extremes). */
  describe: (d: ChartData) => string;
}

export interface MetricChart {
  el: HTMLElement;
  update(d: ChartData): void;
  /** Redraws with the current theme colours. */
  restyle(): void;
  readonly points: number;
}

/** A y range with a little room, never empty (flat data gets ±0.5, or [0, 1] at 0). */
export function paddedRange(min: number | null, max: number | null, fixed?: [number, number]): [number, number] {
  if (fixed) return [Math.min(fixed[0], min ?? fixed[0]), Math.max(fixed[1], max ?? fixed[1])];
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (max - min < 1e-12) return min === 0 ? [0, 1] : [min - Math.abs(min) * 0.5, max + Math.abs(max) * 0.5];
  const pad = (max - min) * 0.08;
  return [min >= 0 && min - pad < 0 ? 0 : min - pad, max + pad];
}

const css = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
const fmt = (v: number | null | undefined, digits = 3) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : Math.abs(v) >= 1000 ? v.toFixed(0) : Number(v.toPrecision(Math.max(digits, 2))).toString());

export function createMetricChart(o: ChartOptions, smoothing: { value: () => number; onChange: (cb: () => void) => void }): MetricChart {
  const host = h('div', { class: 'chart', testid: o.id });
  const empty = h('p', { class: 'muted chart-empty', text: o.empty });
  const summary = h('p', { class: 'sr-only', testid: `${o.id}-summary` });
  const tableBox = h('div', { class: 'chart-table', testid: `${o.id}-table` });
  tableBox.hidden = true;
  let data: ChartData = { x: [], series: [], ys: [] };
  let plot: uPlot | null = null;
  let shape = '';

  const tableButton = h('button', { class: 'small', text: 'Table', attrs: { type: 'button', 'aria-label': `Table of ${o.title}`, 'aria-expanded': 'false', 'aria-controls': `${o.id}-tablebox` } });
  tableBox.id = `${o.id}-tablebox`;
  const png = h('button', { class: 'small', text: 'PNG', testid: `${o.id}-png`, attrs: { type: 'button', 'aria-label': `Download ${o.title} as PNG` } });
  const csv = h('button', { class: 'small', text: 'CSV', testid: `${o.id}-csv`, attrs: { type: 'button', 'aria-label': `Download ${o.title} values as CSV` } });
  const tools = h('div', { class: 'chart-tools' }, tableButton, png, csv);
  const el = h('figure', { class: 'panel chart-panel', testid: `${o.id}-panel`, attrs: { 'aria-labelledby': `${o.id}-title` } },
    h('div', { class: 'chart-head' }, h('h2', { text: o.title, attrs: { id: `${o.id}-title` } }), tools), empty, host, summary, tableBox);

  const width = () => Math.max(240, host.clientWidth || 480);
  const make = () => {
    plot?.destroy();
    const ink = css('--muted', '#667085');
    const grid = css('--line', '#dfe3ea');
    const axis = (label: string, scale?: string, side?: number): uPlot.Axis => ({ label, scale, side, stroke: ink, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 56 });
    const hasY2 = data.series.some((s) => s.scale === 'y2');
    plot = new uPlot({
      width: width(), height: 200,
      scales: {
        x: { time: false },
        y: { range: (_u, min, max) => paddedRange(min, max, o.yRange) },
        ...(hasY2 ? { y2: { range: (_u, min, max) => paddedRange(min, max) } } : {}),
      },
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
      axes: [
        { ...axis(o.xLabel), incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000], values: (_u, ticks) => ticks.map((t) => String(t)) },
        axis(o.yLabel, 'y'),
        ...(hasY2 ? [{ ...axis(o.y2Label ?? '', 'y2', 1), grid: { show: false } }] : []),
      ],
      series: [
        { label: o.xLabel },
        ...data.series.map((s): uPlot.Series => ({
          label: s.label, stroke: s.color, width: s.pointsOnly ? 0 : 2, dash: s.dash, scale: s.scale ?? 'y', spanGaps: !s.pointsOnly,
          points: { show: s.pointsOnly ? true : undefined, size: s.pointsOnly ? 8 : 5, stroke: s.color, fill: s.color },
          value: (_u, v) => fmt(v, s.digits),
        })),
      ],
    }, shown(), host);
  };
  const shown = (): uPlot.AlignedData => {
    const w = smoothing.value();
    return [data.x, ...data.ys.map((ys, i) => (data.series[i].raw ? ys : smooth(ys, w)))] as uPlot.AlignedData;
  };

  const renderTable = () => {
    if (tableBox.hidden) return;
    const rows = data.x.map((x, r) => [x, ...data.ys.map((ys) => ys[r])]);
    const last = rows.slice(-500);
    tableBox.replaceChildren(h('table', {},
      h('caption', { text: `${o.title}: ${rows.length} rows${rows.length > last.length ? ` (the last ${last.length} shown; CSV has all)` : ''}` }),
      h('thead', {}, h('tr', {}, ...[o.xLabel, ...data.series.map((s) => s.label)].map((t) => h('th', { text: t, attrs: { scope: 'col' } })))),
      h('tbody', {}, ...last.map((r) => h('tr', {}, ...r.map((v, i) => (i === 0 ? h('th', { text: String(v), attrs: { scope: 'row' } }) : h('td', { text: fmt(v as number | null, data.series[i - 1].digits) }))))))));
  };

  tableButton.addEventListener('click', () => {
    tableBox.hidden = !tableBox.hidden;
    tableButton.setAttribute('aria-expanded', String(!tableBox.hidden));
    renderTable();
  });
  csv.addEventListener('click', () => {
    const text = toCsv([o.xLabel, ...data.series.map((s) => s.label)], data.x.map((x, r) => [x, ...data.ys.map((ys) => ys[r])]));
    downloadBlob(new Blob([text], { type: 'text/csv' }), `${o.id}.csv`);
  });
  png.addEventListener('click', () => void chartPng().then((b) => b && downloadBlob(b, `${o.id}.png`)));

  /** The chart with its title and legend on a canvas (uPlot draws axes on its canvas, the legend in the DOM). */
  async function chartPng(): Promise<Blob | null> {
    const canvas = host.querySelector('canvas');
    if (!canvas) return null;
    const pad = 12;
    const out = document.createElement('canvas');
    out.width = canvas.width + 2 * pad;
    out.height = canvas.height + 64;
    const g = out.getContext('2d')!;
    g.fillStyle = css('--panel', '#ffffff');
    g.fillRect(0, 0, out.width, out.height);
    g.fillStyle = css('--ink', '#1d2330');
    g.font = '600 15px system-ui, sans-serif';
    g.fillText(o.title, pad, 22);
    g.drawImage(canvas, pad, 32);
    let x = pad;
    g.font = '12px system-ui, sans-serif';
    for (const s of data.series) {
      g.fillStyle = s.color;
      g.fillRect(x, out.height - 20, 10, 10);
      g.fillStyle = css('--ink', '#1d2330');
      g.fillText(s.label, x + 14, out.height - 11);
      x += 24 + g.measureText(s.label).width;
    }
    return new Promise((resolve) => out.toBlob(resolve, 'image/png'));
  }

  const chart: MetricChart = {
    el,
    update(d) {
      data = d;
      const has = d.ys.some((ys) => ys.some((v) => v !== null && Number.isFinite(v)));
      empty.hidden = has;
      host.dataset.points = String(d.x.length);
      summary.textContent = has ? o.describe(d) : o.empty;
      for (const b of [png, csv]) b.disabled = !has;
      if (!has) {
        plot?.destroy();
        plot = null;
        shape = '';
        renderTable();
        return;
      }
      const newShape = d.series.map((s) => s.label).join('|');
      if (!plot || newShape !== shape) {
        shape = newShape;
        make();
      } else plot.setData(shown());
      renderTable();
    },
    restyle() {
      if (plot) make();
    },
    get points() {
      return data.x.length;
    },
  };
  smoothing.onChange(() => plot?.setData(shown()));
  new ResizeObserver(() => plot?.setSize({ width: width(), height: 200 })).observe(host);
  chart.update(data);
  return chart;
}
