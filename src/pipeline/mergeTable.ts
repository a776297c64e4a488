// The merge table over trained specialists (issue 15 §3, issue 14 §4): from a pipeline config with
// shared training stages and specialist stages (the page's "All + merge" example), one run of the
// runner trains the shared model, evaluates it, trains a specialist per task set from it, evaluates
// each and merges them with the first method (the runner's own merge stage); a second run trains the
// multi-task model from the same shared model on the whole mix with the specialist stages' steps
// summed (K specialists × S steps → K·S steps; SFT examples × K); then every other method merges
// the same specialists (specialists.ts mergeSpecialists, the merge stage's code and seed) and an
// eval-only run scores each merged model. Every model is scored on the same TEST tasks of every
// task set (tasks 0 … n−1, the run seed's stream), beside the cheap baselines on those tasks.
// Success: Wilson 95 % interval; mean reward and each reward component: normal approximation
// (mean ± 1.96·s/√n, not clipped). Each cell also keeps its per-task successes in task order, so two
// rows can be compared task by task (the paired interval, mergeTableFormat.ts). Rows carry a digest
// of the weights that were evaluated.
// With `tune`, each method's hyper-parameters are first chosen on the VALIDATION split (mergeTune.ts:
// grid, criterion, tie-break) and only the chosen merge is scored on TEST; `evaluations` records the
// split of every evaluation run, in order. Every method is scored on validation (linear and RAM with
// their one configuration), and the same criterion picks one merge across methods: `validationPick`.
// With `tune`, each specialist is also scored on the validation tasks of its own task set, and
// `targetPick` is the candidate (any method, any grid point) whose worst task set is closest to its
// own specialist on validation (mergeTune.ts pickByWorstGap); it is scored on TEST too.
import { entryFamily, taskSetName } from '../envs/taskMix';
import { taskSet } from '../envs/taskSets';
import { baselineOutcomes } from '../eval/baselines';
import { wilson, Z95, type Rate } from '../eval/report';
import type { GpuRuntime } from '../gpu/runtime';
import { MERGE_METHODS, mergeMethod, type MergeOptions } from '../train/merge/methods';
import type { Trajectory } from '../train/rl/trajectory';
import { type EvalSplit, type EvalStageConfig, type MergeStageConfig, parsePipelineConfig, type PipelineConfig, specialistEntries, type StageConfig } from './config';
import { mergeSpecialists, mergeStageSeed, type PendingSpecialists } from './specialists';
import { formatHyper, type MergeHyper, mergeCandidates, pickAcrossMethods, pickByWorstGap, sameHyper, type TargetPick, type TuneGrid, type TuneResult, tuneMerge } from './mergeTune';
import { evalTasks } from './evaluation';
import { scaledLabel, scaleTaskVector } from './mergeTableProbe';
import { runPipeline } from './runner';
import type { PipelineOptions } from './runnerTypes';

type Weights = Map<string, Float32Array>;

/** A mean with its 95 % interval (normal approximation) and sample size. */
export interface MeanInterval {
  mean: number;
  lo: number;
  hi: number;
  n: number;
}

/** One model (or baseline) on one task set's test tasks. */
export interface CellScore {
  n: number;
  /** Whole-task success, Wilson 95 % interval. */
  success: Rate;
  reward: MeanInterval;
  components: Record<string, MeanInterval>;
  /**
   * Success per task in task order (tasks 0 … n−1 of the run seed's stream): '1' solved, '0' not.
   * Absent in tables saved before it was recorded.
   */
  outcomes?: string;
}

export type MergeTableRowKind = 'base' | 'specialist' | 'multi-task' | 'merge' | 'scaled' | 'baseline';

export interface MergeTableRow {
  /** 'base (shared SFT)', 'specialist function-calling/route4', 'multi-task', 'merge ties', a baseline's label. */
  label: string;
  kind: MergeTableRowKind;
  /** Task set → its score; a baseline has cells only on the task sets it applies to. */
  cells: Record<string, CellScore>;
  /** FNV-1a digest of the evaluated weights (absent for baselines). */
  digest?: string;
  /** A merged row's merge options (weights, density, λ, t, seed, ε). */
  mergeOptions?: MergeOptions;
  /** A scale-probe row: the specialist's task vector scale λ (mergeTableProbe.ts). */
  scale?: number;
  /** A tuned merged row: the hyper-parameters chosen on validation and the validation score they won with. */
  tuning?: { chosen: MergeHyper; validationReward: number; validationSuccess: number; validationN: number; candidates: number };
}

