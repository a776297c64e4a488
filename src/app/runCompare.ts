// Two runs side by side: the settings that differ (every config field, by path) and the results
// (each evaluation's success with its interval and n, the last SFT loss, the last GRPO reward and
// success, the time). DOM-free.
import type { RunRecord } from './runStore';
import type { RunSeries } from './runSeries';

export interface CompareRow {
  label: string;
  a: string;
  b: string;
  differs: boolean;
}

/** Every leaf of a JSON value by path ("stages.1.lr"). */
export function flatten(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else out.set(prefix, JSON.stringify(value));
  return out;
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

function results(r: RunRecord, s: RunSeries): Map<string, string> {
  const out = new Map<string, string>();
  out.set('status', r.status);
  for (const e of s.evals) out.set(`${e.split} success: ${e.label}`, `${pct(e.success)} [${pct(e.lo)}, ${pct(e.hi)}] n = ${e.n}`);
  const loss = s.sft.at(-1)?.loss;
  if (loss !== undefined) out.set('last SFT loss', loss.toFixed(4));
  const g = s.grpo.at(-1)?.metrics;
  if (g) {
    out.set('last GRPO reward', (g.reward ?? NaN).toFixed(3));
    out.set('last GRPO success (sampled)', pct(g.success_rate ?? 0));
  }
  if (r.result) out.set('run time', `${r.result.seconds.toFixed(0)} s`);
  return out;
}

/** Settings that differ, then every result of either run. */
export function compareRuns(a: { record: RunRecord; series: RunSeries }, b: { record: RunRecord; series: RunSeries }): { settings: CompareRow[]; results: CompareRow[] } {
  const fa = flatten(a.record.config);
  const fb = flatten(b.record.config);
  const settings: CompareRow[] = [];
  for (const path of new Set([...fa.keys(), ...fb.keys()])) {
    const [x, y] = [fa.get(path) ?? '—', fb.get(path) ?? '—'];
    if (x !== y) settings.push({ label: path, a: x, b: y, differs: true });
  }
  const ra = results(a.record, a.series);
  const rb = results(b.record, b.series);
  const rows: CompareRow[] = [];
  for (const label of new Set([...ra.keys(), ...rb.keys()])) {
    const [x, y] = [ra.get(label) ?? '—', rb.get(label) ?? '—'];
    rows.push({ label, a: x, b: y, differs: x !== y });
  }
  return { settings, results: rows };
}
