// Plain-text tables of evaluation reports, for the console and the page's log panel.
//
// family / category    tasks  episodes  success  pass@4  reward  turns  success 95% CI
// function-calling       100       400    97.0%   99.0%   0.981   2.10    [94.9, 98.3]
//   irrelevance           20        80   100.0%  100.0%   1.000   1.00   [95.4, 100.0]
//   components: format 1.000 · function_choice 0.990 · arguments 0.985 · exact_match 0.970
import type { EvalReport, MixReport } from './evaluate';
import type { Rate } from './report/interval';

const COLUMNS = ['tasks', 'episodes', 'success', 'pass@k', 'reward', 'turns', 'success 95% CI'] as const;
const WIDTHS = [6, 9, 8, 8, 7, 6, 15];

function percent(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

function ci(r: Rate): string {
  return `[${(100 * r.lo).toFixed(1)}, ${(100 * r.hi).toFixed(1)}]`;
}

function row(label: string, labelWidth: number, cells: string[]): string {
  return label.padEnd(labelWidth) + cells.map((c, i) => c.padStart(WIDTHS[i] + 1)).join('');
}

/** The table's header; pass@k shows the k of the reports (mixed ks show "pass@k"). */
function header(labelWidth: number, reports: readonly EvalReport[]): string {
  const ks = [...new Set(reports.map((r) => r.k))];
  const names = COLUMNS.map((c) => (c === 'pass@k' && ks.length === 1 ? `pass@${ks[0]}` : c));
  return row('family / category', labelWidth, names);
}

function reportLines(r: EvalReport, labelWidth: number): string[] {
  const lines = [row(r.family, labelWidth, [String(r.tasks), String(r.episodes), percent(r.successRate), percent(r.passAtK), r.meanTotal.toFixed(3), r.meanTurns.toFixed(2), ci(r.successCI)])];
  for (const c of r.byCategory) {
    lines.push(row(`  ${c.category}`, labelWidth, [String(c.tasks), String(c.episodes), percent(c.successRate), percent(c.passAtK), c.meanTotal.toFixed(3), '', ci(c.successCI)]));
  }
  const components = Object.entries(r.meanComponents).map(([name, v]) => `${name} ${v.toFixed(3)}`);
  if (components.length > 0) lines.push(`  components: ${components.join(' · ')}`);
  const ends = Object.entries(r.abnormalEnds).map(([end, count]) => `${end} ${count}`);
  if (ends.length > 0) lines.push(`  abnormal ends: ${ends.join(', ')}; e.g. ${r.exampleErrors.join(' | ')}`);
  return lines;
}

function labelWidthOf(reports: readonly EvalReport[]): number {
  const labels = reports.flatMap((r) => [r.family, ...r.byCategory.map((c) => `  ${c.category}`)]);
  return Math.max('family / category'.length, ...labels.map((l) => l.length)) + 1;
}

/** One or more family reports as a table with per-category rows and a component line each. */
export function formatEvalTable(reports: readonly EvalReport[]): string {
  const width = labelWidthOf(reports);
  return [header(width, reports), ...reports.flatMap((r) => reportLines(r, width))].join('\n');
}

/** A mix report: the family table plus a total row. */
export function formatMixTable(mix: MixReport): string {
  const width = labelWidthOf(mix.families);
  const tasks = mix.families.reduce((s, r) => s + r.tasks, 0);
  const total = row('all', width, [String(tasks), String(mix.episodes), percent(mix.successRate), percent(mix.passAtK), mix.meanTotal.toFixed(3), mix.meanTurns.toFixed(2), ci(mix.successCI)]);
  return [formatEvalTable(mix.families), total].join('\n');
}
