// The merge table (mergeTable.ts) end to end on the micro model (Node WebGPU, 1–2 steps, n = 2):
// its rows and columns, each merged row's weights equal to the merge method applied to the
// specialists (and those are the weights its evaluation ran on: the digest), the multi-task model
// trained with the specialists' compute in total, and the same table again from the same seed.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { initialWeights } from '../model/weights';
import { MERGE_METHODS, mergeOptions } from '../train/merge/methods';
import { MICRO_MODEL } from '../train/testing/microModel';
import { PIPELINE_CONFIG_VERSION, parsePipelineConfig } from './config';
import { mergeTableConfigs, runMergeTable, weightsDigest } from './mergeTable';
import { formatMergeTableMarkdown, mergeTableJson } from './mergeTableFormat';
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
    const run = () => runMergeTable(rt, { config, methods: ['ties', 'linear'], n: 2, onRow: (x) => void seen.push(x.label) }, { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 3) });
    const r = await run();
    const models = r.rows.filter((x) => x.kind !== 'baseline');
    expect(seen).toEqual(models.map((x) => x.label)); // each model row reported as soon as it is scored
    expect(models.map((x) => x.label)).toEqual(['base (shared SFT)', 'specialist function-calling/route4', 'specialist function-calling/route8', 'multi-task', 'merge ties', 'merge linear']);
    expect(r.rows.filter((x) => x.kind === 'baseline').length).toBeGreaterThan(0);
    for (const x of models) {
      expect(Object.keys(x.cells)).toEqual(SETS);
      for (const c of Object.values(x.cells)) {
        expect(c.n).toBe(2);
        expect(c.success.n).toBe(2);
        expect(c.reward.lo).toBeLessThanOrEqual(c.reward.mean);
        expect(c.reward.hi).toBeGreaterThanOrEqual(c.reward.mean);
        expect(Object.keys(c.components).length).toBeGreaterThan(0);
      }
    }

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
    const digests = models.map((x) => x.digest);
    expect(new Set(digests).size).toBe(digests.length); // six different models: every specialist moved, no merge returned an input

    // the multi-task model: the specialist stage on the mix with 2× the steps, about the specialists' compute in total
    expect(r.compute.multiTask / r.compute.specialists).toBeGreaterThan(0.8);
    expect(r.compute.multiTask / r.compute.specialists).toBeLessThan(1.25);

    const md = formatMergeTableMarkdown(r);
    expect(md).toContain('| model | function-calling/route4 whole-task success | function-calling/route4 reward | function-calling/route8 whole-task success | function-calling/route8 reward |');
    expect(md).toContain('| merge linear |');

    // same seed → same table
    const again = await run();
    expect(mergeTableJson({ ...again, seconds: r.seconds }).rows).toEqual(mergeTableJson(r).rows);
  }, 180_000);

  it('--tune: each candidate scored on validation only, the best by mean validation reward merged and scored on test', async () => {
    const rt = await testRuntime('opengles');
    const grid = { lambda: [0.5, 1], density: [0.5], t: [0.5] };
    const r = await runMergeTable(rt, { config, methods: ['task-arithmetic', 'linear'], n: 2, tune: { grid, n: 1 } }, { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 3) });
    expect(r.tuning.map((t) => t.method)).toEqual(['task-arithmetic']); // linear has nothing to tune
    const [t] = r.tuning;
    expect(t.candidates.map((c) => c.hyper)).toEqual([{ lambda: 0.5 }, { lambda: 1 }]);
    for (const c of t.candidates) for (const cell of Object.values(c.score.cells)) expect(cell.n).toBe(1);
    const best = t.candidates.reduce((b, c) => (c.score.reward > b.score.reward || (c.score.reward === b.score.reward && c.score.success > b.score.success) ? c : b));
    expect(t.chosen).toEqual(best.hyper);
    // the splits: the tuner asked for validation only; every tuning run was a validation run and came before the method's test run
    expect(t.splits).toEqual(['validation', 'validation']);
    const tuneRuns = r.evaluations.filter((e) => e.what.startsWith('tune '));
    expect(tuneRuns).toEqual([{ what: 'tune task-arithmetic', split: 'validation', n: 1 }, { what: 'tune task-arithmetic', split: 'validation', n: 1 }]);
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
    expect(r.rows.find((x) => x.label === 'merge linear')!.tuning).toBeUndefined();
    const md = formatMergeTableMarkdown(r);
    expect(md).toContain(`| merge task-arithmetic (λ ${t.chosen.lambda}; validation reward ${t.score.reward.toFixed(3)}) |`);
    expect(md).toContain('Cost: 2 candidate evaluations, 4 validation episodes.');
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

  it('refuses a config without specialists and a method that cannot merge that many', () => {
    const plain = parsePipelineConfig({ ...config, stages: [SFT] });
    expect(() => mergeTableConfigs(plain, ['ties'], 2)).toThrow(/trains no specialists/);
    const three = parsePipelineConfig({ ...config, tasks: [ROUTE4, ROUTE8, { ...ROUTE4, level: 'bfcl' }] });
    expect(() => mergeTableConfigs(three, ['slerp'], 2)).toThrow(/slerp merges at most 2 models; the task mix gives 3/);
    expect(() => mergeTableConfigs(config, ['soup'], 2)).toThrow(/unknown merge method 'soup'/);
  });
});