/** One evaluation run of the table: what was scored, on which split, how many tasks per task set. */
export interface EvalRecord {
  what: string;
  split: EvalSplit;
  n: number;
}

export interface MergeTableResult {
  split: 'test';
  /** The scale probe's λ values (empty: none). */
  scaleProbe: number[];
  seed: number;
  /** Test tasks per task set. */
  n: number;
  taskSets: string[];
  /** Per method: every candidate's validation score and the choice (empty without tuning). */
  tuning: TuneResult[];
  /** With tuning: the method whose validation choice scores best on validation across methods (its row is `merge <method>`). */
  validationPick?: string;
  /**
   * With tuning: validation's target pick (mergeTune.ts pickByWorstGap) and its TEST cells; `row` names
   * the table row with the same weights when the pick is that method's choice, else null (then it was
   * merged and scored on test apart, and is kept here rather than as a row, so that tables of other
   * seeds still line up row by row).
   */
  targetPick?: TargetPick & { cells: Record<string, CellScore>; row: string | null; digest: string; specialistValidation: Record<string, CellScore> };
  /** Every evaluation run in order, with its split (the tuning runs are all 'validation'). */
  evaluations: EvalRecord[];
  methods: string[];
  rows: MergeTableRow[];
  /** Forward-token-equivalents (compute.ts) of the specialist stages, all specialists together, and of the multi-task model's stages. */
  compute: { specialists: number; multiTask: number };
  /** Wall seconds: the specialists' run (shared training, specialists, their evals), the multi-task run, the merges, their tuning and evals. */
  seconds: { specialistsRun: number; multiTaskRun: number; merges: number };
  /** The specialists and their start (the shared model). */
  specialists: PendingSpecialists;
  multiTask: Weights;
  /** Method → merged weights. */
  merged: Map<string, Weights>;
}

export interface MergeTableRequest {
  /** Shared training stages, then specialist stages; its eval and merge stages are ignored (the table evaluates every model itself). */
  config: PipelineConfig;
  /** Merge methods, one merged model each (≥ 1). */
  methods: readonly string[];
  /** Test tasks per task set. */
  n: number;
  log?: (line: string) => void;
  /** Each model row as soon as it is scored (a long run's figures survive a stop). */
  onRow?: (row: MergeTableRow) => void;
  /** Choose each method's hyper-parameters on the validation split first (n validation tasks per task set). */
  tune?: { grid: TuneGrid; n: number };
  /** Also score each specialist's own task vector at these scales λ (base + λ·τ, mergeTableProbe.ts), on test. */
  scaleProbe?: readonly number[];
}

const isTraining = (s: StageConfig): s is Extract<StageConfig, { kind: 'sft' | 'grpo' }> => s.kind === 'sft' || s.kind === 'grpo';

/** The methods that can merge `k` specialists (slerp takes exactly two), in MERGE_METHODS order. */
export const methodsFor = (k: number): string[] => Object.values(MERGE_METHODS).filter((m) => m.minModels <= k && k <= m.maxModels).map((m) => m.name);

