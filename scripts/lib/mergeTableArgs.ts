// Command line of `npm run merge-table`: which pipeline (the page's "All + merge" example, or a
// config file), its stage sizes, the merge methods, n, and where the table and weights go.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parsePipelineConfig, type PipelineConfig, specialistEntries, type StageConfig } from '../../src/pipeline/config';
import { methodsFor } from '../../src/pipeline/mergeTable';
import { DEFAULT_TUNE_GRID, parseGridList, parseWeightVectors, type TuneGrid } from '../../src/pipeline/mergeTune';
import { mergeExample } from '../../src/pipeline/presets';
import { integerFlag } from '../../src/util/flagValues';

export interface MergeTableArgs {
  config: PipelineConfig;
  methods: string[];
  n: number;
  /** Run seeds: one whole table per seed (the first is config.seed); several → a summary with mean and range. */
  seeds: number[];
  /** --tune: each method's hyper-parameters chosen on n validation tasks per task set from the grid. */
  tune?: { grid: TuneGrid; n: number };
  /** --scale-probe: λ values at which each specialist's own task vector is scored alone (base + λ·τ). */
  scaleProbe?: number[];
  out?: string;
  save?: string;
  /** An HF folder of the config preset's shape (e.g. npm run copy-probe -- --save DIR): the shared stages start from its weights instead of the seeded init. */
  init?: string;
  /** --summarize: JSON files written by --out, summarized over their seeds; nothing is trained. */
  summarize?: string[];
  help: boolean;
}

export const MERGE_TABLE_USAGE = `usage: npm run merge-table -- [options]
  Trains the shared model once, a specialist per task set from it, and the multi-task model (the
  specialist stages on the whole mix, K× the steps) from it too; merges the specialists with each
  method; scores every model on the same test tasks of every task set beside the cheap baselines.
  --config FILE          a pipeline config (JSON, e.g. saved from the page) with specialist stages
                         (default: the page's "All + merge" example: route4 + service status + coding one-liners, nano-q)
  --seed S | --seeds 1,2,3   run seed(s) (default: the config's); several seeds → one table per seed, then
                         per row and task set the mean [min, max] over seeds of success and mean reward
  --shared-sft-steps N   steps of the shared SFT stage (the config's first non-specialist SFT)
  --specialist-sft-steps N   steps of the specialist SFT stage (per specialist)
  --specialist-sft-examples N  verified conversations of the specialist SFT stage (per specialist)
  --grpo-steps N         steps of the specialist GRPO stage (per specialist; 0 drops the stage)
  --methods M[,M]        merge methods (default: every method that takes that many models; slerp takes two)
  --n N                  test tasks per task set (default 16)
  --tune                 choose each merge method's hyper-parameters on the VALIDATION split first (off by
                         default: it costs candidates × task sets × --tune-n greedy episodes), then score the
                         choice on test; criterion: mean reward over task sets, then success, then grid order;
                         the same criterion picks one merge across methods (validation's pick) and the table
                         says whether it is within 2 points of every specialist on its own task set; each
                         specialist is also scored on its own task set's validation tasks, and validation's
                         target pick (any method's candidate whose worst task set is closest to its own
                         specialist on validation) is scored on test beside it
  --tune-n N             validation tasks per task set per candidate (default: half of --n, rounded up)
  --tune-lambda L[,L]    λ grid for task-arithmetic, ties, dare-linear, dare-ties (default 0.3,0.5,0.7,1)
  --tune-density D[,D]   density grid for ties, dare-linear, dare-ties (default 0.3,0.5,0.7)
  --tune-weights W,W[;W,W]  per-specialist weight vectors (one weight per specialist in task-mix order,
                         vectors separated by ';', e.g. "1,1;0.5,1;1,0.5") tried by linear, task-arithmetic,
                         ties, dare-linear and dare-ties, outermost in the grid (default: the weights as
                         configured; each vector multiplies those methods' candidates)
  --tune-t T[,T]         t grid for slerp (default 0.3,0.5,0.7); ram (and linear without --tune-weights) has
                         nothing to tune and is scored once, as configured, so that validation's pick sees every method
  --scale-probe L[,L]    also score each specialist's own task vector alone at scale λ (base + λ·τ) on test:
                         does its skill survive the ~1/K scale an averaging merge of K specialists gives it?
  --out FILE             write the table as JSON (several seeds: {runs: one table per seed, summary}; rewritten
                         after every seed, so a stopped run keeps the seeds it finished)
  --init DIR             start the shared stages from the weights in DIR (config.json + model.safetensors of the
                         config's preset shape, e.g. npm run copy-probe -- --save DIR) instead of the seeded init;
                         with no shared training stage, DIR's model is the base the specialists start from
  --save DIR             the shared model (DIR/base), each specialist (DIR/<family>-<level>) and the multi-task
                         model (DIR/multi-task) as HF folders, for npm run merge
  --summarize A.json[,B.json]  train nothing: the summary over seeds of tables saved with --out (seeds run
                         apart), refused unless they are one experiment (adapter, config but its seed,
                         methods, n, tuning, start weights) with distinct seeds; with --out, writes it as JSON`;

const count = (flag: string, v: string, min: number) => integerFlag(flag, v, { min });

