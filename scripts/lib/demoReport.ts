// The report `npm run demo` leaves: a folder with report.html (the run's summary — test success with
// 95 % intervals beside the cheap baselines, the seeds, times per stage — the charts as PNG, a few
// test episodes of the final model beside the expert's, and the run log) and summary.json (the same
// numbers for programs). The charts are the page's own, captured from the page that ran the demo.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { PipelineConfig } from '../../src/pipeline/config';
import type { EvalSummary } from '../../src/pipeline/evalSummary';
import type { EpisodeView, PageRunResult } from '../../src/workers/runEvents';

export interface DemoReportInput {
  adapter: string;
  config: PipelineConfig;
  result: PageRunResult;
  /** Episodes to show (the final model's test episodes and the expert's). */
  episodes: EpisodeView[];
  log: string[];
  /** Chart files written (relative to the report folder) with their titles. */
  charts: { file: string; title: string }[];
  createdAt: Date;
}

export interface DemoSummaryJson {
  adapter: string;
  createdAt: string;
  model: string;
  parameters: number;
  seed: number;
  preset: string;
  tasks: PipelineConfig['tasks'];
  stages: PipelineConfig['stages'];
  evaluations: {
    label: string; split: string; seeds: number[];
    taskSets: { taskSet: string; n: number; success: { rate: number; lo: number; hi: number }; meanReward: number; baselines: { label: string; rate: number; lo: number; hi: number; n: number }[] }[];
  }[];
  seconds: number;
  stageSeconds: number[];
  episodes: { source: string; taskId: string; success: boolean; reward: number }[];
}

