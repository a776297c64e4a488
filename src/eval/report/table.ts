// The comparison table every evaluation prints (CLI, demo, README): models and cheap baselines on
// the same split and tasks, each with n, success and its 95 % interval, mean reward and reward
// components with intervals, then success per tool / category / template, then how each baseline
// works. Plain text, fixed-width columns.
//
// test split · function-calling/route8 · n = 256 · seed 1
// policy            n    success              reward  exact_match          function_choice …
// after GRPO        256  62.5 % [56.4, 68.2]  0.731   0.62 [0.56, 0.68]    …
// — baselines —
// keyword rule      256  31.6 % [26.2, 37.5]  …
import { formatRate, type Rate } from './interval';
import type { PolicySummary } from './summary';

export interface TableHeader {
  split: string;
  /** "function-calling/route8". */
  taskSet: string;
  seed: number;
}

/** Breakdowns with more values than this are printed one value per row. */
const MAX_BREAKDOWN_COLUMNS = 10;
/** A breakdown wider than this (characters) is printed one value per row when that is narrower. */
const MAX_TABLE_WIDTH = 120;

function mean2(r: Rate): string {
  return `${r.rate.toFixed(2)} [${r.lo.toFixed(2)}, ${r.hi.toFixed(2)}]`;
}

function grid(rows: string[][], rightFrom = 1): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i < rightFrom ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd());
}

/** The table of `summaries` (models first, then baselines, in the order given). */
export function formatComparison(header: TableHeader, summaries: readonly PolicySummary[]): string {
  const ns = [...new Set(summaries.map((s) => s.n))];
  const lines = [`${header.split} split · ${header.taskSet} · n = ${ns.join('/')} · seed ${header.seed}`];
  const components = [...new Set(summaries.flatMap((s) => Object.keys(s.components)))];
  const ordered = [...summaries.filter((s) => s.kind === 'model'), ...summaries.filter((s) => s.kind === 'baseline')];
  const head = ['policy', 'n', 'success (95 % CI)', 'reward', ...components];
  const body: string[][] = [];
  ordered.forEach((s, i) => {
    if (s.kind === 'baseline' && (i === 0 || ordered[i - 1].kind === 'model')) body.push(['— baselines (same split and tasks) —']);
    body.push([s.label, String(s.n), formatRate(s.success), s.meanReward.toFixed(3), ...components.map((c) => (s.components[c] ? mean2(s.components[c]) : '–'))]);
  });
  const table = grid([head, ...body.map((r) => (r.length === 1 ? [r[0], ...head.slice(1).map(() => '')] : r))]);
  lines.push(...table);
  const breakdown = (title: string, key: string, of: (s: PolicySummary) => Record<string, Rate> | undefined) => {
    const values = [...new Set(ordered.flatMap((s) => Object.keys(of(s) ?? {})))].sort();
    if (values.length < 2 && key !== 'tool') return; // one category: the overall figure already says it
    const counts = values.map((v) => ordered.map((s) => of(s)?.[v]).find((r) => r)?.n ?? 0);
    const cellOf = (s: PolicySummary, v: string) => {
      const r = of(s)?.[v];
      return r ? cell(r) : '–';
    };
    const across = grid([[`${title} by ${key}`, ...values.map((v, j) => `${v} (n=${counts[j]})`)], ...ordered.map((s) => [s.label, ...values.map((v) => cellOf(s, v))])]);
    // one row per value, one column per policy: for many values (e.g. 20 tools), or long ones (phrasings) that make the other way wider
    const down = grid([[`${title} by ${key}`, 'n', ...ordered.map((s) => s.label)], ...values.map((v, j) => [v, String(counts[j]), ...ordered.map((s) => cellOf(s, v))])]);
    const width = (g: string[]) => Math.max(...g.map((l) => l.length));
    lines.push('', ...(values.length <= MAX_BREAKDOWN_COLUMNS && (width(across) <= MAX_TABLE_WIDTH || width(across) <= width(down)) ? across : down));
  };
  for (const key of [...new Set(ordered.flatMap((s) => Object.keys(s.by)))]) breakdown('success', key, (s) => s.by[key]);
  // the components broken down too (function choice by tool), after success
  for (const c of [...new Set(ordered.flatMap((s) => Object.keys(s.componentBy ?? {})))]) {
    for (const key of [...new Set(ordered.flatMap((s) => Object.keys(s.componentBy?.[c] ?? {})))]) breakdown(c, key, (s) => s.componentBy?.[c]?.[key]);
  }
  const notes = ordered.filter((s) => s.note !== '');
  if (notes.length > 0) lines.push('', ...notes.map((s) => `${s.label}: ${s.note}`));
  return lines.join('\n');
}

/** "62 [45–77]": percent with the interval, compact for a wide breakdown. */
function cell(r: Rate): string {
  const p = (x: number) => Math.round(100 * x);
  return `${p(r.rate)} [${p(r.lo)}–${p(r.hi)}]`;
}
