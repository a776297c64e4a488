// What each chart of the page plots, from a RunSeries: the series, their axis and the x values.
// DOM-free (unit-tested); ui/chartsPanel.ts draws them.
import type { ChartData, ChartSeriesSpec } from './ui/metricChart';
import type { RunSeries } from './runSeries';

export const CHART_IDS = ['chart-sft-loss', 'chart-success', 'chart-reward', 'chart-policy', 'chart-groups', 'chart-throughput', 'chart-memory'] as const;
export type ChartId = (typeof CHART_IDS)[number];

// Colour-blind-safe (Okabe–Ito) hues, dark enough on white and light enough on the dark theme's panels.
export const PALETTE = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#8c6d1f', '#7f7f7f'];

const m = (metrics: Record<string, number>, k: string): number | null => (Number.isFinite(metrics[k]) ? metrics[k] : null);

export function chartData(s: RunSeries): Record<ChartId, ChartData> {
  const grpoX = s.grpo.map((p) => p.grpoIndex);
  const grpoSeries = (specs: { key: string; label: string; scale?: 'y' | 'y2'; digits?: number }[]): ChartData => ({
    x: grpoX,
    series: specs.map((sp, i) => ({ label: sp.label, color: PALETTE[i % PALETTE.length], scale: sp.scale, digits: sp.digits })),
    ys: specs.map((sp) => s.grpo.map((p) => m(p.metrics, sp.key))),
  });

  // Success: the sampled training episodes per step, and evaluations (validation points, test evaluations) where they happened.
  const xs = [...new Set([...grpoX, ...s.evals.map((e) => e.grpoIndex)])].sort((a, b) => a - b);
  const at = (x: number) => xs.indexOf(x);
  const train: (number | null)[] = xs.map(() => null);
  for (const p of s.grpo) train[at(p.grpoIndex)] = m(p.metrics, 'success_rate');
  const validation: (number | null)[] = xs.map(() => null);
  const test: (number | null)[] = xs.map(() => null);
  for (const e of s.evals) (e.split === 'test' ? test : validation)[at(e.grpoIndex)] = e.success;
  const success: ChartData = {
    x: xs,
    series: [
      { label: 'train (sampled)', color: PALETTE[0] },
      { label: 'validation', color: PALETTE[1], pointsOnly: true, raw: true },
      { label: 'test', color: PALETTE[2], pointsOnly: true, raw: true },
    ],
    ys: [train, validation, test],
  };

  const components = s.componentNames();
  const reward = grpoSeries([{ key: 'reward', label: 'total reward' }, ...components.map((c) => ({ key: `reward/${c}`, label: c }))]);
  reward.series[0] = { ...reward.series[0], dash: undefined };
  reward.series.slice(1).forEach((sp) => (sp.dash = [4, 3]));

  const overallX = [...s.sft.map((p) => p.overall), ...s.grpo.map((p) => p.overall)];
  const throughput: ChartData = {
    x: overallX,
    series: [
      { label: 'SFT tokens/s', color: PALETTE[0], digits: 4 },
      { label: 'rollout tokens/s', color: PALETTE[1], digits: 4 },
      { label: 'GRPO train tokens/s', color: PALETTE[2], digits: 4 },
    ],
    ys: [
      [...s.sft.map((p) => p.tokensPerSec), ...s.grpo.map(() => null)],
      [...s.sft.map(() => null), ...s.grpo.map((p) => m(p.metrics, 'rollout/tokens_per_s'))],
      [...s.sft.map(() => null), ...s.grpo.map((p) => m(p.metrics, 'train/tokens_per_s'))],
    ],
  };
  const sftLoss: ChartData = { x: s.sft.map((p) => p.sftIndex), series: [{ label: 'train loss', color: PALETTE[0], digits: 4 }], ys: [s.sft.map((p) => p.loss)] };
  const memory: ChartData = { x: s.memory.map((p) => p.overall), series: [{ label: 'GPU memory (MB)', color: PALETTE[4], raw: true, digits: 4 }], ys: [s.memory.map((p) => p.bytes / 1e6)] };
  return {
    'chart-sft-loss': sftLoss,
    'chart-success': success,
    'chart-reward': reward,
    'chart-policy': grpoSeries([{ key: 'approx_kl', label: 'KL to reference' }, { key: 'clip_ratio', label: 'clip fraction' }, { key: 'entropy', label: 'entropy', scale: 'y2' }]),
    'chart-groups': grpoSeries([{ key: 'groups_dropped', label: 'dropped groups' }, { key: 'sampling/groups_drawn', label: 'groups drawn' }]),
    'chart-throughput': throughput,
    'chart-memory': memory,
  };
}

const last = (ys: readonly (number | null)[]) => [...ys].reverse().find((v) => v !== null && Number.isFinite(v)) ?? null;
const r3 = (v: number | null) => (v === null ? 'none' : Number(v.toPrecision(3)).toString());

/** "train loss over 150 points: last 0.412, lowest 0.398; …" for screen readers. */
export function describeChart(title: string, d: ChartData): string {
  const parts = d.series.map((sp: ChartSeriesSpec, i) => {
    const vals = d.ys[i].filter((v): v is number => v !== null && Number.isFinite(v));
    if (!vals.length) return `${sp.label}: no values yet`;
    return `${sp.label}: ${vals.length} value${vals.length === 1 ? '' : 's'}, last ${r3(last(d.ys[i]))}, lowest ${r3(Math.min(...vals))}, highest ${r3(Math.max(...vals))}`;
  });
  return `${title} (x from ${d.x[0]} to ${d.x[d.x.length - 1]}): ${parts.join('; ')}.`;
}