export function parseMergeTableArgs(argv: readonly string[]): MergeTableArgs {
  const { values: v, tokens } = parseArgs({
    args: [...argv], strict: true, allowPositionals: false, tokens: true,
    options: {
      config: { type: 'string' }, seed: { type: 'string' }, seeds: { type: 'string' }, tune: { type: 'boolean' }, 'tune-n': { type: 'string' },
      'tune-lambda': { type: 'string' }, 'tune-density': { type: 'string' }, 'tune-t': { type: 'string' }, 'tune-weights': { type: 'string' }, 'scale-probe': { type: 'string' }, 'shared-sft-steps': { type: 'string' }, 'specialist-sft-steps': { type: 'string' },
      'specialist-sft-examples': { type: 'string' }, 'grpo-steps': { type: 'string' }, methods: { type: 'string' }, n: { type: 'string' },
      out: { type: 'string' }, save: { type: 'string' }, init: { type: 'string' }, summarize: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  const seen = new Set<string>();
  for (const t of tokens ?? []) {
    if (t.kind !== 'option') continue;
    if (seen.has(t.name)) throw new Error(`--${t.name} is given twice; give it once`);
    seen.add(t.name);
  }
  if (v.summarize !== undefined) {
    const others = [...seen].filter((f) => f !== 'summarize' && f !== 'out');
    if (others.length) throw new Error(`--summarize trains nothing and takes only --out; drop --${others[0]}`);
    const files = v.summarize.split(',').map((f) => f.trim()).filter((f) => f.length > 0);
    if (files.length === 0) throw new Error('--summarize needs JSON files (comma-separated) written by --out');
    return { config: mergeExample(), methods: [], n: 0, seeds: [], summarize: files, ...(v.out !== undefined ? { out: v.out } : {}), help: false };
  }
  let config = v.config === undefined ? mergeExample() : parsePipelineConfig(JSON.parse(readFileSync(v.config, 'utf8')));
  const args: MergeTableArgs = { config, methods: [], n: 16, seeds: [config.seed], help: v.help === true };
  if (args.help) return args;
  let stages: StageConfig[] = [...config.stages];
  const replace = (pick: (s: StageConfig) => boolean, flag: string, change: (s: StageConfig) => StageConfig | null) => {
    const i = stages.findIndex(pick);
    if (i < 0) throw new Error(`--${flag}: the config has no such stage`);
    const next = change(stages[i]);
    stages = next ? stages.map((s, j) => (j === i ? next : s)) : stages.filter((_, j) => j !== i);
  };
  const sharedSft = (s: StageConfig) => s.kind === 'sft' && !s.specialists;
  const specialistSft = (s: StageConfig) => s.kind === 'sft' && s.specialists === true;
  if (v['shared-sft-steps'] !== undefined) replace(sharedSft, 'shared-sft-steps', (s) => ({ ...s, steps: count('shared-sft-steps', v['shared-sft-steps']!, 1) }) as StageConfig);
  if (v['specialist-sft-steps'] !== undefined) replace(specialistSft, 'specialist-sft-steps', (s) => ({ ...s, steps: count('specialist-sft-steps', v['specialist-sft-steps']!, 1) }) as StageConfig);
  if (v['specialist-sft-examples'] !== undefined) {
    replace(specialistSft, 'specialist-sft-examples', (s) => {
      if (s.kind !== 'sft' || s.data.source !== 'synthetic') throw new Error('--specialist-sft-examples: the specialist SFT stage reads a file, not synthetic conversations');
      return { ...s, data: { ...s.data, examples: count('specialist-sft-examples', v['specialist-sft-examples']!, 1) } };
    });
  }
  if (v['grpo-steps'] !== undefined) {
    const steps = count('grpo-steps', v['grpo-steps'], 0);
    replace((s) => s.kind === 'grpo' && s.specialists === true, 'grpo-steps', (s) => (steps === 0 ? null : { ...s, steps }) as StageConfig | null);
  }
  if (v.seed !== undefined && v.seeds !== undefined) throw new Error('give --seed or --seeds, not both');
  if (v.seed !== undefined) args.seeds = [count('seed', v.seed, 0)];
  if (v.seeds !== undefined) {
    args.seeds = v.seeds.split(',').map((x) => count('seeds', x, 0));
    if (new Set(args.seeds).size !== args.seeds.length) throw new Error(`--seeds ${v.seeds}: a seed is listed twice`);
  }
  config = parsePipelineConfig({ ...config, stages, seed: args.seeds[0] });
  args.config = config;
  args.methods = v.methods === undefined ? methodsFor(specialistEntries(config).length) : v.methods.split(',').map((m) => m.trim());
  if (v.n !== undefined) args.n = count('n', v.n, 1);
  const tuneFlags = (['tune-n', 'tune-lambda', 'tune-density', 'tune-t', 'tune-weights'] as const).filter((f) => v[f] !== undefined);
  if (v.tune !== true && tuneFlags.length) throw new Error(`--${tuneFlags[0]} sets up tuning: add --tune`);
  if (v.tune === true) {
    args.tune = {
      n: v['tune-n'] === undefined ? Math.ceil(args.n / 2) : count('tune-n', v['tune-n'], 1),
      grid: {
        lambda: v['tune-lambda'] === undefined ? DEFAULT_TUNE_GRID.lambda : parseGridList('tune-lambda', v['tune-lambda'], -100, 100),
        density: v['tune-density'] === undefined ? DEFAULT_TUNE_GRID.density : parseGridList('tune-density', v['tune-density'], 0, 1, true),
        t: v['tune-t'] === undefined ? DEFAULT_TUNE_GRID.t : parseGridList('tune-t', v['tune-t'], 0, 1),
        ...(v['tune-weights'] === undefined ? {} : { weights: parseWeightVectors('tune-weights', v['tune-weights'], specialistEntries(config).length) }),
      },
    };
  }
  if (v['scale-probe'] !== undefined) {
    args.scaleProbe = parseGridList('scale-probe', v['scale-probe'], -100, 100);
  }
  if (v.out !== undefined) args.out = v.out;
  if (v.save !== undefined) args.save = v.save;
  if (v.init !== undefined) {
    if (v.init.trim() === '') throw new Error('--init needs a folder path');
    args.init = v.init;
  }
  return args;
}
