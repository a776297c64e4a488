// The paper's SFT-vs-SFT+RL comparison on one config: run the stages up to the first GRPO stage,
// keep those weights, then (a) run the rest of the config (GRPO and what follows) and (b) from the
// same weights, spend the compute that (a)'s GRPO stages used on more SFT instead — the config's
// last SFT stage again (same data, lr, batch), for as many steps as cost the same forward-token
// equivalents (compute.ts) — followed by the same final evaluations. Both arms report the same
// eval stages, so "after GRPO" and "SFT only, same compute" sit side by side. When the GRPO stages
// draw a validation curve (evalEvery), the SFT-only arm draws one at the same compute: one endpoint
// pair moves by several points with a step more or less, a curve shows whether the gap holds.
import type { GpuRuntime } from '../gpu/runtime';
import type { GpuWeights } from '../model/weights';
import type { EvalStageConfig, PipelineConfig, SftStageConfig } from './config';
import type { EvalSummary } from './evalSummary';
import { curveValidationN, runPipeline } from './runner';
import type { PipelineHooks, PipelineOptions, PipelineResult } from './runnerTypes';

export interface ComparisonResult {
  /** Stages before the first GRPO stage (SFT and the evaluations around it). */
  prefix: PipelineResult;
  /** GRPO and everything after it, from the prefix's weights. */
  rl: PipelineResult;
  /** The SFT-only arm from the same weights: `sftSteps` more SFT steps, then the rl arm's eval stages. */
  sftOnly: PipelineResult;
  sftSteps: number;
  /**
   * The rl arm's final weights (host copies; every GPU copy is released). With opts.weights (a
   * loaded base with LoRA adapters): the adapters only, by PEFT name, and opts.weights ends holding them.
   */
  finalWeights: Map<string, Float32Array>;
  /** Forward-token-equivalents of the GRPO stages, and of the extra SFT steps. */
  grpoCompute: number;
  sftCompute: number;
  /**
   * The two arms at matched compute along the way: for each validation point of the GRPO stages
   * (their evalEvery), the SFT-only arm's validation point after the SFT steps that cost as much
   * (rounded; points at or past the arm's last step are left out: its final evals are that point).
   */
  curve: MatchedCurvePoint[];
}

export interface MatchedCurvePoint {
  /** GRPO stage (index in the whole config) and its step; forward-token-equivalents spent by GRPO so far. */
  grpoStage: number;
  grpoStep: number;
  compute: number;
  /** The SFT-only arm's step that costs about `compute`. */
  sftStep: number;
  grpo: EvalSummary;
  sftOnly: EvalSummary;
}

/** Splits a config at its first GRPO stage (throws when it has none, or no SFT stage before it). */
export function splitAtGrpo(cfg: PipelineConfig): { prefix: PipelineConfig; rest: PipelineConfig; lastSft: SftStageConfig } {
  const g = cfg.stages.findIndex((s) => s.kind === 'grpo');
  if (g < 0) throw new Error('comparison: the config has no grpo stage to compare with');
  const lastSft = cfg.stages.slice(0, g).filter((s): s is SftStageConfig => s.kind === 'sft').at(-1);
  if (!lastSft) throw new Error('comparison: the config has no sft stage before its first grpo stage; the SFT-only arm repeats that stage');
  return { prefix: { ...cfg, stages: cfg.stages.slice(0, g) }, rest: { ...cfg, stages: cfg.stages.slice(g) }, lastSft };
}

/**
 * Hooks see the prefix stages with their own indices, the rl arm's with index + g, and the SFT arm's
 * with index + 1000 (so a caller can tell the arms apart).
 */