/** The two training configs: the specialists' run and the multi-task run; and where the merge stage is (merged models: evalOnlyConfig). */
export function mergeTableConfigs(cfg: PipelineConfig, methods: readonly string[], n: number): { specialistsRun: PipelineConfig; multiTaskRun: PipelineConfig; mergeStage: number; specialistStages: number[] } {
  if (methods.length === 0) throw new Error('merge table: name at least one merge method');
  for (const m of methods) if (!(m in MERGE_METHODS)) throw new Error(`merge table: unknown merge method '${m}'; choose from ${Object.keys(MERGE_METHODS).join(', ')}`);
  if (new Set(methods).size !== methods.length) throw new Error(`merge table: a method is listed twice (${methods.join(', ')})`);
  const training = cfg.stages.filter(isTraining);
  const first = training.findIndex((s) => s.specialists);
  if (first < 0) throw new Error('merge table: the config trains no specialists; tick specialists on an SFT or GRPO stage');
  const shared = training.slice(0, first);
  const special = training.slice(first);
  if (special.some((s) => !s.specialists)) throw new Error('merge table: every training stage after the first specialist stage must train specialists too (the table merges them once, at the end)');
  const k = specialistEntries(cfg).length;
  for (const m of methods) if (MERGE_METHODS[m].maxModels < k) throw new Error(`merge table: ${m} merges at most ${MERGE_METHODS[m].maxModels} models; the task mix gives ${k} specialists: leave ${m} out`);
  const test = (label: string): EvalStageConfig => ({ kind: 'eval', label, split: 'test', n, baselines: false });
  const given = cfg.stages.find((s): s is MergeStageConfig => s.kind === 'merge' && s.method === methods[0]);
  const firstMerge: MergeStageConfig = given ?? { kind: 'merge', method: methods[0] };
  const specialistsStages: StageConfig[] = [...shared, test(BASE_LABEL), ...special, test(SPECIALIST_LABEL), firstMerge];
  // the multi-task model: the specialist stages once, on the whole mix, with K times the steps (and SFT examples)
  const multi: StageConfig[] = special.map((s) => {
    const { specialists: _, ...rest } = s;
    if (rest.kind === 'sft' && rest.data.source === 'synthetic') return { ...rest, steps: rest.steps * k, data: { ...rest.data, examples: rest.data.examples * k } };
    return { ...rest, steps: rest.steps * k };
  });
  const parse = (stages: StageConfig[]) => parsePipelineConfig({ ...cfg, stages });
  return {
    specialistsRun: parse(specialistsStages), multiTaskRun: parse([...multi, test(MULTI_LABEL)]),
    mergeStage: specialistsStages.length - 1,
    specialistStages: special.map((_, j) => shared.length + 1 + j),
  };
}

/** An eval-only run of the config: n tasks per task set of `split`, no baselines. */
export const evalOnlyConfig = (cfg: PipelineConfig, split: EvalSplit, n: number): PipelineConfig =>
  parsePipelineConfig({ ...cfg, stages: [{ kind: 'eval', label: MERGED_LABEL, split, n, baselines: false }] });

const BASE_LABEL = 'base (shared SFT)';
const SPECIALIST_LABEL = 'specialist';
const MULTI_LABEL = 'multi-task';
const MERGED_LABEL = 'merged';