export function demoSummaryJson(d: DemoReportInput): DemoSummaryJson {
  const evaluation = (e: EvalSummary) => ({
    label: e.label, split: e.split, seeds: e.seeds,
    taskSets: e.taskSets.map((t) => ({
      taskSet: t.taskSet, n: t.model.n, success: { rate: t.model.success.rate, lo: t.model.success.lo, hi: t.model.success.hi }, meanReward: t.model.meanReward,
      baselines: t.baselines.map((b) => ({ label: b.label, rate: b.success.rate, lo: b.success.lo, hi: b.success.hi, n: b.n })),
    })),
  });
  return {
    adapter: d.adapter, createdAt: d.createdAt.toISOString(), model: d.result.model, parameters: d.result.parameters, seed: d.config.seed, preset: d.config.preset,
    tasks: d.config.tasks, stages: d.config.stages, evaluations: d.result.evals.map(evaluation), seconds: d.result.seconds, stageSeconds: d.result.stageSeconds,
    episodes: d.episodes.map((e) => ({ source: e.source, taskId: e.taskId, success: e.success, reward: e.reward.total })),
  };
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

function evalHtml(e: DemoSummaryJson['evaluations'][number]): string {
  return e.taskSets.map((t) => `
<table><caption>${esc(e.label)} — ${esc(t.taskSet)}, ${esc(e.split)} split, seed${e.seeds.length > 1 ? 's' : ''} ${e.seeds.join(', ')}</caption>
<thead><tr><th></th><th>success</th><th>95 % interval</th><th>n</th></tr></thead><tbody>
<tr class="model"><th>model</th><td>${pct(t.success.rate)}</td><td>${pct(t.success.lo)} – ${pct(t.success.hi)}</td><td>${t.n}</td></tr>
${t.baselines.map((b) => `<tr><th>${esc(b.label)}</th><td>${pct(b.rate)}</td><td>${pct(b.lo)} – ${pct(b.hi)}</td><td>${b.n}</td></tr>`).join('\n')}
</tbody></table>`).join('\n');
}

function episodeHtml(e: EpisodeView): string {
  const who = e.source === 'expert' ? 'expert' : 'final model';
  const msgs = e.messages.map((m) => `<div class="msg ${m.role}"><b>${esc(m.role === 'tool' && m.name ? `tool · ${m.name}` : m.role)}</b><pre>${esc(m.content.replace(/\s{24,}/g, (w) => ` [${w.length} whitespace characters] `))}</pre></div>`).join('\n');
  const limit = e.turns.some((t) => t.hitTokenLimit) ? ' · token limit hit' : '';
  return `<details${e.source === 'sample' ? ' open' : ''}><summary>${esc(who)} · ${esc(e.taskId)} · ${e.success ? 'solved' : 'not solved'} · reward ${e.reward.total.toFixed(3)}${limit}</summary>\n${msgs}\n</details>`;
}

/** The report page (self-contained but for the chart PNGs beside it). */
export function demoReportHtml(d: DemoReportInput): string {
  const s = demoSummaryJson(d);
  const stages = d.config.stages.map((st, i) => `<li>${esc(st.kind === 'eval' ? `eval "${st.label}" (${st.split}, n ${st.n})` : st.kind === 'sft' ? `SFT ${st.steps} steps × batch ${st.batchSize}` : st.kind === 'merge' ? `merge (${st.method})` : `GRPO ${st.steps} steps × ${st.tasksPerStep} tasks × G ${st.groupSize}`)} — ${(d.result.stageSeconds[i] ?? 0).toFixed(0)} s</li>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>TabForge demo report</title>
<style>body{font:14px system-ui,sans-serif;max-width:1000px;margin:20px auto;padding:0 16px;color:#1d2330}table{border-collapse:collapse;margin:8px 0 14px}th,td{border-bottom:1px solid #dfe3ea;padding:3px 10px;text-align:right}th:first-child{text-align:left}caption{text-align:left;color:#5b6475}tr.model{font-weight:700}img{max-width:100%;border:1px solid #dfe3ea;border-radius:6px;margin:6px 0}pre{white-space:pre-wrap;margin:2px 0 8px;font:12px ui-monospace,monospace}.msg.tool pre{background:#fff8ec}details{border:1px solid #dfe3ea;border-radius:6px;padding:4px 8px;margin:4px 0}.grid{display:grid;grid-template-columns:1fr 1fr;gap:10px}</style>
</head><body>
<h1>TabForge demo report</h1>
<p>${esc(s.model)} (${s.parameters.toLocaleString('en')} parameters), seed ${s.seed}, on ${esc(s.adapter)}; ${esc(d.createdAt.toISOString())}. Run time ${s.seconds.toFixed(0)} s.</p>
<p>Task sets: ${d.config.tasks.map((t) => esc(`${t.family}/${t.level ?? ''} (weight ${t.weight})`)).join(', ')}. Success = the task solved by the environment's own verdict (routing: the whole call right); test tasks come from a split disjoint from training by construction. Intervals are Wilson 95 %; baselines are scored on exactly the same tasks.</p>
<h2>Summary</h2>
${s.evaluations.map(evalHtml).join('\n')}
<h2>Stages</h2><ol>${stages}</ol>
<h2>Charts</h2><div class="grid">${d.charts.map((c) => `<figure><img src="${esc(c.file)}" alt="${esc(c.title)}"><figcaption>${esc(c.title)}</figcaption></figure>`).join('\n')}</div>
<h2>Test episodes</h2>
${d.episodes.map(episodeHtml).join('\n')}
<h2>Run log</h2><pre>${esc(d.log.join('\n'))}</pre>
</body></html>
`;
}

/** The page's charts as PNGs: each chart panel that has data, captured as shown. */
export async function captureCharts(page: Page, dir: string): Promise<{ file: string; title: string }[]> {
  mkdirSync(join(dir, 'charts'), { recursive: true });
  const out: { file: string; title: string }[] = [];
  await page.waitForTimeout(800); // the charts redraw at most every 400 ms
  for (const panel of await page.locator('figure.chart-panel').all()) {
    const id = await panel.getAttribute('data-testid');
    const points = await panel.locator('.chart').getAttribute('data-points');
    if (!id || !points || Number(points) === 0 || !(await panel.locator('canvas').count())) continue;
    const file = `charts/${id.replace(/-panel$/, '')}.png`;
    await panel.screenshot({ path: join(dir, file) });
    out.push({ file, title: (await panel.locator('h2').textContent()) ?? id });
  }
  return out;
}

/** Writes report.html, summary.json and charts/*.png into `dir`; returns its absolute path. */
export async function writeDemoReport(page: Page, dir: string, d: Omit<DemoReportInput, 'charts'>): Promise<string> {
  const abs = resolve(dir);
  mkdirSync(abs, { recursive: true });
  const charts = await captureCharts(page, abs);
  const input = { ...d, charts };
  writeFileSync(join(abs, 'summary.json'), `${JSON.stringify(demoSummaryJson(input), null, 2)}\n`);
  writeFileSync(join(abs, 'report.html'), demoReportHtml(input));
  return abs;
}
