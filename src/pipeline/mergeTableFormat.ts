// The merge table as markdown and as JSON (no weights): one overview (success and mean reward per
// task set), one detail table per task set (success, reward, every reward component), and the gap
// of each merged / multi-task / base model to the task set's own specialist: in mean reward, and in
// success paired task by task (Newcombe's interval, src/eval/pairedDifference.ts).
import { pairedDifference, type PairedDifference } from '../eval/pairedDifference';
import type { CellScore, EvalRecord, MeanInterval, MergeTableResult, MergeTableRow, MergeTableRowKind } from './mergeTable';
import { formatHyper, type TuneResult } from './mergeTune';

const pct = (x: number) => (100 * x).toFixed(1);
const num = (x: number) => x.toFixed(3);
const success = (c: CellScore) => `${pct(c.success.rate)} % [${pct(c.success.lo)}, ${pct(c.success.hi)}]`;
const mean = (m: MeanInterval) => `${num(m.mean)} [${num(m.lo)}, ${num(m.hi)}]`;

/** A tuned merge names its validation choice and the validation reward it won with. */
const rowName = (x: MergeTableRow) => (x.tuning ? `${x.label} (${formatHyper(x.tuning.chosen)}; validation reward ${num(x.tuning.validationReward)})` : x.label);

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function table(head: string[], body: string[][]): string {
  return [row(head), row(head.map(() => '---')), ...body.map(row)].join('\n');
}

/** Rows weighed against each task set's own specialist: the merges, the multi-task model, the shared model and the scale probe's rows. */
export const COMPARED_WITH_SPECIALIST: ReadonlySet<MergeTableRowKind> = new Set(['merge', 'multi-task', 'base', 'scaled']);

/** The row of task set `set`'s own specialist (labelled `specialist <set>`), or undefined. */
export function ownSpecialist<R extends { kind: string; label: string }>(rows: readonly R[], set: string): R | undefined {
  return rows.find((x) => x.kind === 'specialist' && x.label === `specialist ${set}`);
}

/** Points with a sign (unicode minus): "+4.3", "−0.9". */
export const points = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

/** A cell's per-task successes (task order), or undefined for a cell saved before they were recorded. */
export function taskOutcomes(c: CellScore, what: string): boolean[] | undefined {
  if (c.outcomes === undefined) return undefined;
  if (c.outcomes.length !== c.n || !/^[01]*$/.test(c.outcomes)) throw new Error(`merge table: ${what}: outcomes must be n = ${c.n} characters '1'/'0' (got ${c.outcomes.length}: "${c.outcomes.slice(0, 20)}…"); the saved table is damaged`);
  return [...c.outcomes].map((o) => o === '1');
}

/** A row's success minus its task set's own specialist's, paired task by task; null when either cell lacks outcomes. */
export function pairedGap(x: CellScore, own: CellScore, what: string): PairedDifference | null {
  const a = taskOutcomes(x, what);
  const b = taskOutcomes(own, `${what} (its specialist)`);
  return a && b ? pairedDifference(a, b) : null;
}

/** The issue's target: the merge's success within 2 points of each task set's own specialist on that task set. */
export const MERGE_TARGET_POINTS = 2;

export interface TargetCheck {
  label: string;
  /** Task set → success minus its own specialist's (a rate difference; task sets without a specialist row are left out). */
  gaps: Record<string, number>;
  /** Every gap ≥ −MERGE_TARGET_POINTS points (false when no task set has a specialist to compare with). */
  met: boolean;
}

/** Whether row `label` meets the target against every task set's own specialist (point estimates on the table's tasks). */
export function targetCheck(rows: readonly MergeTableRow[], label: string, taskSets: readonly string[]): TargetCheck {
  const x = rows.find((r) => r.label === label);
  if (!x) throw new Error(`merge table: no row '${label}' to check against the specialists`);
  return targetCheckOfCells(rows, label, x.cells, taskSets);
}

/** The same check for test cells kept outside the rows (the target pick merged apart). */
export function targetCheckOfCells(rows: readonly MergeTableRow[], label: string, cells: Record<string, CellScore>, taskSets: readonly string[]): TargetCheck {
  const gaps: Record<string, number> = {};
  for (const set of taskSets) {
    const own = ownSpecialist(rows, set);
    if (own?.cells[set] && cells[set]) gaps[set] = cells[set].success.rate - own.cells[set].success.rate;
  }
  // 1e-9: rates are k/n, and −2 points exactly counts as within
  const values = Object.values(gaps);
  return { label, gaps, met: values.length > 0 && values.every((g) => g >= -MERGE_TARGET_POINTS / 100 - 1e-9) };
}

