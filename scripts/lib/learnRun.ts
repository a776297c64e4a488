// What `npm run learn` does once its flags are parsed (scripts/learn.ts holds the process around it):
// per seed, the pipeline on a preset's seeded init — or, with --model, on a loaded HF Qwen3 folder
// (an f16 base with LoRA adapters, its own tokenizer; src/pipeline/loadModel.ts) — with the SFT-only
// comparison arm, JSONL of every step, the final weights saved, and the last line's JSON object.
// A function of (runtime, args, io), so a test runs the CLI's path on its own device.
import { appendFileSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GpuRuntime } from '../../src/gpu/runtime';
import { PRESETS } from '../../src/model/config';
import { readPresetFolder } from './presetFolder';
import { folderSource } from '../../src/model/hfFolderNode';
import { DiskBackend } from '../../src/storage/diskBackend';
import { exportFiles } from '../../src/storage/export/exportModel';
import { writeFolder } from '../../src/storage/hfFolder';
import { resumePipeline } from '../../src/pipeline/resume';
import { tokenizerForModel } from '../../src/tokenizer';
import { taskSetName } from '../../src/envs/taskMix';
import { runSftRlComparison } from '../../src/pipeline/comparison';
import { formatMatchedCurve, matchedCurveRows, type MatchedCurveRow } from '../../src/pipeline/matchedCurve';
import type { EvalSummary, TaskSetEval } from '../../src/pipeline/evalSummary';
import { armDifference, formatArmDifference, pairOutcomes, type PairedOutcomes, pooledArmDifference } from '../../src/pipeline/armDifference';
import { pairedDifference, type PairedDifference } from '../../src/eval/pairedDifference';
import { formatRate } from '../../src/eval/report';
import { type LoadedModel, loadModelForPipeline, loraFor } from '../../src/pipeline/loadModel';
import { learningConfig } from '../../src/pipeline/presets';
import { runPipeline } from '../../src/pipeline/runner';
import type { PipelineHooks, PipelineOptions } from '../../src/pipeline/runnerTypes';
import { trainingShape } from '../../src/pipeline/loopSettings';
import { sampleEpisodes } from '../../src/pipeline/sampleEpisodes';
import { GpuWeights } from '../../src/model/weights';
import { assertConfigFits } from '../../src/model/fit';
import { formatBytes } from '../../src/model/parameters';
import { toJsonlLine } from '../../src/train/rl/rlMetrics';
import { mixSeeds } from '../../src/util/seeds';
import type { LearnArgs } from './learnArgs';

export interface LearnIo {
  /** Progress lines ("[learn] …" on stdout). */
  log: (line: string) => void;
  /** Result lines: the evaluation tables and, last, the summary JSON. */
  print: (line: string) => void;
  /** Sees each seed's trained weights before they are released (tests check what changed). */
  onWeights?: (seed: number, w: GpuWeights) => Promise<void>;
}

/** What one seed's run reports (test split, the run's first task set). */
interface SeedResult {
  seed: number;
  n: number;
  before_sft: number | null;
  after_sft: number;
  /** null when the run had no GRPO stage (--steps 0). */
  after_grpo: number | null;
  sft_only_same_compute: number | null;
  /** After GRPO minus SFT only, paired over the same tasks (Newcombe 95 %; run's first task set); absent without the comparison. */
  grpo_minus_sft_only?: PairedFigure;
  baselines: Record<string, number>;
  /** The --eval-also task sets: success after SFT / after GRPO / SFT-only, and the best baseline's. */
  also?: Record<string, { after_sft: number | null; after_grpo: number | null; sft_only_same_compute: number | null; best_baseline: number | null }>;
}

/** A paired difference as the summary line writes it (rates in 0…1). */
interface PairedFigure {
  diff: number;
  lo: number;
  hi: number;
  n: number;
  /** Tasks solved by the GRPO arm only, by the SFT-only arm only. */
  only_grpo: number;
  only_sft_only: number;
}

const pairedFigure = (d: PairedDifference): PairedFigure => ({ diff: d.diff, lo: d.lo, hi: d.hi, n: d.n, only_grpo: d.onlyX, only_sft_only: d.onlyY });

/** A sample episode longer than this is cut when printed (an untrained model writes up to its token cap per turn). */
const SAMPLE_CHARS = 600;

/** What one seed's --eval-only evaluation reports. */
interface EvalOnlyResult {
  seed: number;
  n: number;
  model: number;
  baselines: Record<string, number>;
}

function bestRate(bs: readonly { success: { rate: number } }[]): number | null {
  return bs.length ? Math.max(...bs.map((b) => b.success.rate)) : null;
}

function firstSet(s: EvalSummary | undefined) {
  return s?.taskSets[0];
}

