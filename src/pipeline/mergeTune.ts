// Merge hyper-parameters chosen on the VALIDATION split (the merge table's --tune): for each method
// a small grid of its hyper-parameters (task arithmetic: λ; TIES, DARE-linear, DARE-TIES: λ × density;
// SLERP: t; linear and RAM: none — linear has no strength, RAM's ε is a noise threshold, not a
// strength — so their one candidate is the method as configured; with a weights grid, every method
// that weighs its models — linear, task arithmetic, TIES, DARE — also tries each vector of per-specialist
// weights w_i, the knob against interference: one specialist's vector hurting another's task), every candidate merged (cheap: tensor
// arithmetic) and scored on the validation tasks of every task set; the winner is what the table then
// scores on TEST. Criterion: the mean over task sets of the mean validation reward, higher wins; tie:
// the mean over task sets of validation success; still tied: the candidate listed first in the grid
// (grid order: weight vectors outermost as given, then λ, then density as given). Evaluation is the cost: candidates × task
// sets × n episodes, all on 'validation'.
// The same criterion then picks one merge across methods (pickAcrossMethods): the table's "validation's
// pick", the one merged model a user would ship, chosen without looking at test. Linear and RAM are
// scored on validation for that reason even though they have nothing to tune: a pick that never saw
// them would be a pick among the tuned methods only.
import type { EvalSplit } from './config';
import type { CellScore } from './mergeTable';

type Weights = Map<string, Float32Array>;

/** The values tried per hyper-parameter (each list in the order candidates are tried). */
export interface TuneGrid {
  lambda: number[];
  density: number[];
  t: number[];
  /** Per-specialist weight vectors (one weight per specialist, task-mix order); absent or empty: the weights as configured. */
  weights?: number[][];
}

/** The suggestion, as mergekit users sweep them. */
export const DEFAULT_TUNE_GRID: TuneGrid = { lambda: [0.3, 0.5, 0.7, 1], density: [0.3, 0.5, 0.7], t: [0.3, 0.5, 0.7] };

/** One candidate: the merge stage fields it sets (the rest stay the config's / the method's defaults). */
export interface MergeHyper {
  lambda?: number;
  density?: number;
  t?: number;
  /** w_i per specialist. */
  weights?: number[];
}

/** Which hyper-parameters each method's formula uses (src/train/merge); a method not listed has none to tune. */
const TUNED: Record<string, readonly ('lambda' | 'density' | 't')[]> = {
  'task-arithmetic': ['lambda'],
  ties: ['lambda', 'density'],
  'dare-linear': ['lambda', 'density'],
  'dare-ties': ['lambda', 'density'],
  slerp: ['t'],
};

/** The methods whose formula weighs the models (src/train/merge: RAM counts each update once, SLERP takes t). */
const WEIGHTED = new Set(['linear', 'task-arithmetic', 'ties', 'dare-linear', 'dare-ties', 'fisher']);

/** The grid's candidates for `method`, in try order (the cartesian product of its hyper-parameters); [{}] = nothing to tune (the method as configured). */
export function mergeCandidates(method: string, grid: TuneGrid): MergeHyper[] {
  const vectors = WEIGHTED.has(method) ? (grid.weights ?? []) : [];
  let out: MergeHyper[] = vectors.length ? vectors.map((w) => ({ weights: [...w] })) : [{}];
  for (const key of TUNED[method] ?? []) {
    if (grid[key].length === 0) throw new Error(`merge tuning: the grid has no ${key} values, and ${method} needs them`);
    out = out.flatMap((h) => grid[key].map((v) => ({ ...h, [key]: v })));
  }
  return out;
}

/** A candidate's validation score: the criterion's two numbers and the cells they come from. */
export interface ValidationScore {
  /** Mean over task sets of the mean reward. */
  reward: number;
  /** Mean over task sets of the success rate. */
  success: number;
  /** Validation tasks per task set. */
  n: number;
  cells: Record<string, CellScore>;
}

export function validationScore(cells: Record<string, CellScore>): ValidationScore {
  const all = Object.values(cells);
  if (all.length === 0) throw new Error('merge tuning: a candidate was scored on no task set');
  const mean = (f: (c: CellScore) => number) => all.reduce((s, c) => s + f(c), 0) / all.length;
  return { reward: mean((c) => c.reward.mean), success: mean((c) => c.success.rate), n: all[0].n, cells };
}

