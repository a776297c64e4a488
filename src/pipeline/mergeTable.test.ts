// The merge table (mergeTable.ts) end to end on the micro model (Node WebGPU, 1–2 steps, n = 2):
// its rows and columns, each merged row's weights equal to the merge method applied to the
// specialists (and those are the weights its evaluation ran on: the digest), the multi-task model
// trained with the specialists' compute in total, and the same table again from the same seed; each
// cell's per-task outcomes in task order, and the paired gap table (hand-computed, no GPU).
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { initialWeights } from '../model/weights';
import { MERGE_METHODS, mergeOptions } from '../train/merge/methods';
import { MICRO_MODEL } from '../train/testing/microModel';
import { PIPELINE_CONFIG_VERSION, parsePipelineConfig } from './config';
import { cellOfValues, inTaskOrder, mergeTableConfigs, type MergeTableResult, type MergeTableRow, runMergeTable, targetPickOnTest, weightsDigest } from './mergeTable';
import { formatMergeTableMarkdown, formatPaired, formatTargetPick, mergeTableJson, pairedGap } from './mergeTableFormat';
import { scaleTaskVector } from './mergeTableProbe';
import { formatHyper, pickByWorstGap } from './mergeTune';
import { mergeStageSeed } from './specialists';

const ROUTE4 = { family: 'function-calling' as const, level: 'route4', weight: 1 };
const ROUTE8 = { family: 'function-calling' as const, level: 'route8', weight: 1 };
const SFT = { kind: 'sft' as const, data: { source: 'synthetic' as const, examples: 8 }, steps: 2, batchSize: 2, lr: 1e-2, warmupSteps: 0 };
const config = parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 3, tasks: [ROUTE4, ROUTE8], context: { maxTotalTokens: 384, maxNewTokensPerTurn: 16, maxTurns: 1 },
  stages: [SFT, { ...SFT, steps: 1, specialists: true }, { kind: 'merge', method: 'ties', density: 0.5 }, { kind: 'eval', label: 'ignored', split: 'test', n: 64 }],
});
const SETS = ['function-calling/route4', 'function-calling/route8'];