export async function runSftRlComparison(rt: GpuRuntime, cfg: PipelineConfig, hooks: PipelineHooks = {}, opts: PipelineOptions = {}): Promise<ComparisonResult> {
  const { prefix: prefixCfg, rest, lastSft } = splitAtGrpo(cfg);
  const g = prefixCfg.stages.length;
  const shifted = (offset: number): PipelineHooks => ({
    ...hooks,
    onStage: hooks.onStage && ((i, c, d) => hooks.onStage!(i + offset, c, d)),
    onSftData: hooks.onSftData && ((i, r) => hooks.onSftData!(i + offset, r)),
    onSft: hooks.onSft && ((i, m) => hooks.onSft!(i + offset, m)),
    onRlStep: hooks.onRlStep && ((i, r) => hooks.onRlStep!(i + offset, r)),
    onEval: hooks.onEval && ((i, s) => hooks.onEval!(i + offset, s)),
    onCurve: hooks.onCurve && ((i, step, s) => hooks.onCurve!(i + offset, step, s)),
  });
  // Given weights (opts.weights) are trained in place by every arm: both arms start from a host copy
  // of what trains (the adapters, or every weight), written back before the SFT-only arm.
  const given = opts.weights;
  const prefix = await runPipeline(rt, prefixCfg, hooks, opts);
  const start = given ? await trainedTensors(given) : await prefix.weights.download();
  if (!given) prefix.weights.destroy();
  const armOpts: PipelineOptions = given ? opts : { ...opts, initial: start, model: prefix.weights.cfg };
  // The price of one SFT step: the prefix's SFT steps, or — when it ran none (an SFT model loaded with
  // --init and --sft-steps 0) — the SFT arm's own first steps, run once to be priced and thrown away
  // (same stream, so they are the arm's first steps). Without a price the arm would run NaN steps.
  const recorded = prefix.compute.sftStepCost(); // NaN when the prefix ran no SFT step
  const sftCost = recorded > 0 ? recorded : await priceSftSteps(rt, cfg, lastSft, armOpts, given ? start : null);
  // the rest's stages draw the streams they have in the whole config (a LoRA adapter, an SFT after GRPO)
  const rl = await runPipeline(rt, rest, shifted(g), { ...armOpts, stagesBefore: prefixCfg.stages });
  const finalWeights = given ? await trainedTensors(given) : await rl.weights.download();
  if (given) writeTrained(rt, given, start);
  else rl.weights.destroy();
  const grpoCompute = rest.stages.reduce((a, s, i) => a + (s.kind === 'grpo' ? rl.compute.stage(i) : 0), 0);
  const sftSteps = Math.max(1, Math.round(grpoCompute / sftCost));
  const evals = rest.stages.filter((s): s is EvalStageConfig => s.kind === 'eval');
  const sftArm: PipelineConfig = { ...cfg, stages: [sftArmStage(lastSft, sftSteps), ...evals.map((e) => ({ ...e, label: `${e.label} (SFT only, same compute)` }))] };
  const points = grpoCurvePoints(rl, sftCost, sftSteps);
  const sftCurve = points.length ? { sftCurve: { stage: 0, steps: points.map((p) => p.sftStep), n: curveValidationN(cfg) } } : {};
  const sftOnly = await runPipeline(rt, sftArm, shifted(1000), { ...armOpts, ...sftCurve });
  if (given) writeTrained(rt, given, finalWeights); // the caller's weights end as the rl arm's
  else sftOnly.weights.destroy();
  const armCurve = sftOnly.sft[0]?.curve ?? [];
  const curve = points.flatMap((p) => {
    const arm = armCurve.find((c) => c.step === p.sftStep);
    return arm ? [{ ...p, grpoStage: p.grpoStage + g, sftOnly: arm.summary }] : [];
  });
  return { prefix, rl, sftOnly, sftSteps, finalWeights, grpoCompute, sftCompute: sftOnly.compute.stage(0), curve };
}

/** GRPO's validation points with the compute spent up to each (over the rest's GRPO stages in order) and the SFT step that costs as much. */
function grpoCurvePoints(rl: PipelineResult, sftCost: number, sftSteps: number): Omit<MatchedCurvePoint, 'sftOnly'>[] {
  let before = 0; // compute of the GRPO stages before this one
  const out: Omit<MatchedCurvePoint, 'sftOnly'>[] = [];
  for (const stage of rl.grpo) {
    for (const c of stage.curve) {
      const compute = before + rl.compute.grpoCostAfter(stage.stage, c.step);
      const sftStep = Math.max(1, Math.round(compute / sftCost));
      if (sftStep < sftSteps) out.push({ grpoStage: stage.stage, grpoStep: c.step, compute, sftStep, grpo: c.summary });
    }
    before += rl.compute.stage(stage.stage);
  }
  return out;
}

/** The SFT-only arm's stage: the config's last SFT stage again, `steps` steps, no warm-up. */
const sftArmStage = (lastSft: SftStageConfig, steps: number): SftStageConfig => ({ ...lastSft, steps, warmupSteps: 0 });

/** Steps run to price an SFT step when the prefix ran none (their mean cost; rows are packed, so steps cost about the same). */
export const PRICING_STEPS = 4;

/**
 * Mean forward-token-equivalents of the SFT arm's first PRICING_STEPS steps, run from the arm's start
 * and thrown away. `restore` (given weights trained in place): what to write back afterwards.
 */
async function priceSftSteps(rt: GpuRuntime, cfg: PipelineConfig, lastSft: SftStageConfig, armOpts: PipelineOptions, restore: Map<string, Float32Array> | null): Promise<number> {
  const run = await runPipeline(rt, { ...cfg, stages: [sftArmStage(lastSft, PRICING_STEPS)] }, {}, armOpts);
  const cost = run.compute.sftStepCost();
  if (restore) writeTrained(rt, armOpts.weights!, restore);
  else run.weights.destroy();
  if (!(cost > 0)) throw new Error('comparison: an SFT step of the SFT-only arm processed no tokens, so GRPO\'s compute cannot be matched; check the SFT stage\'s data');
  return cost;
}

/** Host copies of what training changes in w: its LoRA adapters (PEFT names) when attached, else every weight. */
function trainedTensors(w: GpuWeights): Promise<Map<string, Float32Array>> {
  return w.lora ? w.lora.download() : w.download();
}

/** Writes trainedTensors' values back into w. */
function writeTrained(rt: GpuRuntime, w: GpuWeights, values: Map<string, Float32Array>): void {
  for (const [name, v] of values) {
    if (w.lora) rt.writeAt(w.lora.params.get(name)!, 0, v);
    else w.write(name, v);
  }
}
