// The merge table over several run seeds (`npm run merge-table -- --seeds 1,2,3`): each seed is a whole
// table (its own shared model, specialists, merges, tuning); the summary gives per row and task set the
// mean over seeds of the success rate and of the mean reward, with the range (min … max over seeds),
// and for tuned merges the validation choice of each seed. Rows are matched by label. The gap to the
// own specialist also carries each seed's paired interval (that seed's tasks, that seed's models).
import type { PairedDifference } from '../eval/pairedDifference';
import { COMPARED_WITH_SPECIALIST, formatGaps, formatPaired, MERGE_TARGET_POINTS, type MergeTableJson, ownSpecialist, pairedGap, points, targetCheck, type TargetCheck, targetCheckOfCells } from './mergeTableFormat';
import { formatHyper } from './mergeTune';

/** Mean and range over seeds. */
export interface Spread {
  mean: number;
  min: number;
  max: number;
}

export interface SeedSummaryRow {
  label: string;
  kind: string;
  /** Task set → success rate and mean reward over seeds. */
  cells: Record<string, { success: Spread; reward: Spread }>;
  /** A tuned merge: the hyper-parameters chosen on validation, per seed in seed order. */
  chosen?: string[];
  /**
   * Merged, multi-task and base rows: task set → success rate minus that task set's own specialist's
   * on the same seed, over seeds (what the issue's target "within 2 points of every specialist" reads).
   * Absent where the task set has no specialist row. `paired`: per seed, the same gap paired task by
   * task with Newcombe's 95 % interval; null for a seed whose table has no per-task outcomes.
   */
  gapToSpecialist?: Record<string, Spread & { perSeed: number[]; paired: (PairedDifference | null)[] }>;
}

export interface SeedSummary {
  seeds: number[];
  /** Test tasks per task set (per seed). */
  n: number;
  taskSets: string[];
  rows: SeedSummaryRow[];
  /** Per seed (seed order): validation's pick across methods and whether it meets the target; absent unless every run recorded a pick. */
  picks?: (TargetCheck & { seed: number })[];
  /** Per seed that recorded one (seed order): validation's target pick (mergeTune.ts pickByWorstGap) and whether it meets the target on test. */
  targetPicks?: (TargetCheck & { seed: number; hyper: string })[];
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error('merge table seeds: a spread of no values');
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, min: Math.min(...values), max: Math.max(...values) };
}

export function summarizeSeeds(runs: readonly MergeTableJson[]): SeedSummary {
  if (runs.length === 0) throw new Error('merge table seeds: no runs to summarize');
  const [first] = runs;
  const labels = first.rows.map((r) => r.label);
  for (const r of runs) {
    if (r.n !== first.n || r.taskSets.join() !== first.taskSets.join()) throw new Error(`merge table seeds: seed ${r.seed} has n ${r.n} on ${r.taskSets.join(', ')}, seed ${first.seed} n ${first.n} on ${first.taskSets.join(', ')}; the runs must score the same task sets with the same n`);
    if (r.rows.map((x) => x.label).join('\n') !== labels.join('\n')) throw new Error(`merge table seeds: seed ${r.seed} has other rows than seed ${first.seed}`);
  }
  const rows = first.rows.map((row, i): SeedSummaryRow => {
    const cells: SeedSummaryRow['cells'] = {};
    for (const set of first.taskSets) {
      if (!row.cells[set]) continue; // a baseline that does not apply to this task set
      cells[set] = { success: spread(runs.map((r) => r.rows[i].cells[set].success.rate)), reward: spread(runs.map((r) => r.rows[i].cells[set].reward.mean)) };
    }
    const tuned = runs.map((r) => r.rows[i].tuning);
    const gaps: NonNullable<SeedSummaryRow['gapToSpecialist']> = {};
    if (COMPARED_WITH_SPECIALIST.has(row.kind)) {
      for (const set of first.taskSets) {
        const specialist = ownSpecialist(first.rows, set);
        if (!specialist || !row.cells[set]) continue;
        const own = first.rows.indexOf(specialist);
        const perSeed = runs.map((r) => r.rows[i].cells[set].success.rate - r.rows[own].cells[set].success.rate);
        const paired = runs.map((r) => pairedGap(r.rows[i].cells[set], r.rows[own].cells[set], `seed ${r.seed}, ${row.label} on ${set}`));
        gaps[set] = { ...spread(perSeed), perSeed, paired };
      }
    }
    return {
      label: row.label, kind: row.kind, cells,
      ...(tuned.some(Boolean) ? { chosen: tuned.map((t) => (t ? formatHyper(t.chosen) : 'untuned')) } : {}),
      ...(Object.keys(gaps).length ? { gapToSpecialist: gaps } : {}),
    };
  });
  const picks = runs.every((r) => r.validationPick) ? runs.map((r) => ({ seed: r.seed, ...targetCheck(r.rows, `merge ${r.validationPick}`, r.taskSets) })) : undefined;
  const withTarget = runs.filter((r) => r.targetPick);
  const targetPicks = withTarget.map((r) => ({ seed: r.seed, hyper: formatHyper(r.targetPick!.hyper), ...targetCheckOfCells(r.rows, `merge ${r.targetPick!.method}`, r.targetPick!.cells, r.taskSets) }));
  return { seeds: runs.map((r) => r.seed), n: first.n, taskSets: first.taskSets, rows, ...(picks ? { picks } : {}), ...(targetPicks.length ? { targetPicks } : {}) };
}