/** Runs everything and returns the table (rows: base, specialists, multi-task, one merge per method, baselines). */
export async function runMergeTable(rt: GpuRuntime, req: MergeTableRequest, opts: PipelineOptions = {}): Promise<MergeTableResult> {
  const log = req.log ?? (() => {});
  const { config: cfg, methods, n } = req;
  const plan = mergeTableConfigs(cfg, methods, n);
  const taskSets = cfg.tasks.map(taskSetName);
  const episodes = new Map<string, Trajectory[]>(); // "label\ttask set" → evaluated episodes
  const onEvalEpisodes = (_stage: number, label: string, set: string, trajs: readonly Trajectory[]) => {
    const key = `${label}\t${set}`;
    episodes.set(key, [...(episodes.get(key) ?? []), ...trajs]);
  };
  // the ids of tasks 0 … count−1 of each task set on a split, the order every cell's outcomes are kept in
  const idCache = new Map<string, string[]>();
  const taskIds = (set: string, split: EvalSplit, count: number): string[] => {
    const key = `${set}\t${split}\t${count}`;
    if (!idCache.has(key)) idCache.set(key, evalTasks(entryFamily(cfg.tasks[taskSets.indexOf(set)]), split, count, [cfg.seed]).map((t) => t.id));
    return idCache.get(key)!;
  };
  const cellOn = (key: string, set: string, split: EvalSplit, count: number, what: string): CellScore => cellOf(episodes.get(key) ?? [], taskIds(set, split, count), what);
  const cells = (label: string): Record<string, CellScore> => Object.fromEntries(taskSets.map((set) => [set, cellOn(`${label}\t${set}`, set, 'test', n, `${label} on ${set}`)]));
  const rows: MergeTableRow[] = [];
  const evaluations: EvalRecord[] = [];
  const add = (row: MergeTableRow) => {
    rows.push(row);
    req.onRow?.(row);
  };

  // one eval-only run of the pipeline on `split` (the same evaluation as every other row); returns the weights it evaluated
  const score = async (weights: Weights, split: EvalSplit, tasks: number, what: string): Promise<{ cells: Record<string, CellScore>; evaluated: Weights }> => {
    evaluations.push({ what, split, n: tasks });
    for (const key of [...episodes.keys()]) if (key.startsWith(`${MERGED_LABEL}\t`)) episodes.delete(key);
    const r = await runPipeline(rt, evalOnlyConfig(cfg, split, tasks), { onEvalEpisodes }, { ...opts, initial: weights });
    const evaluated = await r.weights.download();
    r.weights.destroy();
    return { cells: Object.fromEntries(taskSets.map((set) => [set, cellOn(`${MERGED_LABEL}\t${set}`, set, split, tasks, `${what} on ${set} (${split})`)])), evaluated };
  };
  let t0 = performance.now();
  let specialists: PendingSpecialists | null = null;
  evaluations.push({ what: 'shared model, specialists', split: 'test', n });
  const fisherLater = methods.slice(1).some((m) => mergeMethod(m).needsImportance); // the first method is the run's own merge stage
  const a = await runPipeline(rt, plan.specialistsRun, { log, onEvalEpisodes, onSpecialists: (_i, p) => { specialists = p; } }, { ...opts, ...(fisherLater ? { specialistFisher: true } : {}) });
  const firstMerged = await a.weights.download();
  a.weights.destroy();
  if (!specialists) throw new Error('merge table: the run merged no specialists (internal: its merge stage did not run)');
  const sp: PendingSpecialists = specialists;
  const specialistsCompute = plan.specialistStages.reduce((sum, i) => sum + a.compute.stage(i), 0);
  const specialistsRun = (performance.now() - t0) / 1000;
  add({ label: BASE_LABEL, kind: 'base', cells: cells(BASE_LABEL), digest: weightsDigest(sp.base) });
  for (const m of sp.models) add({ label: `specialist ${m.label}`, kind: 'specialist', cells: cells(`${SPECIALIST_LABEL} · specialist ${m.label}`), digest: weightsDigest(m.weights) });

  t0 = performance.now();
  log(`multi-task model: the specialist stages on the whole mix, ${sp.models.length}× the steps, from the same shared model`);
  evaluations.push({ what: 'multi-task', split: 'test', n });
  const b = await runPipeline(rt, plan.multiTaskRun, { log, onEvalEpisodes }, { ...opts, initial: sp.base });
  const multiTask = await b.weights.download();
  b.weights.destroy();
  const multiTaskRun = (performance.now() - t0) / 1000;
  add({ label: MULTI_LABEL, kind: 'multi-task', cells: cells(MULTI_LABEL), digest: weightsDigest(multiTask) });

  t0 = performance.now();
  const merged = new Map<string, Weights>();
  const tuning: TuneResult[] = [];
  const mergeWithFor = (method: string, h: MergeHyper) => {
    const given: MergeStageConfig = cfg.stages.find((s): s is MergeStageConfig => s.kind === 'merge' && s.method === method) ?? { kind: 'merge', method };
    return mergeSpecialists(plan.mergeStage, { ...given, ...h }, sp, mergeStageSeed(plan.specialistsRun, plan.mergeStage));
  };
  // the target pick's yardstick: each specialist on its own task set's validation tasks (the tuning's tasks)
  const specialistValidation: Record<string, CellScore> = {};
  if (req.tune) {
    for (const m of sp.models) {
      if (!taskSets.includes(m.label)) continue;
      log(`tune target: specialist ${m.label} on ${req.tune.n} validation tasks of its own task set`);
      specialistValidation[m.label] = (await score(m.weights, 'validation', req.tune.n, `tune target: specialist ${m.label}`)).cells[m.label];
    }
  }
  for (const method of methods) {
    const mergeWith = (h: MergeHyper) => mergeWithFor(method, h);
    const candidates = req.tune ? mergeCandidates(method, req.tune.grid) : [];
    let tuned: TuneResult | null = null;
    if (candidates.length > 0) {
      const tn = req.tune!.n;
      log(`merge ${method}: ${candidates.length > 1 ? 'tuning' : 'nothing to tune; scoring'} on the validation split, ${candidates.length} candidate${candidates.length > 1 ? 's' : ''} × ${taskSets.length} task sets × ${tn} tasks`);
      tuned = await tuneMerge({
        method, candidates, n: tn, log,
        merge: async (h) => (await mergeWith(h)).weights,
        score: async (w, split, tasks) => (await score(w, split, tasks, `tune ${method}`)).cells,
      });
      tuning.push(tuned);
    }
    // untuned: the first method is the specialists' run's own merge stage; the others the same code on the same specialists
    const { weights, record } = tuned ? await mergeWith(tuned.chosen) : method === methods[0] ? { weights: firstMerged, record: a.merges[0] } : await mergeWith({});
    merged.set(method, weights);
    log(`merge ${method}${tuned ? ` (${formatHyper(tuned.chosen)}, chosen on validation)` : ''}: evaluating on ${n} test tasks per task set`);
    const r = await score(weights, 'test', n, `merge ${method}`);
    add({
      label: `merge ${method}`, kind: 'merge', cells: r.cells, digest: weightsDigest(r.evaluated), mergeOptions: record.options,
      ...(tuned ? { tuning: { chosen: tuned.chosen, validationReward: tuned.score.reward, validationSuccess: tuned.score.success, validationN: tuned.score.n, candidates: tuned.candidates.length } } : {}),
    });
  }
  // the scale probe: each specialist's task vector alone at scale λ (does the skill survive the 1/K an averaging merge gives it?)
  for (const lambda of req.scaleProbe ?? []) {
    for (const m of sp.models) {
      log(`scale probe: specialist ${m.label} at λ ${lambda} (base + ${lambda}·τ): evaluating on ${n} test tasks per task set`);
      const r = await score(scaleTaskVector(sp.base, m.weights, lambda), 'test', n, `specialist ${m.label} at scale ${lambda}`);
      add({ label: scaledLabel(m.label, lambda), kind: 'scaled', cells: r.cells, digest: weightsDigest(r.evaluated), scale: lambda });
    }
  }
  const validationPick = tuning.length ? pickAcrossMethods(tuning).method : undefined;
  if (validationPick) log(`validation's pick across methods: merge ${validationPick}`);
  let targetPick: MergeTableResult['targetPick'];
  if (tuning.length && Object.keys(specialistValidation).length) {
    const p = pickByWorstGap(tuning, specialistValidation);
    const gaps = Object.entries(p.rewardGaps).map(([set, g]) => `${set} ${g >= 0 ? '+' : ''}${g.toFixed(3)}`).join(', ');
    log(`validation's target pick: merge ${p.method} (${formatHyper(p.hyper)}), worst validation reward gap to the own specialist ${p.worstReward.toFixed(3)} (${gaps})`);
    const onTest = await targetPickOnTest(p, tuning, rows, async () => {
      log(`target pick: not ${p.method}'s own choice; merging it and evaluating on ${n} test tasks per task set`);
      const r = await score((await mergeWithFor(p.method, p.hyper)).weights, 'test', n, `target pick ${p.method}`);
      return { cells: r.cells, digest: weightsDigest(r.evaluated) };
    });
    targetPick = { ...p, ...onTest, specialistValidation };
  }
  const mergesSeconds = (performance.now() - t0) / 1000;

  // the cheap baselines on the same test tasks (tasks 0 … n−1 of the run seed's stream)
  const baselineRows = new Map<string, MergeTableRow>();
  for (const entry of cfg.tasks) {
    const set = taskSet(entry.family, entry.level);
    const name = taskSetName(entry);
    for (const bl of await baselineOutcomes(set, { split: 'test', n, seed: cfg.seed })) {
      const row = baselineRows.get(bl.label) ?? { label: bl.label, kind: 'baseline' as const, cells: {} };
      const ordered = inTaskOrder(bl.outcomes, taskIds(name, 'test', n), `baseline ${bl.label} on ${name}`);
      row.cells[name] = cellOfValues(ordered.map((o) => ({ success: o.success, total: o.reward, components: o.components })));
      baselineRows.set(bl.label, row);
    }
  }
  rows.push(...baselineRows.values());
  return {
    split: 'test', seed: cfg.seed, n, taskSets, methods: [...methods], scaleProbe: [...(req.scaleProbe ?? [])], rows, tuning, evaluations,
    ...(validationPick ? { validationPick } : {}),
    ...(targetPick ? { targetPick } : {}),
    compute: { specialists: specialistsCompute, multiTask: plan.multiTaskRun.stages.reduce((sum, _s, i) => sum + b.compute.stage(i), 0) },
    seconds: { specialistsRun, multiTaskRun, merges: mergesSeconds },
    specialists: sp, multiTask, merged,
  };
}

