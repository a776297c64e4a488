// --summarize: tables saved apart are combined only when they are one experiment with other seeds.
import { describe, expect, it } from 'vitest';
import { cellOfValues } from '../../src/pipeline/mergeTable';
import { parsePipelineConfig } from '../../src/pipeline/config';
import { mergeExample } from '../../src/pipeline/presets';
import { formatSeedSummary, summarizeSeeds } from '../../src/pipeline/mergeTableSeeds';
import { combineSavedTables, type SavedRun } from './mergeTableFiles';
import { parseMergeTableArgs } from './mergeTableArgs';

const cell = (wins: number) => cellOfValues([0, 1].map((i) => ({ success: i < wins, total: i < wins ? 1 : 0, components: {} })));

/** `init` 'unrecorded': a file written before --out recorded the start weights. */
const run = (seed: number, wins: number, init: SavedRun['init'] | 'unrecorded' = { path: 'CHAIN/E', digest: 'abcd0123' }): SavedRun => ({
  config: parsePipelineConfig({ ...mergeExample(), seed }),
  ...(init === 'unrecorded' ? {} : { init }),
  split: 'test', seed, n: 2, taskSets: ['a'], methods: ['ties'],
  rows: [{ label: 'specialist a', kind: 'specialist', cells: { a: cell(1) } }, { label: 'merge ties', kind: 'merge', cells: { a: cell(wins) } }],
  tuning: [], evaluations: [], compute: { specialists: 0, multiTask: 0 }, seconds: { specialistsRun: 0, multiTaskRun: 0, merges: 0 }, specialists: ['a'],
});
const adapter = 'OpenGL ES llvmpipe';
const single = (r: SavedRun) => ({ adapter, ...r });

describe('merge-table --summarize', () => {
  it('takes one-seed and several-seed files, in seed order, and summarizes them', () => {
    const { runs, notes } = combineSavedTables([
      { file: 'b.json', body: { adapter, runs: [run(3, 2), run(2, 0)], summary: {} } },
      { file: 'a.json', body: single(run(1, 1)) },
    ]);
    expect(runs.map((r) => r.seed)).toEqual([1, 2, 3]);
    expect(notes).toEqual([]);
    const s = summarizeSeeds(runs);
    expect(s.rows[1].gapToSpecialist!.a.perSeed).toEqual([0, -0.5, 0.5]);
  });

  it('refuses runs of another experiment, a seed given twice, and files that are not tables', () => {
    const other = run(2, 1);
    other.config = parsePipelineConfig({ ...other.config, stages: other.config.stages.map((st) => (st.kind === 'sft' ? { ...st, steps: st.steps + 1 } : st)) });
    expect(() => combineSavedTables([{ file: 'a.json', body: single(run(1, 1)) }, { file: 'b.json', body: single(other) }])).toThrow(/b\.json \(seed 2\) has another pipeline config \(seed aside\) than a\.json/);
    expect(() => combineSavedTables([{ file: 'a.json', body: single(run(1, 1)) }, { file: 'b.json', body: { ...single(run(2, 1)), adapter: 'Vulkan' } }])).toThrow(/another adapter/);
    expect(() => combineSavedTables([{ file: 'a.json', body: single(run(1, 1)) }, { file: 'b.json', body: single({ ...run(2, 1), n: 4 }) }])).toThrow(/another n/);
    expect(() => combineSavedTables([{ file: 'a.json', body: single(run(1, 1)) }, { file: 'b.json', body: single(run(2, 1, { path: 'CHAIN/D', digest: 'ffff0000' })) }])).toThrow(/start \(--init\) weights digest/);
    expect(() => combineSavedTables([{ file: 'a.json', body: single(run(1, 1)) }, { file: 'b.json', body: single(run(1, 0)) }])).toThrow(/seed 1 is in a\.json and in b\.json/);
    expect(() => combineSavedTables([{ file: 'x.json', body: [1, 2] }])).toThrow(/x\.json: no "adapter"/);
    expect(() => combineSavedTables([{ file: 'x.json', body: { adapter, runs: [{ seed: 1 }] } }])).toThrow(/x\.json: runs\[0\] lacks/);
    expect(() => combineSavedTables([])).toThrow(/at least one/);
  });

  it('combines tables saved before cells recorded per-task outcomes; their seeds read – in the paired column', () => {
    const withoutOutcomes = (r: SavedRun): SavedRun => ({
      ...r, rows: r.rows.map((x) => ({ ...x, cells: Object.fromEntries(Object.entries(x.cells).map(([set, { outcomes: _, ...c }]) => [set, c])) })),
    });
    const { runs } = combineSavedTables([{ file: 'old.json', body: single(withoutOutcomes(run(1, 1))) }, { file: 'new.json', body: single(run(2, 2)) }]);
    const s = summarizeSeeds(runs);
    expect(s.rows[1].gapToSpecialist!.a.paired[0]).toBeNull();
    // seed 2: merge 11 vs specialist 10 → (a, b, c, d) = (1, 1, 0, 0): +50.0 [−27.3, +90.5] (Newcombe method 10, computed apart)
    expect(formatSeedSummary(s)).toContain('| merge ties | +25.0 [+0.0, +50.0] (+0.0 / +50.0) | – / +50.0 [−27.3, +90.5] |');
    expect(formatSeedSummary(summarizeSeeds([withoutOutcomes(run(1, 1))]))).toContain('| merge ties | +0.0 [+0.0, +0.0] (+0.0) | – |');
  });

  it('says when the start weights could not be checked (files from before they were recorded)', () => {
    const { notes } = combineSavedTables([{ file: 'old.json', body: single(run(1, 1, 'unrecorded')) }, { file: 'new.json', body: single(run(2, 1)) }]);
    expect(notes).toEqual(['old.json does not record the start weights (--init); that every run started from the same weights was not checked']);
  });

  it('--summarize takes only --out', () => {
    expect(parseMergeTableArgs(['--summarize', 'a.json, b.json', '--out', 's.json'])).toMatchObject({ summarize: ['a.json', 'b.json'], out: 's.json' });
    expect(() => parseMergeTableArgs(['--summarize', 'a.json', '--n', '8'])).toThrow(/takes only --out; drop --n/);
    expect(() => parseMergeTableArgs(['--summarize', ' , '])).toThrow(/needs JSON files/);
  });
});