export function checkOutputPaths(out: string | undefined, save: string | undefined): void {
  if (out && !existsSync(dirname(out) || '.')) throw new Error(`--out ${out}: the folder ${dirname(out)} does not exist`);
  if (out && existsSync(out) && statSync(out).isDirectory()) throw new Error(`--out ${out} is a folder; give a file name`);
  if (save && existsSync(save) && !statSync(save).isDirectory()) throw new Error(`--save ${save} is a file; give a folder`);
}

/** The --model folder as a file source, or an error saying what is wrong with the path. */
async function modelFolder(dir: string) {
  if (!existsSync(dir)) throw new Error(`--model ${dir}: no such folder; give the folder of a Hugging Face Qwen3 model (config.json, *.safetensors, tokenizer.json)`);
  if (!statSync(dir).isDirectory()) throw new Error(`--model ${dir} is a file; give the model's folder (the one holding config.json)`);
  return folderSource(dir);
}

/** Runs every seed; prints the tables and, last, the summary line (also returned). */
export async function runLearn(rt: GpuRuntime, args: LearnArgs, io: LearnIo): Promise<Record<string, unknown>> {
  const { log } = io;
  checkOutputPaths(args.out, args.save);
  const src = args.model === undefined ? undefined : await modelFolder(args.model);
  const init = args.init === undefined ? undefined : readPresetFolder(args.init, args.options.preset, '--init', 'pass the --preset it has').params;
  if (args.out) writeFileSync(args.out, '');
  const write = (obj: unknown): void => {
    if (args.out) appendFileSync(args.out, `${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n`);
  };
  const results: (SeedResult | EvalOnlyResult)[] = [];
  const paired: PairedOutcomes[] = []; // after GRPO vs SFT only, per seed (first task set)
  const t0 = performance.now();
  for (const seed of args.seeds) {
    const cfg = learningConfig({ ...args.options, seed });
    log(`seed ${seed}: ${cfg.tasks.map((t) => taskSetName(t)).join(' + ')}, preset ${cfg.preset}${src ? ` from ${src.where} (LoRA r ${args.loraRank})` : ''}`);
    const opts: PipelineOptions = {};
    let loaded: LoadedModel | undefined;
    if (src) {
      loaded = await loadModelForPipeline(rt, src, cfg, { rank: args.loraRank, seed: mixSeeds(seed, 0x10a0), budgetBytes: args.budgetBytes, log: (l) => log(`[seed ${seed}] ${l}`) });
      const m = loaded.cfg;
      const preset = PRESETS[cfg.preset];
      if (m.numLayers !== preset.numLayers || m.hiddenSize !== preset.hiddenSize || m.vocabSize !== preset.vocabSize) {
        log(`[seed ${seed}] note: the folder's model (${m.numLayers} layers, hidden ${m.hiddenSize}, vocab ${m.vocabSize}) is not the ${cfg.preset} shape; it trains as loaded`);
      }
      log(`[seed ${seed}] loaded: ${formatBytes(loaded.plan.byGroup.weights)} f16 base, ${loaded.adapters.names.length} LoRA tensors, tokenizer: ${loaded.tokenizerSource}`);
      Object.assign(opts, { weights: loaded.weights, tokenizer: loaded.tokenizer });
    } else {
      // refuse before training when the largest batch does not fit the adapter (e.g. SFT rows × logits)
      const shape = trainingShape(cfg);
      log(assertConfigFits(rt.ctx, PRESETS[cfg.preset], { batch: shape.batch, seqLen: shape.seqLen, optimizer: 'adamw', weightDtype: 'f32', referenceCopy: shape.referenceCopy }, { label: `preset ${cfg.preset}` }).summary);
      if (init) {
        log(`starting from the weights in ${args.init} (every weight trains)`);
        opts.initial = init;
      }
    }
    try {
      results.push(await runSeed(rt, args, io, seed, cfg, opts, write, loaded, (p) => paired.push(p)));
    } finally {
      loaded?.release();
    }
  }
  log(`time: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const split = args.options.evalSplit ?? 'test';
  const summary = args.evalOnly ? evalOnlyLine(args.family, results as EvalOnlyResult[], split) : summaryLine(args.family, results as SeedResult[], split);
  if (paired.length > 1 && paired.length === results.length) {
    const pooled = pooledArmDifference(paired);
    log(`GRPO − SFT only, same compute, pooled over seeds ${args.seeds.join(', ')}: ${formatArmDifference(pooled, 'the GRPO arm', 'the SFT-only arm')} — the interval covers these tasks for these trained models, not the spread between training runs`);
    summary.grpo_minus_sft_only_pooled = pairedFigure(pooled);
  }
  io.print(JSON.stringify(summary));
  return summary;
}

async function runSeed(
  rt: GpuRuntime, args: LearnArgs, io: LearnIo, seed: number, cfg: ReturnType<typeof learningConfig>, opts: PipelineOptions,
  write: (obj: unknown) => void, loaded: LoadedModel | undefined, onPaired?: (p: PairedOutcomes) => void,
): Promise<SeedResult | EvalOnlyResult> {
  const log = (line: string) => io.log(`[seed ${seed}] ${line}`);
  write({ kind: 'config', seed, config: cfg, ...(loaded ? { model: args.model, modelConfig: loaded.cfg, lora: loraFor(args.loraRank) } : {}) });
  const hooks: PipelineHooks = {
    log,
    onSftData: (stage, report) => write({ kind: 'sft-data', seed, stage, ...report }),
    onSft: (stage, m) => write({ kind: 'sft', seed, stage, ...m }),
    onRlStep: (stage, r) => write(toJsonlLine(r).replace(/^\{/, `{"kind":"grpo","seed":${seed},"stage":${stage},`)),
    onEval: (stage, s) => write({ kind: 'eval', seed, stage, ...s }),
    onCurve: (stage, step, s) => write({ kind: 'curve', seed, stage, step, ...s }),
  };
  const label = (s: EvalSummary) => `${s.label}: ${s.taskSets.map((t) => `${t.taskSet} ${formatRate(t.model.success)} (n = ${t.model.n})`).join(', ')}`;
  let evals: EvalSummary[];
  let sftOnly: EvalSummary | undefined;
  let curveRows: MatchedCurveRow[] = []; // the arms at matched compute at GRPO's validation points
  let weights: Map<string, Float32Array>; // every weight, or with --model the LoRA adapters (PEFT names)
  const dir = args.save && args.seeds.length > 1 ? join(args.save, `seed-${seed}`) : args.save;
  if (dir && !args.compare && !loaded) opts.checkpoints = { store: new DiskBackend(join(dir, 'checkpoints')), every: args.saveEvery, keepLast: args.keep, onSaved: (s) => log(`checkpoint ${s.id} (${(s.bytes / 1e6).toFixed(1)} MB, training paused ${s.captureSeconds.toFixed(2)} s)`) };
  if (dir && args.compare && !loaded) log('--save with the SFT-only comparison: only the final weights are saved (checkpoints to resume from need --no-compare)');
  if (args.resume) {
    const found = await resumePipeline(rt, new DiskBackend(join(args.resume, 'checkpoints')), cfg);
    if (!found) throw new Error(`--resume ${args.resume}: no complete checkpoint in ${join(args.resume, 'checkpoints')} (a run saves them with --save DIR --no-compare)`);
    for (const note of found.notes) log(note);
    log(`resuming from checkpoint ${found.id}: stage ${found.stage} (${cfg.stages[found.stage].kind}) after step ${found.step}`);
    Object.assign(opts, { initial: found.point.initial, resume: found.point });
  }
  const split = args.options.evalSplit ?? 'test';
  const samples: string[] = []; // printed after the tables
  const printSamples = async (w: GpuWeights) => {
    for (const [i, e] of (await sampleEpisodes(rt, w, cfg, args.samples, { split, tokenizer: loaded?.tokenizer })).entries()) {
      const text = e.text.length > SAMPLE_CHARS ? `${e.text.slice(0, SAMPLE_CHARS)} … (${e.text.length - SAMPLE_CHARS} more characters)` : e.text;
      samples.push(`sample ${i + 1} of ${args.samples} (${split} task ${i}, ${e.success ? 'right' : 'wrong'}):\n${text}`);
    }
  };
  if (args.compare && cfg.stages.some((s) => s.kind === 'grpo') && args.options.rlSteps > 0) {
    const r = await runSftRlComparison(rt, cfg, hooks, opts);
    evals = [...r.prefix.evals, ...r.rl.evals];
    sftOnly = r.sftOnly.evals.at(-1);
    weights = r.finalWeights;
    log(`SFT-only arm: ${r.sftSteps} more SFT steps = ${(r.sftCompute / 1e6).toFixed(1)} M forward-token-equivalents (GRPO used ${(r.grpoCompute / 1e6).toFixed(1)} M)`);
    write({ kind: 'compute', seed, grpo: r.grpoCompute, sftOnly: r.sftCompute, sftOnlySteps: r.sftSteps });
    curveRows = matchedCurveRows(r.curve);
    for (const row of curveRows) write({ kind: 'matched-curve', seed, ...row });
    if (args.samples > 0 && loaded) log('--samples with --model and the SFT-only comparison: not printed (run with --no-compare)');
    else if (args.samples > 0) {
      const w = new GpuWeights(rt, PRESETS[cfg.preset], weights); // the GRPO arm's final weights
      try {
        await printSamples(w);
      } finally {
        w.destroy();
      }
    }
  } else {
    const r = await runPipeline(rt, cfg, hooks, opts);
    evals = r.evals;
    if (args.samples > 0) await printSamples(loaded ? loaded.weights : r.weights);
    if (loaded) weights = await loaded.adapters.download();
    else {
      weights = await r.weights.download();
      r.weights.destroy();
    }
  }
  if (loaded) await io.onWeights?.(seed, loaded.weights);
  for (const s of [...evals, ...(sftOnly ? [sftOnly] : [])]) log(label(s));
  const find = (l: string) => firstSet(evals.find((e) => e.label === l));
  const afterSft = find('after SFT');
  const afterGrpo = find('after GRPO');
  const sftOnlySet = firstSet(sftOnly);
  let grpoMinusSftOnly: PairedDifference | undefined;
  if (afterGrpo && sftOnlySet) {
    const p = pairOutcomes(afterGrpo, sftOnlySet);
    grpoMinusSftOnly = pairedDifference(p.x, p.y);
    onPaired?.(p);
    log(`GRPO − SFT only, same compute: ${formatArmDifference(grpoMinusSftOnly, 'the GRPO arm', 'the SFT-only arm')}`);
    if (afterSft) {
      log(`GRPO − after SFT: ${formatArmDifference(armDifference(afterGrpo, afterSft), 'the model after GRPO', 'the model after SFT')}`);
    }
  }
  for (const l of ['model', 'after SFT', 'after GRPO']) for (const t of evals.find((e) => e.label === l)?.taskSets ?? []) io.print(t.table);
  for (const l of formatMatchedCurve(curveRows)) io.print(l);
  for (const l of samples) io.print(l);
  const rate = (t: TaskSetEval | undefined) => t?.model.success.rate ?? null;
  if (args.evalOnly) {
    const m = find('model');
    return { seed, n: m?.model.n ?? 0, model: rate(m) ?? 0, baselines: Object.fromEntries((m?.baselines ?? []).map((b) => [b.label, b.success.rate])) };
  }
  if (dir) await saveFinal(join(dir, 'final'), cfg, weights, args, loaded, log);
  const result: SeedResult = {
    seed, n: afterSft?.model.n ?? 0, before_sft: rate(find('before SFT')), after_sft: rate(afterSft) ?? 0, after_grpo: rate(afterGrpo),
    sft_only_same_compute: rate(sftOnlySet), ...(grpoMinusSftOnly ? { grpo_minus_sft_only: pairedFigure(grpoMinusSftOnly) } : {}), baselines: Object.fromEntries((afterSft?.baselines ?? []).map((b) => [b.label, b.success.rate])),
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
  return result;
}

/** The final weights: an HF folder (a preset run), or the LoRA adapter as a PEFT folder (a --model run). */
async function saveFinal(out: string, cfg: ReturnType<typeof learningConfig>, weights: Map<string, Float32Array>, args: LearnArgs, loaded: LoadedModel | undefined, log: (line: string) => void): Promise<void> {
  if (loaded) {
    const lora = { config: loraFor(args.loraRank), tensors: weights };
    const ids = { eosId: loaded.tokenizer.imEndId, padId: loaded.tokenizer.padId };
    await writeFolder(out, exportFiles({ cfg: loaded.cfg, params: new Map(), lora, ids }, 'peft', { baseModel: args.model }));
    log(`saved the LoRA adapter as a PEFT folder in ${out} (merge it into the base: npm run merge -- --method linear --base ${args.model} --models ${out} --out DIR)`);
    return;
  }
  const tok = await tokenizerForModel(PRESETS[cfg.preset]);
  await writeFolder(out, exportFiles({ cfg: PRESETS[cfg.preset], params: weights, ids: { eosId: tok.imEndId, padId: tok.padId } }, 'hf'));
  log(`saved the final weights as an HF folder in ${out}`);
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

/** The last line of --eval-only: the starting model's success and the baselines (several seeds: means, ranges, per seed). */
function evalOnlyLine(family: string, rs: EvalOnlyResult[], split: string): Record<string, unknown> {
  if (rs.length === 1) return { family, split, ...rs[0] };
  const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
  const models = rs.map((r) => r.model);
  return {
    family, split, n: rs[0].n, seed: rs.map((r) => r.seed), model: mean(models),
    baselines: Object.fromEntries(Object.keys(rs[0].baselines).map((b) => [b, mean(rs.map((r) => r.baselines[b] ?? 0))])),
    range: { model: [Math.min(...models), Math.max(...models)] }, per_seed: rs,
  };
}
