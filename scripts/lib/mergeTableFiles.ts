// `npm run merge-table -- --summarize A.json,B.json`: the summary over seeds from tables that were run
// apart (another day, another machine, one seed per process) and saved with --out. Why: a table costs
// ~30 min a seed here, and a seed already run should not be run again to get the mean over seeds.
// Runs line up only when they are the same experiment with another seed: the same adapter, the same
// pipeline config apart from its seed, the same methods, n, task sets, tuning set-up and start weights — anything else is refused
// with the file and the field that differ, since a mean over different experiments reads as one.
import type { PipelineConfig } from '../../src/pipeline/config';
import type { MergeTableJson } from '../../src/pipeline/mergeTableFormat';

/** One seed's table as --out writes it, with the config and the start weights it ran with. */
export type SavedRun = MergeTableJson & {
  config: PipelineConfig;
  /** --init: the folder and a digest of its weights (weightsDigest); null for the seeded init. Absent in files written before it was recorded. */
  init?: { path: string; digest: string } | null;
};

/** What --out writes: one seed `{adapter, config, …table}`, or several `{adapter, runs, summary}`. */
export function runsOfSavedTable(file: string, body: unknown): { adapter: string; runs: SavedRun[] } {
  const fail = (what: string): never => {
    throw new Error(`--summarize ${file}: ${what}; give JSON written by npm run merge-table -- --out`);
  };
  if (typeof body !== 'object' || body === null) return fail('not a JSON object');
  const b = body as Record<string, unknown>;
  if (typeof b.adapter !== 'string') return fail('no "adapter"');
  const list = Array.isArray(b.runs) ? b.runs : [b];
  const runs = list.map((r, i) => {
    const x = r as Partial<SavedRun>;
    const where = Array.isArray(b.runs) ? `runs[${i}]` : 'the table';
    if (typeof x !== 'object' || x === null || typeof x.seed !== 'number' || typeof x.n !== 'number' || !Array.isArray(x.rows) || !Array.isArray(x.taskSets) || !Array.isArray(x.methods) || typeof x.config !== 'object') {
      return fail(`${where} lacks seed, n, rows, taskSets, methods or config`);
    }
    return x as SavedRun;
  });
  return { adapter: b.adapter, runs };
}

/** The config as a string with its seed left out: two runs of one experiment give the same string. */
const configWithoutSeed = (c: PipelineConfig) => JSON.stringify({ ...c, seed: undefined });
/** The tuning set-up (per method: candidates and validation n), or "untuned". */
const tuningSetup = (r: SavedRun) => (r.tuning.length ? r.tuning.map((t) => `${t.method} ${t.candidates.length} candidates on n ${t.score.n}`).join('; ') : 'untuned');

/**
 * Every file's runs in seed order, checked to be one experiment with distinct seeds. `notes` says what
 * could not be checked (the start weights of files written before --out recorded them).
 */
export function combineSavedTables(files: readonly { file: string; body: unknown }[]): { adapter: string; runs: SavedRun[]; notes: string[] } {
  if (files.length === 0) throw new Error('--summarize: give at least one JSON file');
  const all = files.flatMap(({ file, body }) => {
    const { adapter, runs } = runsOfSavedTable(file, body);
    return runs.map((run) => ({ file, adapter, run }));
  });
  const [first] = all;
  const seen = new Map<number, string>();
  for (const { file, adapter, run } of all) {
    const differs = (field: string, a: string, b: string) => {
      if (a !== b) throw new Error(`--summarize: ${file} (seed ${run.seed}) has another ${field} than ${first.file} (seed ${first.run.seed}): ${a} vs ${b}; a summary over seeds needs one experiment run with other seeds`);
    };
    differs('adapter', adapter, first.adapter);
    differs('pipeline config (seed aside)', configWithoutSeed(run.config), configWithoutSeed(first.run.config));
    differs('method list', run.methods.join(','), first.run.methods.join(','));
    differs('n', String(run.n), String(first.run.n));
    differs('scale probe', (run.scaleProbe ?? []).join(','), (first.run.scaleProbe ?? []).join(','));
    differs('task sets', run.taskSets.join(','), first.run.taskSets.join(','));
    differs('tuning set-up', tuningSetup(run), tuningSetup(first.run));
    if (run.init !== undefined && first.run.init !== undefined) differs('start (--init) weights digest', run.init?.digest ?? 'seeded init', first.run.init?.digest ?? 'seeded init');
    const before = seen.get(run.seed);
    if (before !== undefined) throw new Error(`--summarize: seed ${run.seed} is in ${before} and in ${file}; give each seed once`);
    seen.set(run.seed, file);
  }
  const unrecorded = [...new Set(all.filter((x) => x.run.init === undefined).map((x) => x.file))];
  const notes = unrecorded.length ? [`${unrecorded.join(', ')} do${unrecorded.length === 1 ? 'es' : ''} not record the start weights (--init); that every run started from the same weights was not checked`] : [];
  return { adapter: first.adapter, runs: all.map((x) => x.run).sort((a, b) => a.seed - b.seed), notes };
}