/** True when `a` beats `b`: higher mean reward, then higher success; equal → false (the earlier candidate stays). */
export const beats = (a: ValidationScore, b: ValidationScore): boolean => a.reward > b.reward || (a.reward === b.reward && a.success > b.success);

export interface TuneResult {
  method: string;
  chosen: MergeHyper;
  /** The chosen candidate's validation score. */
  score: ValidationScore;
  candidates: { hyper: MergeHyper; score: ValidationScore }[];
  /** Every split the tuner asked the scorer for, in order ('validation' only, by construction; tests check it). */
  splits: EvalSplit[];
  /** Episodes evaluated: candidates × task sets × n. */
  episodes: number;
}

export interface TuneRequest {
  method: string;
  candidates: readonly MergeHyper[];
  /** Validation tasks per task set. */
  n: number;
  /** Merges the specialists with the candidate's hyper-parameters. */
  merge: (hyper: MergeHyper) => Promise<Weights>;
  /** Scores weights on `split` (n tasks per task set): the table's own evaluation. */
  score: (weights: Weights, split: EvalSplit, n: number) => Promise<Record<string, CellScore>>;
  log?: (line: string) => void;
}

/** Tries every candidate on the validation split; the best by the criterion above wins. */
export async function tuneMerge(req: TuneRequest): Promise<TuneResult> {
  if (req.candidates.length === 0) throw new Error(`merge tuning: ${req.method} has no candidates to try`);
  const split: EvalSplit = 'validation';
  const splits: EvalSplit[] = [];
  const candidates: TuneResult['candidates'] = [];
  let best = -1;
  let episodes = 0;
  for (const hyper of req.candidates) {
    const weights = await req.merge(hyper);
    splits.push(split);
    const cells = await req.score(weights, split, req.n);
    const score = validationScore(cells);
    episodes += Object.values(cells).reduce((s, c) => s + c.n, 0);
    candidates.push({ hyper, score });
    if (best < 0 || beats(score, candidates[best].score)) best = candidates.length - 1;
    req.log?.(`tune ${req.method} ${formatHyper(hyper)}: validation reward ${score.reward.toFixed(3)}, success ${(100 * score.success).toFixed(1)} %`);
  }
  const { hyper: chosen, score } = candidates[best];
  return { method: req.method, chosen, score, candidates, splits, episodes };
}

/** The method whose validation choice beats every other method's (the same criterion; a tie keeps the method listed first). */
export function pickAcrossMethods(tuning: readonly TuneResult[]): TuneResult {
  if (tuning.length === 0) throw new Error('merge tuning: no method was scored on validation, so there is nothing to pick from');
  return tuning.reduce((best, t) => (beats(t.score, best.score) ? t : best));
}

/** "λ 0.5, density 0.3" ("–" for none). */
export function formatHyper(h: MergeHyper): string {
  const parts = [h.weights === undefined ? '' : `weights ${h.weights.join('/')}`, h.lambda === undefined ? '' : `λ ${h.lambda}`, h.density === undefined ? '' : `density ${h.density}`, h.t === undefined ? '' : `t ${h.t}`].filter(Boolean);
  return parts.length ? parts.join(', ') : '–';
}

/** "1,1;1,0.5" → [[1, 1], [1, 0.5]]: weight vectors, each of `models` finite weights with a non-zero sum (a CLI list). */
export function parseWeightVectors(flag: string, text: string, models: number): number[][] {
  const vectors = text.split(';').map((v) => v.trim());
  const out = vectors.map((v) => {
    const w = v.split(',').map((s) => s.trim());
    if (w.length !== models) throw new Error(`--${flag}: '${v}' has ${w.length} weight${w.length === 1 ? '' : 's'}, the table merges ${models} specialists: give ${models} comma-separated weights per vector, vectors separated by ';' (e.g. ${Array(models).fill(1).join(',')};${[0.5, ...Array(models - 1).fill(1)].join(',')})`);
    return w.map((s) => {
      const x = Number(s);
      if (s === '' || !Number.isFinite(x) || x < 0 || x > 100) throw new Error(`--${flag}: '${s}' in '${v}' is not a weight in [0, 100]`);
      return x;
    });
  });
  for (const w of out) if (w.every((x) => x === 0)) throw new Error(`--${flag}: every weight of '${w.join(',')}' is 0; a merge needs a non-zero weight`);
  if (new Set(out.map((w) => w.join(','))).size !== out.length) throw new Error(`--${flag} ${text}: a vector is listed twice`);
  return out;
}