const pct = (x: number) => (100 * x).toFixed(1);
const num = (x: number) => x.toFixed(3);

export function formatSeedSummary(s: SeedSummary): string {
  const head = ['model', ...s.taskSets.flatMap((t) => [`${t} success`, `${t} reward`])];
  const body = s.rows.map((r) => [
    r.chosen ? `${r.label} (validation choice per seed: ${r.chosen.join(' / ')})` : r.label,
    ...s.taskSets.flatMap((t) => {
      const c = r.cells[t];
      return c ? [`${pct(c.success.mean)} % [${pct(c.success.min)}, ${pct(c.success.max)}]`, `${num(c.reward.mean)} [${num(c.reward.min)}, ${num(c.reward.max)}]`] : ['–', '–'];
    }),
  ]);
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const out = [
    `Seeds ${s.seeds.join(', ')} (${s.seeds.length} runs), n = ${s.n} test tasks per task set per seed: mean over seeds [min, max over seeds] of the success rate and of the mean reward.`,
    '',
    line(head), line(head.map(() => '---')), ...body.map(line),
  ];
  const gapRows = s.rows.filter((r) => r.gapToSpecialist);
  if (gapRows.length) {
    const sets = s.taskSets.filter((t) => gapRows.some((r) => r.gapToSpecialist![t]));
    const gapHead = ['model', ...sets.flatMap((t) => [t, `${t} paired, per seed`])];
    out.push(
      '',
      `Success minus the task set's own specialist's, in points, same seed: mean [min, max] over seeds (per seed ${s.seeds.join(' / ')}). Negative: the specialist is ahead on its own task set.`,
      '',
      line(gapHead), line(gapHead.map(() => '---')),
      ...gapRows.map((r) => line([r.label, ...sets.flatMap((t) => {
        const g = r.gapToSpecialist![t];
        if (!g) return ['–', '–'];
        const paired = g.paired.some(Boolean) ? g.paired.map((p) => (p ? formatPaired(p) : '–')).join(' / ') : '–';
        return [`${points(g.mean)} [${points(g.min)}, ${points(g.max)}] (${g.perSeed.map(points).join(' / ')})`, paired];
      })])),
      '',
      `Paired: each seed's gap with Newcombe's 95 % interval for paired success on that seed's ${s.n} test tasks; – where a saved table has no per-task outcomes. The intervals are per seed (each seed has its own tasks and its own models); no interval over seeds is claimed.`,
    );
  }
  if (s.picks) {
    out.push(
      '',
      `Validation's pick across methods, per seed (success minus the own specialist's on test, points): ${s.picks.map((p) => `seed ${p.seed} ${p.label} (${formatGaps(p.gaps)}: ${p.met ? 'met' : 'not met'})`).join('; ')}. Target (within ${MERGE_TARGET_POINTS} points of every specialist) met by validation's pick on ${s.picks.filter((p) => p.met).length} of ${s.picks.length} seeds.`,
    );
  }
  if (s.targetPicks) {
    const missing = s.seeds.filter((seed) => !s.targetPicks!.some((p) => p.seed === seed));
    out.push(
      '',
      `Validation's target pick (worst gap to the own specialist on validation), per seed (success minus the own specialist's on test, points): ${s.targetPicks.map((p) => `seed ${p.seed} ${p.label} (${p.hyper}; ${formatGaps(p.gaps)}: ${p.met ? 'met' : 'not met'})`).join('; ')}. Target met by the target pick on ${s.targetPicks.filter((p) => p.met).length} of ${s.targetPicks.length} seeds${missing.length ? ` (seed${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ran before the target pick was recorded)` : ''}.`,
    );
  }
  return out.join('\n');
}