/** "route4 +0.4, route4b −16.8" (points). */
export const formatGaps = (gaps: Record<string, number>) => Object.entries(gaps).map(([set, g]) => `${set} ${points(g)}`).join(', ');

/** The target line: validation's pick and whether it meets the target; then, for reading only, which merges meet it on test. */
export function formatTarget(r: Pick<MergeTableResult, 'rows' | 'taskSets' | 'validationPick'> & { targetPick?: MergeTableJson['targetPick'] }): string[] {
  const merges = r.rows.filter((x) => x.kind === 'merge');
  const meeting = merges.map((x) => targetCheck(r.rows, x.label, r.taskSets)).filter((t) => t.met).map((t) => t.label.replace(/^merge /, ''));
  const out: string[] = [];
  if (r.validationPick) {
    const t = targetCheck(r.rows, `merge ${r.validationPick}`, r.taskSets); // throws when the pick has no row
    const row = r.rows.find((x) => x.label === t.label)!;
    out.push(`Validation's pick across methods (the tuning criterion over every method's validation choice): **${rowName(row)}**. On test, success minus the own specialist's: ${formatGaps(t.gaps)} points → the target (within ${MERGE_TARGET_POINTS} points of every specialist on its own task set) is **${t.met ? 'met' : 'not met'}**.`);
  }
  if (r.targetPick) out.push(formatTargetPick(r.rows, r.targetPick, r.taskSets));
  out.push(`Merges within ${MERGE_TARGET_POINTS} points of every specialist on test: ${meeting.length ? meeting.join(', ') : 'none'}${r.validationPick ? ' (read only: picking among them needs test, which is what the validation pick avoids)' : ''}.`);
  return out;
}

/** The target pick's line: its validation gaps to the specialists, then its test gaps and the target. */
export function formatTargetPick(rows: readonly MergeTableRow[], p: NonNullable<MergeTableJson['targetPick']>, taskSets: readonly string[]): string {
  const t = targetCheckOfCells(rows, `merge ${p.method}`, p.cells, taskSets);
  const rewardGaps = Object.entries(p.rewardGaps).map(([set, g]) => `${set} ${g >= 0 ? '+' : '−'}${Math.abs(g).toFixed(3)}`).join(', ');
  return `Validation's target pick (every candidate of every method; criterion: the worst task set's validation mean reward minus its own specialist's, then the same in success): **merge ${p.method} (${formatHyper(p.hyper)})**${p.row ? ` — the row '${p.row}'` : ' — merged and scored on test apart (not a row)'}; on validation (n = ${p.n}) reward minus the own specialist's ${rewardGaps}, success ${formatGaps(p.successGaps)} points. On test, success minus the own specialist's: ${formatGaps(t.gaps)} points → the target is **${t.met ? 'met' : 'not met'}**.`;
}

/** "+4.3 [−0.9, +9.4]" (points). */
export const formatPaired = (p: PairedDifference) => `${points(p.diff)} [${points(p.lo)}, ${points(p.hi)}]`;