describe('merge table', () => {
  it('rows: base, each specialist, multi-task, one per merge method, baselines; a merged row is the method applied to the specialists', async () => {
    const rt = await testRuntime('opengles');
    const seen: string[] = [];
    const run = () => runMergeTable(rt, { config, methods: ['ties', 'linear'], n: 2, scaleProbe: [0.5], onRow: (x) => void seen.push(x.label) }, { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 3) });
    const r = await run();
    const models = r.rows.filter((x) => x.kind !== 'baseline');
    expect(seen).toEqual(models.map((x) => x.label)); // each model row reported as soon as it is scored
    expect(models.map((x) => x.label)).toEqual([
      'base (shared SFT)', 'specialist function-calling/route4', 'specialist function-calling/route8', 'multi-task', 'merge ties', 'merge linear',
      'specialist function-calling/route4 at scale 0.5 (base + 0.5·τ)', 'specialist function-calling/route8 at scale 0.5 (base + 0.5·τ)',
    ]);
    expect(r.rows.filter((x) => x.kind === 'baseline').length).toBeGreaterThan(0);
    for (const x of models) {
      expect(Object.keys(x.cells)).toEqual(SETS);
      for (const c of Object.values(x.cells)) {
        expect(c.n).toBe(2);
        expect(c.success.n).toBe(2);
        expect(c.reward.lo).toBeLessThanOrEqual(c.reward.mean);
        expect(c.reward.hi).toBeGreaterThanOrEqual(c.reward.mean);
        expect(Object.keys(c.components).length).toBeGreaterThan(0);
        // one '1'/'0' per task, as many '1' as successes
        expect(c.outcomes).toMatch(/^[01]{2}$/);
        expect([...c.outcomes!].filter((o) => o === '1').length).toBe(c.success.successes);
      }
    }
    for (const x of r.rows.filter((row) => row.kind === 'baseline')) for (const c of Object.values(x.cells)) expect(c.outcomes).toMatch(/^[01]{2}$/);

    // each merged row: the method of src/train/merge on the specialists, with the start as base; evaluated as such (digest)
    const { base, models: specialists } = r.specialists;
    expect(specialists.map((m) => m.label)).toEqual(SETS);
    const plan = mergeTableConfigs(config, ['ties', 'linear'], 2);
    const seed = mergeStageSeed(plan.specialistsRun, plan.mergeStage);
    for (const [method, given] of [['ties', { density: 0.5 }], ['linear', {}]] as const) {
      const m = MERGE_METHODS[method];
      const options = mergeOptions(m, 2, { ...given, seed });
      const merged = r.merged.get(method)!;
      const expected = new Map([...base.keys()].map((name) => [name, m.merge({ name, base: base.get(name)!, models: specialists.map((s) => s.weights.get(name)!) }, options)]));
      for (const [name, v] of expected) expect(merged.get(name), `${method} ${name}`).toEqual(v);
      expect(r.rows.find((x) => x.label === `merge ${method}`)).toMatchObject({ digest: weightsDigest(expected), mergeOptions: options });
    }
    // the scale probe's rows: each specialist's own task vector at half scale, evaluated as such (digest)
    expect(r.scaleProbe).toEqual([0.5]);
    for (const m of specialists) {
      expect(r.rows.find((x) => x.label === `specialist ${m.label} at scale 0.5 (base + 0.5·τ)`)).toMatchObject({ kind: 'scaled', scale: 0.5, digest: weightsDigest(scaleTaskVector(base, m.weights, 0.5)) });
    }
    const digests = models.map((x) => x.digest);
    expect(new Set(digests).size).toBe(digests.length); // eight different models: every specialist moved, no merge returned an input

    // the multi-task model: the specialist stage on the mix with 2× the steps, about the specialists' compute in total
    expect(r.compute.multiTask / r.compute.specialists).toBeGreaterThan(0.8);
    expect(r.compute.multiTask / r.compute.specialists).toBeLessThan(1.25);

    const md = formatMergeTableMarkdown(r);
    expect(md).toContain('| model | function-calling/route4 whole-task success | function-calling/route4 reward | function-calling/route8 whole-task success | function-calling/route8 reward |');
    expect(md).toContain('| merge linear |');
    expect(md).toContain("Whole-task success minus the own specialist's on the same tasks (paired, Newcombe 95 % interval)");
    const linear = r.rows.find((x) => x.label === 'merge linear')!;
    const own = r.rows.find((x) => x.label === `specialist ${SETS[0]}`)!;
    const p = pairedGap(linear.cells[SETS[0]], own.cells[SETS[0]], 'merge linear')!;
    expect(md).toContain(`| merge linear | ${formatPaired(p)} (${p.onlyX}/${p.onlyY} discordant) |`);

    // same seed → same table
    const again = await run();
    expect(mergeTableJson({ ...again, seconds: r.seconds }).rows).toEqual(mergeTableJson(r).rows);
  }, 180_000);

  it('--tune: each candidate scored on validation only, the best by mean validation reward merged and scored on test', async () => {
    const rt = await testRuntime('opengles');
    const grid = { lambda: [0.5, 1], density: [0.5], t: [0.5] };
    const r = await runMergeTable(rt, { config, methods: ['task-arithmetic', 'linear'], n: 2, tune: { grid, n: 1 } }, { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 3) });
    // linear has nothing to tune: one candidate (as configured), scored on validation so that the pick across methods sees it
    expect(r.tuning.map((t) => t.method)).toEqual(['task-arithmetic', 'linear']);
    const [t, lin] = r.tuning;
    expect(lin.candidates.map((c) => c.hyper)).toEqual([{}]);
    expect(t.candidates.map((c) => c.hyper)).toEqual([{ lambda: 0.5 }, { lambda: 1 }]);
    for (const c of t.candidates) for (const cell of Object.values(c.score.cells)) expect(cell.n).toBe(1);
    const best = t.candidates.reduce((b, c) => (c.score.reward > b.score.reward || (c.score.reward === b.score.reward && c.score.success > b.score.success) ? c : b));
    expect(t.chosen).toEqual(best.hyper);
    // the splits: the tuner asked for validation only; every tuning run was a validation run and came before the method's test run
    expect(t.splits).toEqual(['validation', 'validation']);
    const tuneRuns = r.evaluations.filter((e) => e.what.startsWith('tune '));
    expect(tuneRuns).toEqual([
      ...SETS.map((set) => ({ what: `tune target: specialist ${set}`, split: 'validation', n: 1 })),
      { what: 'tune task-arithmetic', split: 'validation', n: 1 }, { what: 'tune task-arithmetic', split: 'validation', n: 1 }, { what: 'tune linear', split: 'validation', n: 1 },
    ]);
    expect(r.evaluations.filter((e) => e.split === 'validation')).toEqual(tuneRuns);
    const lastTune = r.evaluations.map((e) => e.what).lastIndexOf('tune task-arithmetic');
    expect(r.evaluations.findIndex((e) => e.what === 'merge task-arithmetic' && e.split === 'test')).toBeGreaterThan(lastTune);
    // the row is the chosen merge, scored on test
    const { base, models: specialists } = r.specialists;
    const plan = mergeTableConfigs(config, ['task-arithmetic', 'linear'], 2);
    const seed = mergeStageSeed(plan.specialistsRun, plan.mergeStage);
    const options = mergeOptions(MERGE_METHODS['task-arithmetic'], 2, { lambda: t.chosen.lambda, seed });
    const expected = new Map([...base.keys()].map((name) => [name, MERGE_METHODS['task-arithmetic'].merge({ name, base: base.get(name)!, models: specialists.map((x) => x.weights.get(name)!) }, options)]));
    const row = r.rows.find((x) => x.label === 'merge task-arithmetic')!;
    expect(row).toMatchObject({ digest: weightsDigest(expected), mergeOptions: options, tuning: { chosen: t.chosen, validationReward: t.score.reward, validationN: 1, candidates: 2 } });
    for (const c of Object.values(row.cells)) expect(c.n).toBe(2);
    // linear's row: the same weights as without tuning (the specialists' run's own merge), with its validation score
    const linearRow = r.rows.find((x) => x.label === 'merge linear')!;
    expect(linearRow.tuning).toEqual({ chosen: {}, validationReward: lin.score.reward, validationSuccess: lin.score.success, validationN: 1, candidates: 1 });
    const linearExpected = new Map([...base.keys()].map((name) => [name, MERGE_METHODS.linear.merge({ name, base: base.get(name)!, models: specialists.map((x) => x.weights.get(name)!) }, mergeOptions(MERGE_METHODS.linear, 2, { seed }))]));
    expect(linearRow.digest).toBe(weightsDigest(linearExpected));
    // the pick across methods: the same criterion over the methods' validation choices (a tie keeps the first method)
    const taWins = t.score.reward > lin.score.reward || (t.score.reward === lin.score.reward && t.score.success >= lin.score.success);
    expect(r.validationPick).toBe(taWins ? 'task-arithmetic' : 'linear');
    expect(mergeTableJson(r).validationPick).toBe(r.validationPick);
    const md = formatMergeTableMarkdown(r);
    expect(md).toContain(`| merge task-arithmetic (λ ${t.chosen.lambda}; validation reward ${t.score.reward.toFixed(3)}) |`);
    expect(md).toContain(`Validation's pick across methods (the tuning criterion over every method's validation choice): **merge ${r.validationPick} (`);
    expect(md).toContain('Cost: 3 candidate evaluations, 6 validation episodes.');
    // the target pick: every candidate of both methods against each specialist's validation score on its own task set
    const tp = r.targetPick!;
    expect(Object.keys(tp.specialistValidation)).toEqual(SETS);
    for (const c of Object.values(tp.specialistValidation)) expect(c.n).toBe(1);
    const expectedPick = pickByWorstGap(r.tuning, tp.specialistValidation);
    expect({ method: tp.method, hyper: tp.hyper, worstReward: tp.worstReward, worstSuccess: tp.worstSuccess }).toEqual({ method: expectedPick.method, hyper: expectedPick.hyper, worstReward: expectedPick.worstReward, worstSuccess: expectedPick.worstSuccess });
    if (tp.row) {
      // the method's own choice: its row's test cells and weights, no extra test run
      expect(tp.row).toBe(`merge ${tp.method}`);
      const pickRow = r.rows.find((x) => x.label === tp.row)!;
      expect(tp.cells).toEqual(pickRow.cells);
      expect(tp.digest).toBe(pickRow.digest);
      expect(r.evaluations.some((e) => e.what.startsWith('target pick'))).toBe(false);
    } else {
      expect(r.evaluations.at(-1)).toEqual({ what: `target pick ${tp.method}`, split: 'test', n: 2 });
      for (const c of Object.values(tp.cells)) expect(c.n).toBe(2);
    }
    expect(mergeTableJson(r).targetPick).toEqual(tp);
    expect(md).toContain(`Validation's target pick (every candidate of every method; criterion: the worst task set's validation mean reward minus its own specialist's, then the same in success): **merge ${tp.method} (${formatHyper(tp.hyper)})**`);
  }, 120_000);

  it('--tune with a weights grid: linear tries each per-specialist weight vector on validation, and its row is that weighted merge', async () => {
    const rt = await testRuntime('opengles');
    const grid = { lambda: [1], density: [0.5], t: [0.5], weights: [[3, 1], [1, 3]] };
    const r = await runMergeTable(rt, { config, methods: ['linear'], n: 2, tune: { grid, n: 1 } }, { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 3) });
    const [lin] = r.tuning;
    expect(lin.candidates.map((c) => c.hyper)).toEqual([{ weights: [3, 1] }, { weights: [1, 3] }]);
    expect(r.evaluations.filter((e) => e.split === 'validation')).toHaveLength(2 + 2); // both specialists (the target pick's yardstick), both candidates
    const { base, models: specialists } = r.specialists;
    const plan = mergeTableConfigs(config, ['linear'], 2);
    const seed = mergeStageSeed(plan.specialistsRun, plan.mergeStage);
    const options = mergeOptions(MERGE_METHODS.linear, 2, { weights: lin.chosen.weights, seed });
    const expected = new Map([...base.keys()].map((name) => [name, MERGE_METHODS.linear.merge({ name, base: base.get(name)!, models: specialists.map((x) => x.weights.get(name)!) }, options)]));
    const row = r.rows.find((x) => x.label === 'merge linear')!;
    expect(row.digest).toBe(weightsDigest(expected));
    expect(formatMergeTableMarkdown(r)).toContain(`| merge linear (weights ${lin.chosen.weights!.join('/')}; validation reward ${lin.score.reward.toFixed(3)}) |`);
    // neither vector is the plain average, so a row that ignored the chosen weights would not match
    const plain = new Map([...base.keys()].map((name) => [name, MERGE_METHODS.linear.merge({ name, base: base.get(name)!, models: specialists.map((x) => x.weights.get(name)!) }, mergeOptions(MERGE_METHODS.linear, 2, { seed }))]));
    expect(row.digest).not.toBe(weightsDigest(plain));
  }, 120_000);

  it('fisher after another method: the specialists\' run computes their Fisher diagonals, and the fisher row is their Fisher merge', async () => {
    const rt = await testRuntime('opengles');
    const r = await runMergeTable(rt, { config, methods: ['linear', 'fisher'], n: 1 }, { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 3) });
    const { models: specialists, fisher } = r.specialists;
    if (!fisher) throw new Error('no Fisher diagonals: the specialists\' run did not compute them for the later fisher merge');
    const options = mergeOptions(MERGE_METHODS.fisher, 2, {});
    const expected = new Map([...specialists[0].weights.keys()].map((name) => [name, MERGE_METHODS.fisher.merge({ name, base: null, models: specialists.map((x) => x.weights.get(name)!), importance: fisher.map((f) => f.get(name)!) }, options)]));
    expect(r.rows.find((x) => x.label === 'merge fisher')!.digest).toBe(weightsDigest(expected));
    expect(r.rows.find((x) => x.label === 'merge fisher')!.digest).not.toBe(r.rows.find((x) => x.label === 'merge linear')!.digest);
  }, 120_000);

  it('no shared stage: the given start (merge-table --init) is the base row, unchanged, and every specialist starts from it', async () => {
    const rt = await testRuntime('opengles');
    const start = initialWeights(MICRO_MODEL, 11);
    const noShared = parsePipelineConfig({ ...config, stages: config.stages.filter((s) => !(s.kind === 'sft' && !s.specialists)) });
    const r = await runMergeTable(rt, { config: noShared, methods: ['linear'], n: 1 }, { model: MICRO_MODEL, initial: start });
    expect(r.rows[0]).toMatchObject({ label: 'base (shared SFT)', digest: weightsDigest(start) });
    for (const [name, v] of start) expect(r.specialists.base.get(name), name).toEqual(v);
    for (const m of r.specialists.models) expect(weightsDigest(m.weights)).not.toBe(weightsDigest(start));
  }, 120_000);

  it('puts episodes in task order by task id, and refuses what cannot be paired safely', () => {
    const ids = ['route4-test-3-0', 'route4-test-3-1', 'route4-test-3-2'];
    const played = [{ taskId: ids[2], success: true }, { taskId: ids[0], success: false }, { taskId: ids[1], success: true }];
    expect(inTaskOrder(played, ids, 'm').map((e) => e.taskId)).toEqual(ids);
    expect(() => inTaskOrder([played[0], played[1], { taskId: 'route4-test-4-1', success: true }], ids, 'merge ties on route4')).toThrow(/merge ties on route4: an episode of task route4-test-4-1, which is not among the 3 tasks/);
    expect(() => inTaskOrder([played[0], played[0], played[1]], ids, 'm')).toThrow(/task route4-test-3-2 was evaluated twice/);
    expect(() => inTaskOrder(played.slice(0, 2), ids, 'm')).toThrow(/no episode of task route4-test-3-1 \(task 1\)/);
    expect(() => inTaskOrder(played, [ids[0], ids[0], ids[1]], 'm')).toThrow(/do not have distinct ids/);
  });

  it("the paired table: each row's success minus its own specialist's, task by task, with Newcombe's interval", () => {
    const cell = (outcomes: string) => cellOfValues([...outcomes].map((o) => ({ success: o === '1', total: Number(o), components: {} })));
    const old = (outcomes: string) => {
      const { outcomes: _, ...c } = cell(outcomes); // a cell saved before outcomes were recorded
      return c;
    };
    const rows: MergeTableRow[] = [
      { label: 'base (shared SFT)', kind: 'base', cells: { a: old('0000000000'), b: old('0000000000') } },
      { label: 'specialist a', kind: 'specialist', cells: { a: cell('1100101011'), b: cell('0000000000') } },
      { label: 'specialist b', kind: 'specialist', cells: { a: cell('0000000000'), b: cell('1111111110') } },
      { label: 'multi-task', kind: 'multi-task', cells: { a: old('1100101011'), b: cell('1111111110') } },
      { label: 'merge ties', kind: 'merge', cells: { a: cell('1101101110'), b: cell('0111111111') } },
      { label: 'do nothing', kind: 'baseline', cells: { a: cell('0000000000') } },
    ];
    const r = {
      split: 'test', seed: 1, n: 10, taskSets: ['a', 'b'], methods: ['ties'], scaleProbe: [], rows, tuning: [], evaluations: [],
      compute: { specialists: 0, multiTask: 0 }, seconds: { specialistsRun: 0, multiTaskRun: 0, merges: 0 },
      specialists: { stage: 0, base: new Map(), models: [] }, multiTask: new Map(), merged: new Map(),
    } as MergeTableResult;
    const md = formatMergeTableMarkdown(r);
    // computed apart (Python, Newcombe method 10): a: merge 1101101110 vs 1100101011 → (a, b, c, d) = (5, 2, 1, 2): +10.0 [−25.6, +42.4];
    // b: 0111111111 vs 1111111110 → (8, 1, 1, 0): +0.0 [−32.4, +32.4]; multi-task on b, the specialist's own outcomes → (9, 0, 0, 1): [−27.8, +27.8]
    expect(md).toContain('| merge ties | +10.0 [−25.6, +42.4] (2/1 discordant) | +0.0 [−32.4, +32.4] (1/1 discordant) |');
    expect(md).toContain('| multi-task | – | +0.0 [−27.8, +27.8] (0/0 discordant) |');
    expect(md).toContain('| base (shared SFT) | – | – |');
    expect(md).not.toContain('| do nothing | –'); // baselines are not weighed against the specialists
    // the mean-reward gap table is unchanged: merge ties on a 0.7 − 0.6
    expect(md).toContain('| merge ties | 0.100 | 0.000 |');
  });

  it("the target pick on test: its method's row when it is that method's choice, else merged and scored apart; the line reads the test gaps", async () => {
    const cell = (o: string) => cellOfValues([...o].map((x) => ({ success: x === '1', total: Number(x), components: {} })));
    const rows: MergeTableRow[] = [
      { label: 'specialist a', kind: 'specialist', cells: { a: cell('1100101011'), b: cell('0000000000') } },
      { label: 'specialist b', kind: 'specialist', cells: { a: cell('0000000000'), b: cell('1111111110') } },
      { label: 'merge ties', kind: 'merge', cells: { a: cell('1101101110'), b: cell('0111111111') }, digest: 'abcd0123' },
    ];
    const score = { reward: 0, success: 0, n: 4, cells: {} };
    const tuning = [{ method: 'ties', chosen: { lambda: 1, density: 0.5 }, score, candidates: [], splits: [], episodes: 0 }];
    const pick = { method: 'ties', hyper: { lambda: 1, density: 0.5 }, rewardGaps: { a: 0.05, b: -0.01 }, successGaps: { a: 0, b: -0.25 }, worstReward: -0.01, worstSuccess: -0.25, n: 4 };
    let apart = 0;
    const scoreApart = async () => {
      apart++;
      return { cells: { a: cell('1000000000'), b: cell('1111111111') }, digest: 'ffff0000' };
    };
    const same = await targetPickOnTest(pick, tuning, rows, scoreApart);
    expect(same).toEqual({ cells: rows[2].cells, row: 'merge ties', digest: 'abcd0123' });
    expect(apart).toBe(0);
    const other = { ...pick, hyper: { lambda: 0.5, density: 0.5 } };
    const merged = await targetPickOnTest(other, tuning, rows, scoreApart);
    expect(merged).toMatchObject({ row: null, digest: 'ffff0000' });
    expect(apart).toBe(1);
    await expect(targetPickOnTest({ ...pick, method: 'slerp' }, tuning, rows, scoreApart)).rejects.toThrow(/target pick's method slerp was not tuned/);
    // test gaps by hand: the row a 7/10 − 6/10 = +10.0, b 9/10 − 9/10 = +0.0 → met; apart a 1/10 − 6/10 = −50.0, b 10/10 − 9/10 = +10.0 → not met
    expect(formatTargetPick(rows, { ...pick, ...same, specialistValidation: {} }, ['a', 'b'])).toBe(
      "Validation's target pick (every candidate of every method; criterion: the worst task set's validation mean reward minus its own specialist's, then the same in success): **merge ties (λ 1, density 0.5)** — the row 'merge ties'; on validation (n = 4) reward minus the own specialist's a +0.050, b −0.010, success a +0.0, b −25.0 points. On test, success minus the own specialist's: a +10.0, b +0.0 points → the target is **met**.",
    );
    expect(formatTargetPick(rows, { ...other, ...merged, specialistValidation: {} }, ['a', 'b'])).toContain("**merge ties (λ 0.5, density 0.5)** — merged and scored on test apart (not a row); on validation (n = 4) reward minus the own specialist's a +0.050, b −0.010, success a +0.0, b −25.0 points. On test, success minus the own specialist's: a −50.0, b +10.0 points → the target is **not met**.");
  });

  it('refuses a config without specialists and a method that cannot merge that many', () => {
    const plain = parsePipelineConfig({ ...config, stages: [SFT] });
    expect(() => mergeTableConfigs(plain, ['ties'], 2)).toThrow(/trains no specialists/);
    const three = parsePipelineConfig({ ...config, tasks: [ROUTE4, ROUTE8, { ...ROUTE4, level: 'bfcl' }] });
    expect(() => mergeTableConfigs(three, ['slerp'], 2)).toThrow(/slerp merges at most 2 models; the task mix gives 3/);
    expect(() => mergeTableConfigs(config, ['soup'], 2)).toThrow(/unknown merge method 'soup'/);
  });
});
