// The merge evaluation table: rows = each specialist, each merged model, the multi-task model;
// columns = test success per family. The models and the per-family evaluator come from the caller
// (trained specialists are another issue's output), so this only runs and lays out the comparison.

/** A success rate with its sample size and 95 % interval. */
export interface FamilyScore {
  success: number;
  n: number;
  ci95: [number, number];
}

export interface MergeTableRow {
  /** 'specialist: routing', 'merge: ties', 'multi-task'. */
  label: string;
  kind: 'specialist' | 'merge' | 'multi-task';
  scores: Record<string, FamilyScore>;
}

export interface MergeEvaluationInput<M> {
  families: string[];
  /** Specialist per family (its own family is the one to be within 2 points of). */
  specialists: { family: string; model: M }[];
  merges: { method: string; model: M }[];
  multiTask?: M;
  /** Test success of a model on a family (the eval module's held-out test split). */
  evaluate: (model: M, family: string) => Promise<FamilyScore>;
}

export interface MergeEvaluation {
  rows: MergeTableRow[];
  /** The merge whose worst gap to a specialist on its own family is smallest, and that gap (points). */
  bestMerge: { method: string; worstGapPoints: number } | null;
}

export async function evaluateMerges<M>(input: MergeEvaluationInput<M>): Promise<MergeEvaluation> {
  const rows: MergeTableRow[] = [];
  const score = async (label: string, kind: MergeTableRow['kind'], model: M) => {
    const scores: Record<string, FamilyScore> = {};
    for (const f of input.families) scores[f] = await input.evaluate(model, f);
    rows.push({ label, kind, scores });
  };
  for (const s of input.specialists) await score(`specialist: ${s.family}`, 'specialist', s.model);
  for (const m of input.merges) await score(`merge: ${m.method}`, 'merge', m.model);
  if (input.multiTask !== undefined) await score('multi-task', 'multi-task', input.multiTask);

  let bestMerge: MergeEvaluation['bestMerge'] = null;
  for (const m of rows.filter((r) => r.kind === 'merge')) {
    const gaps = input.specialists.map((s) => {
      const own = rows.find((r) => r.label === `specialist: ${s.family}`)!.scores[s.family].success;
      return 100 * (own - m.scores[s.family].success);
    });
    const worst = Math.max(...gaps);
    if (!bestMerge || worst < bestMerge.worstGapPoints) bestMerge = { method: m.label.slice('merge: '.length), worstGapPoints: worst };
  }
  return { rows, bestMerge };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}`;

/** Markdown table: "success % [95 % CI] (n)" per family. */
export function formatMergeTable(e: MergeEvaluation, families: string[]): string {
  const head = `| model | ${families.join(' | ')} |\n|---|${families.map(() => '---').join('|')}|`;
  const lines = e.rows.map((r) => `| ${r.label} | ${families.map((f) => {
    const s = r.scores[f];
    return `${pct(s.success)} % [${pct(s.ci95[0])}, ${pct(s.ci95[1])}] (n ${s.n})`;
  }).join(' | ')} |`);
  const best = e.bestMerge ? `\nbest merge: ${e.bestMerge.method}, worst gap to a specialist on its own family ${e.bestMerge.worstGapPoints.toFixed(1)} points (target ≤ 2)` : '';
  return `${head}\n${lines.join('\n')}${best}`;
}
