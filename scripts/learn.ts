// `npm run learn -- --family function-calling|service|coding|all [options]`: the pipeline (SFT on a
// fixed set of verified expert trajectories → GRPO → evaluations) in Node on Dawn's OpenGL ES adapter
// (llvmpipe, the fastest software adapter here), per seed, with the SFT-only arm that spends GRPO's
// compute on more SFT instead. Prints TEST success before SFT (with --eval-before), after SFT, after
// GRPO and SFT-only, with Wilson intervals and the cheap baselines; writes curves as JSONL (--out).
// The last stdout line is one JSON object: {"family", "split": "test", "n", "seed", "before_sft",
// "after_sft", "after_grpo", "sft_only_same_compute", "baselines"} (rates in 0…1; several seeds: means,
// with per-seed values and ranges besides).
// Run through the WGSL loader: tsx --import ./scripts/lib/wgslLoader.mjs scripts/learn.ts …
import { appendFileSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { acquireDevice, describeContext } from '../src/gpu/device';
import { nodeGpu } from '../src/gpu/nodeGpu';
import { GpuRuntime } from '../src/gpu/runtime';
import { PRESETS } from '../src/model/config';
import { DiskBackend } from '../src/storage/diskBackend';
import { exportFiles } from '../src/storage/export/exportModel';
import { writeFolder } from '../src/storage/hfFolder';
import { resumePipeline } from '../src/pipeline/resume';
import { tokenizerForModel } from '../src/tokenizer';
import { taskSetName } from '../src/envs/taskMix';
import { runSftRlComparison } from '../src/pipeline/comparison';
import type { EvalSummary, TaskSetEval } from '../src/pipeline/evalSummary';
import { formatRate } from '../src/eval/report';
import { learningConfig } from '../src/pipeline/presets';
import { type PipelineHooks, type PipelineOptions, runPipeline, trainingShape } from '../src/pipeline/runner';
import { assertConfigFits } from '../src/model/fit';
import { toJsonlLine } from '../src/train/rl/rlMetrics';
import { LEARN_USAGE, parseLearnArgs } from './lib/learnArgs';

const log = (line: string) => console.log(`[learn] ${line}`);

/** What one seed's run reports (test split, the run's first task set). */
interface SeedResult {
  seed: number;
  n: number;
  before_sft: number | null;
  after_sft: number;
  after_grpo: number;
  sft_only_same_compute: number | null;
  baselines: Record<string, number>;
  /** The --eval-also task sets: success after SFT / after GRPO / SFT-only, and the best baseline's. */
  also?: Record<string, { after_sft: number | null; after_grpo: number | null; sft_only_same_compute: number | null; best_baseline: number | null }>;
}

function bestRate(bs: readonly { success: { rate: number } }[]): number | null {
  return bs.length ? Math.max(...bs.map((b) => b.success.rate)) : null;
}

function firstSet(s: EvalSummary | undefined) {
  return s?.taskSets[0];
}

function checkOutputPaths(out: string | undefined, save: string | undefined): void {
  if (out && !existsSync(dirname(out) || '.')) throw new Error(`--out ${out}: the folder ${dirname(out)} does not exist`);
  if (out && existsSync(out) && statSync(out).isDirectory()) throw new Error(`--out ${out} is a folder; give a file name`);
  if (save && existsSync(save) && !statSync(save).isDirectory()) throw new Error(`--save ${save} is a file; give a folder`);
}

async function main(): Promise<number> {
  const args = parseLearnArgs(process.argv.slice(2));
  if (args.help) {
    console.log(LEARN_USAGE);
    return 0;
  }
  if (args.printConfig) {
    console.log(JSON.stringify(learningConfig(args.options), null, 2));
    return 0;
  }
  checkOutputPaths(args.out, args.save);
  const ctx = await acquireDevice({ gpu: nodeGpu('opengles'), featureLevel: 'compatibility' });
  const rt = new GpuRuntime(ctx);
  log(`adapter: ${describeContext(ctx)}`);
  if (args.out) writeFileSync(args.out, '');
  const write = (obj: unknown): void => {
    if (args.out) appendFileSync(args.out, `${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n`);
  };
  const results: SeedResult[] = [];
  const t0 = performance.now();
  for (const seed of args.seeds) {
    const cfg = learningConfig({ ...args.options, seed });
    log(`seed ${seed}: ${cfg.tasks.map((t) => taskSetName(t)).join(' + ')}, preset ${cfg.preset}`);
    // refuse before training when the largest batch does not fit the adapter (e.g. SFT rows × logits)
    const shape = trainingShape(cfg);
    log(assertConfigFits(ctx, PRESETS[cfg.preset], { batch: shape.batch, seqLen: shape.seqLen, optimizer: 'adamw', weightDtype: 'f32', referenceCopy: shape.referenceCopy }, { label: `preset ${cfg.preset}` }).summary);
    write({ kind: 'config', seed, config: cfg });
    const hooks: PipelineHooks = {
      log: (line) => log(`[seed ${seed}] ${line}`),
      onSftData: (stage, report) => write({ kind: 'sft-data', seed, stage, ...report }),
      onSft: (stage, m) => write({ kind: 'sft', seed, stage, ...m }),
      onRlStep: (stage, r) => write(toJsonlLine(r).replace(/^\{/, `{"kind":"grpo","seed":${seed},"stage":${stage},`)),
      onEval: (stage, s) => write({ kind: 'eval', seed, stage, ...s }),
      onCurve: (stage, step, s) => write({ kind: 'curve', seed, stage, step, ...s }),
    };
    const label = (s: EvalSummary) => `${s.label}: ${s.taskSets.map((t) => `${t.taskSet} ${formatRate(t.model.success)} (n = ${t.model.n})`).join(', ')}`;
    let evals: EvalSummary[];
    let sftOnly: EvalSummary | undefined;
    let weights: Map<string, Float32Array>;
    const dir = args.save && args.seeds.length > 1 ? join(args.save, `seed-${seed}`) : args.save;
    const opts: PipelineOptions = {};
    if (dir && !args.compare) opts.checkpoints = { store: new DiskBackend(join(dir, 'checkpoints')), every: args.saveEvery, keepLast: args.keep, onSaved: (s) => log(`[seed ${seed}] checkpoint ${s.id} (${(s.bytes / 1e6).toFixed(1)} MB, training paused ${s.captureSeconds.toFixed(2)} s)`) };
    if (dir && args.compare) log(`[seed ${seed}] --save with the SFT-only comparison: only the final weights are saved (checkpoints to resume from need --no-compare)`);
    if (args.resume) {
      const found = await resumePipeline(rt, new DiskBackend(join(args.resume, 'checkpoints')), cfg);
      if (!found) throw new Error(`--resume ${args.resume}: no complete checkpoint in ${join(args.resume, 'checkpoints')} (a run saves them with --save DIR --no-compare)`);
      for (const note of found.notes) log(`[seed ${seed}] ${note}`);
      log(`[seed ${seed}] resuming from checkpoint ${found.id}: stage ${found.stage} (${cfg.stages[found.stage].kind}) after step ${found.step}`);
      Object.assign(opts, { initial: found.point.initial, resume: found.point });
    }
    if (args.compare && cfg.stages.some((s) => s.kind === 'grpo') && args.options.rlSteps > 0) {
      const r = await runSftRlComparison(rt, cfg, hooks, opts);
      evals = [...r.prefix.evals, ...r.rl.evals];
      sftOnly = r.sftOnly.evals.at(-1);
      weights = r.finalWeights;
      log(`[seed ${seed}] SFT-only arm: ${r.sftSteps} more SFT steps = ${(r.sftCompute / 1e6).toFixed(1)} M forward-token-equivalents (GRPO used ${(r.grpoCompute / 1e6).toFixed(1)} M)`);
      write({ kind: 'compute', seed, grpo: r.grpoCompute, sftOnly: r.sftCompute, sftOnlySteps: r.sftSteps });
    } else {
      const r = await runPipeline(rt, cfg, hooks, opts);
      evals = r.evals;
      weights = await r.weights.download();
      r.weights.destroy();
    }
    for (const s of [...evals, ...(sftOnly ? [sftOnly] : [])]) log(`[seed ${seed}] ${label(s)}`);
    const find = (l: string) => firstSet(evals.find((e) => e.label === l));
    const afterSft = find('after SFT');
    const afterGrpo = find('after GRPO');
    for (const l of ['after SFT', 'after GRPO']) for (const t of evals.find((e) => e.label === l)?.taskSets ?? []) console.log(t.table);
    const rate = (t: TaskSetEval | undefined) => t?.model.success.rate ?? null;
    const result: SeedResult = {
      seed, n: afterSft?.model.n ?? 0, before_sft: rate(find('before SFT')), after_sft: rate(afterSft) ?? 0, after_grpo: rate(afterGrpo) ?? 0,
      sft_only_same_compute: rate(firstSet(sftOnly)), baselines: Object.fromEntries((afterSft?.baselines ?? []).map((b) => [b.label, b.success.rate])),
    };
    const others = (evals.find((e) => e.label === 'after SFT')?.taskSets ?? []).slice(1).map((t) => t.taskSet);
    if (others.length) {
      const setIn = (s: EvalSummary | undefined, name: string) => s?.taskSets.find((t) => t.taskSet === name);
      const at = (l: string, name: string) => setIn(evals.find((e) => e.label === l), name);
      result.also = Object.fromEntries(others.map((name) => [name, {
        after_sft: rate(at('after SFT', name)), after_grpo: rate(at('after GRPO', name)), sft_only_same_compute: rate(setIn(sftOnly, name)),
        best_baseline: bestRate(at('after SFT', name)?.baselines ?? []),
      }]));
    }
    results.push(result);
    if (dir) {
      const tok = await tokenizerForModel(PRESETS[cfg.preset]);
      await writeFolder(join(dir, 'final'), exportFiles({ cfg: PRESETS[cfg.preset], params: weights, ids: { eosId: tok.imEndId, padId: tok.padId } }, 'hf'));
      log(`[seed ${seed}] saved the final weights as an HF folder in ${join(dir, 'final')}`);
    }
  }
  log(`time: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  console.log(JSON.stringify(summaryLine(args.family, results, args.options.evalSplit ?? 'test')));
  return 0;
}

/** The last line: one seed as is; several seeds as means, with per-seed values and ranges. */
function summaryLine(family: string, rs: SeedResult[], split: string): Record<string, unknown> {
  if (rs.length === 1) return { family, split, ...rs[0] };
  const mean = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : xs.reduce<number>((a, x) => a + (x as number), 0) / xs.length);
  const range = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : [Math.min(...(xs as number[])), Math.max(...(xs as number[]))]);
  const keys = ['before_sft', 'after_sft', 'after_grpo', 'sft_only_same_compute'] as const;
  const names = Object.keys(rs[0].baselines);
  return {
    family, split, n: rs[0].n, seed: rs.map((r) => r.seed),
    ...Object.fromEntries(keys.map((k) => [k, mean(rs.map((r) => r[k]))])),
    baselines: Object.fromEntries(names.map((b) => [b, mean(rs.map((r) => r.baselines[b] ?? null))])),
    range: Object.fromEntries(keys.map((k) => [k, range(rs.map((r) => r[k]))])),
    per_seed: rs,
  };
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);