/** "0.3,0.5,1" → [0.3, 0.5, 1], each in [min, max] (a CLI list). */
export function parseGridList(flag: string, text: string, min: number, max: number, minExclusive = false): number[] {
  const values = text.split(',').map((s) => s.trim());
  const out = values.map((s) => {
    const v = Number(s);
    if (s === '' || !Number.isFinite(v) || v > max || (minExclusive ? v <= min : v < min)) throw new Error(`--${flag}: '${s}' is not a number in ${minExclusive ? '(' : '['}${min}, ${max}]; give a comma-separated list like 0.3,0.5,1`);
    return v;
  });
  if (new Set(out).size !== out.length) throw new Error(`--${flag} ${text}: a value is listed twice`);
  return out;
}

/**
 * Validation's target pick: over every candidate of every method (not only each method's choice), the
 * one whose WORST task set is closest to that task set's own specialist on validation — the issue's
 * target ("within 2 points of every specialist on its own family") read on validation, where the
 * mean criterion above can trade one task set's loss for another's gain. Criterion: the minimum over
 * task sets of (candidate's mean validation reward − own specialist's), higher wins; tie: the same
 * minimum in success; still tied: the first in method order, then grid order. Reward first because at
 * n = 32 validation tasks success moves in 3-point steps and ties often; reward is the finer signal of
 * the same episodes. Added after seeds 1 and 2 of the route4/route4b table had shown the mean
 * criterion's pick failing the target on test while other merges met it (README, merge table).
 */
export interface TargetPick {
  method: string;
  hyper: MergeHyper;
  /** Task set → candidate's validation mean reward minus the own specialist's (same validation tasks). */
  rewardGaps: Record<string, number>;
  /** Task set → the same in success rate. */
  successGaps: Record<string, number>;
  worstReward: number;
  worstSuccess: number;
  /** Validation tasks per task set. */
  n: number;
}

/** The target pick among `tuning`'s candidates; `specialists`: task set → its own specialist's validation cell on it. */
export function pickByWorstGap(tuning: readonly TuneResult[], specialists: Record<string, CellScore>): TargetPick {
  const sets = Object.keys(specialists);
  if (sets.length === 0) throw new Error('merge tuning: the target pick needs at least one task set with its own specialist scored on validation');
  let best: TargetPick | undefined;
  for (const t of tuning) {
    for (const c of t.candidates) {
      const rewardGaps: Record<string, number> = {};
      const successGaps: Record<string, number> = {};
      for (const set of sets) {
        const cell = c.score.cells[set];
        if (!cell) throw new Error(`merge tuning: ${t.method} ${formatHyper(c.hyper)} was not scored on ${set}, so its gap to ${set}'s specialist is unknown`);
        if (cell.n !== specialists[set].n) throw new Error(`merge tuning: ${t.method} ${formatHyper(c.hyper)} was scored on ${cell.n} validation tasks of ${set}, its specialist on ${specialists[set].n}; the gap needs the same tasks`);
        rewardGaps[set] = cell.reward.mean - specialists[set].reward.mean;
        successGaps[set] = cell.success.rate - specialists[set].success.rate;
      }
      const pick: TargetPick = { method: t.method, hyper: c.hyper, rewardGaps, successGaps, worstReward: Math.min(...Object.values(rewardGaps)), worstSuccess: Math.min(...Object.values(successGaps)), n: c.score.n };
      if (!best || pick.worstReward > best.worstReward || (pick.worstReward === best.worstReward && pick.worstSuccess > best.worstSuccess)) best = pick;
    }
  }
  if (!best) throw new Error('merge tuning: no candidate was scored on validation, so there is nothing to pick from');
  return best;
}

/** Whether two candidates set the same hyper-parameters. */
export const sameHyper = (a: MergeHyper, b: MergeHyper): boolean => formatHyper(a) === formatHyper(b);