/** The whole report: overview, per-task-set details, gaps to the specialists, compute and settings. */
export function formatMergeTableMarkdown(r: MergeTableResult): string {
  const out: string[] = [];
  out.push(`Test split, n = ${r.n} tasks per task set (the same tasks for every row), seed ${r.seed}. Success: Wilson 95 % interval; reward and components: mean [95 % normal-approximation interval].`);
  out.push('');
  out.push(table(
    ['model', ...r.taskSets.flatMap((s) => [`${s} whole-task success`, `${s} reward`])],
    r.rows.map((x) => [rowName(x), ...r.taskSets.flatMap((s) => (x.cells[s] ? [success(x.cells[s]), mean(x.cells[s].reward)] : ['–', '–']))]),
  ));
  for (const s of r.taskSets) {
    const comps = [...new Set(r.rows.flatMap((x) => Object.keys(x.cells[s]?.components ?? {})))].sort();
    out.push('', `**${s}** (n = ${r.n})`, '');
    out.push(table(
      ['model', 'whole-task success', 'reward', ...comps.map((c) => `${c} (component)`)],
      r.rows.filter((x) => x.cells[s]).map((x) => [x.label, success(x.cells[s]), mean(x.cells[s].reward), ...comps.map((c) => (x.cells[s].components[c] ? mean(x.cells[s].components[c]) : '–'))]),
    ));
  }
  out.push('', 'Mean reward minus the own specialist\'s on each task set (negative: the specialist scores higher on its own task set):', '');
  const gapRows = r.rows.filter((x) => COMPARED_WITH_SPECIALIST.has(x.kind));
  out.push(table(['model', ...r.taskSets], gapRows.map((x) => [x.label, ...r.taskSets.map((s) => {
    const o = ownSpecialist(r.rows, s);
    return o ? (x.cells[s].reward.mean - o.cells[s].reward.mean).toFixed(3) : '–';
  })])));
  out.push('', 'Whole-task success minus the own specialist\'s on the same tasks (paired, Newcombe 95 % interval), in points; b/c discordant: tasks only the model solved / only the specialist solved; – where a cell has no per-task outcomes (tables saved before they were recorded):', '');
  out.push(table(['model', ...r.taskSets], gapRows.map((x) => [x.label, ...r.taskSets.map((s) => {
    const o = ownSpecialist(r.rows, s);
    const p = o && x.cells[s] && o.cells[s] ? pairedGap(x.cells[s], o.cells[s], `${x.label} on ${s}`) : null;
    return p ? `${formatPaired(p)} (${p.onlyX}/${p.onlyY} discordant)` : '–';
  })])));
  const opts = r.rows.filter((x) => x.mergeOptions).map((x) => {
    const o = x.mergeOptions!;
    return `${x.label.replace(/^merge /, '')} (weights ${o.weights.join(', ')}, density ${o.density}, λ ${o.lambda}${x.label.includes('dare') ? `, seed ${o.seed}` : ''}${x.label.includes('ram') ? `, ε ${o.epsilon}` : ''})`;
  });
  if (opts.length) out.push('', `Merge options: ${opts.join('; ')}.`);
  if (r.scaleProbe.length) out.push('', `Scale probe (λ ${r.scaleProbe.join(', ')}): each specialist's own task vector alone, base + λ·(specialist − base), scored on the same test tasks. An averaging merge of ${r.specialists.models.length} specialists hands each task about 1/${r.specialists.models.length} of its vector: where the skill is gone at that scale with no other vector present, the merge's loss is the vector's non-linearity, not interference.`);
  out.push('', ...formatTarget(r));
  if (r.tuning.length) out.push('', ...formatTuning(r.tuning));
  out.push('', `Compute (forward-token-equivalents): specialists ${(r.compute.specialists / 1e6).toFixed(2)} M in total, multi-task ${(r.compute.multiTask / 1e6).toFixed(2)} M. Wall: specialists' run ${r.seconds.specialistsRun.toFixed(0)} s, multi-task run ${r.seconds.multiTaskRun.toFixed(0)} s, merges + ${r.tuning.length ? 'tuning + ' : ''}their evals ${r.seconds.merges.toFixed(0)} s.`);
  return out.join('\n');
}

/** The validation choice per tuned method, and every candidate's validation score. */
export function formatTuning(tuning: readonly TuneResult[]): string[] {
  const episodes = tuning.reduce((s, t) => s + t.episodes, 0);
  const runs = tuning.reduce((s, t) => s + t.candidates.length, 0);
  const n = tuning[0]?.score.n ?? 0;
  return [
    `Merge hyper-parameters chosen on the validation split (n = ${n} validation tasks per task set; criterion: mean over task sets of the mean reward, then of success, then the first in grid order; a method with nothing to tune is scored once, as configured); the rows above are the chosen merges on test. Cost: ${runs} candidate evaluations, ${episodes} validation episodes.`,
    '',
    table(['method', 'chosen', 'validation reward', 'validation success', 'candidates (validation reward)'], tuning.map((t) => [
      t.method, formatHyper(t.chosen), num(t.score.reward), `${pct(t.score.success)} %`,
      t.candidates.map((c) => `${formatHyper(c.hyper)}: ${num(c.score.reward)}`).join('; '),
    ])),
  ];
}

/** What --out writes: the table without the weights (digests instead). */
export interface MergeTableJson {
  split: string;
  seed: number;
  n: number;
  taskSets: string[];
  methods: string[];
  /** λ values of the scale probe (absent in tables saved before it existed). */
  scaleProbe?: number[];
  rows: MergeTableRow[];
  tuning: TuneResult[];
  /** The method validation picked across methods (absent without tuning, and in tables saved before it was recorded). */
  validationPick?: string;
  /** Validation's target pick and its test cells (absent without tuning, and in tables saved before it was recorded). */
  targetPick?: MergeTableResult['targetPick'];
  evaluations: EvalRecord[];
  compute: MergeTableResult['compute'];
  seconds: MergeTableResult['seconds'];
  specialists: string[];
}

export function mergeTableJson(r: MergeTableResult): MergeTableJson {
  return { split: r.split, seed: r.seed, n: r.n, taskSets: r.taskSets, methods: r.methods, scaleProbe: r.scaleProbe, rows: r.rows, tuning: r.tuning, ...(r.validationPick ? { validationPick: r.validationPick } : {}), ...(r.targetPick ? { targetPick: r.targetPick } : {}), evaluations: r.evaluations, compute: r.compute, seconds: r.seconds, specialists: r.specialists.models.map((m) => m.label) };
}