/**
 * The target pick's test cells: when it is its method's validation choice, that method's row (same
 * weights, already scored on test); otherwise `scoreApart` merges it and scores it on test.
 */
export async function targetPickOnTest(p: TargetPick, tuning: readonly TuneResult[], rows: readonly MergeTableRow[], scoreApart: () => Promise<{ cells: Record<string, CellScore>; digest: string }>): Promise<{ cells: Record<string, CellScore>; row: string | null; digest: string }> {
  const label = `merge ${p.method}`;
  const own = tuning.find((t) => t.method === p.method);
  if (!own) throw new Error(`merge table: the target pick's method ${p.method} was not tuned`);
  const row = sameHyper(own.chosen, p.hyper) ? rows.find((x) => x.label === label) : undefined;
  if (row) return { cells: row.cells, row: label, digest: row.digest ?? '' };
  return { ...(await scoreApart()), row: null };
}

/** A cell from the episodes of tasks `taskIds` (tasks 0 … n−1, in order), whatever order they were played in. */
function cellOf(trajs: readonly Trajectory[], taskIds: readonly string[], what: string): CellScore {
  if (trajs.length !== taskIds.length) throw new Error(`merge table: ${what}: ${trajs.length} episodes evaluated, expected ${taskIds.length}`);
  return cellOfValues(inTaskOrder(trajs, taskIds, what).map((t) => ({ success: t.success, total: t.reward.total, components: t.reward.components })));
}

/**
 * The items (one per task, each naming its task id) in the order of `taskIds`. Matching by id, not by
 * arrival order, is what lets two rows be paired task by task; anything that would make that pairing
 * a guess (a repeated id, an unknown one, a task missing) is an error.
 */
export function inTaskOrder<T extends { taskId: string }>(items: readonly T[], taskIds: readonly string[], what: string): T[] {
  const index = new Map(taskIds.map((id, i) => [id, i]));
  if (index.size !== taskIds.length) throw new Error(`merge table: ${what}: the ${taskIds.length} tasks do not have distinct ids, so their episodes cannot be put in task order`);
  const ordered: (T | undefined)[] = taskIds.map(() => undefined);
  for (const item of items) {
    const i = index.get(item.taskId);
    if (i === undefined) throw new Error(`merge table: ${what}: an episode of task ${item.taskId}, which is not among the ${taskIds.length} tasks scored (${taskIds[0]} …); the evaluation ran on other tasks than the table's`);
    if (ordered[i]) throw new Error(`merge table: ${what}: task ${item.taskId} was evaluated twice`);
    ordered[i] = item;
  }
  const missing = ordered.findIndex((x) => x === undefined);
  if (missing >= 0) throw new Error(`merge table: ${what}: no episode of task ${taskIds[missing]} (task ${missing})`);
  return ordered as T[];
}

/**
 * Success (Wilson), mean reward and mean of each component (normal approximation) over episodes, and
 * the per-task successes as a '1'/'0' string: pass the episodes in task order (tasks 0 … n−1).
 */
export function cellOfValues(eps: readonly { success: boolean; total: number; components: Record<string, number> }[]): CellScore {
  const names = [...new Set(eps.flatMap((e) => Object.keys(e.components)))].sort();
  return {
    n: eps.length,
    success: wilson(eps.filter((e) => e.success).length, eps.length),
    reward: normalInterval(eps.map((e) => e.total)),
    components: Object.fromEntries(names.map((c) => [c, normalInterval(eps.map((e) => e.components[c] ?? 0))])),
    outcomes: eps.map((e) => (e.success ? '1' : '0')).join(''),
  };
}

/** Mean ± z·s/√n (sample standard deviation; zero width for n ≤ 1). */
export function normalInterval(values: readonly number[]): MeanInterval {
  const n = values.length;
  const mean = n ? values.reduce((x, y) => x + y, 0) / n : 0;
  const sd = n > 1 ? Math.sqrt(values.reduce((x, v) => x + (v - mean) ** 2, 0) / (n - 1)) : 0;
  const half = n > 0 ? (Z95 * sd) / Math.sqrt(n) : 0;
  return { mean, lo: mean - half, hi: mean + half, n };
}

/** FNV-1a (32-bit) over the tensor names and their float bits, in name order: "the same weights" at a glance. */
export function weightsDigest(w: Weights): string {
  let h = 0x811c9dc5;
  for (const name of [...w.keys()].sort()) {
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
    const bits = new Uint32Array(w.get(name)!.buffer, w.get(name)!.byteOffset, w.get(name)!.length);
    for (let i = 0; i < bits.length; i++) h = Math.imul(h ^ bits[i], 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
