// The SFT-vs-RL comparison (comparison.ts) when the run trains no SFT itself (an SFT model loaded with
// --init and --sft-steps 0): the SFT-only arm must still get GRPO's compute. Before the fix it priced
// an SFT step from the prefix's steps — none — and ran NaN steps, reporting the untouched model as
// "SFT only, same compute". Micro model, Node WebGPU.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { initialWeights } from '../model/weights';
import { MICRO_MODEL } from '../train/testing/microModel';
import { PRICING_STEPS, runSftRlComparison } from './comparison';
import { PIPELINE_CONFIG_VERSION, parsePipelineConfig } from './config';
import { matchedCurveRows } from './matchedCurve';

const sft = (steps: number) => ({ kind: 'sft' as const, data: { source: 'synthetic' as const, examples: 16 }, steps, batchSize: 2, lr: 1e-2, warmupSteps: 0 });
const config = (sftSteps: number, grpoSteps = 1, evalEvery = 0, tasksPerStep = 2) => parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 5, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }],
  context: { maxTotalTokens: 288, maxNewTokensPerTurn: 16, maxTurns: 1 },
  stages: [
    sft(sftSteps), ...(evalEvery ? [{ kind: 'eval', label: 'validation after SFT', split: 'validation', n: 3, baselines: false }] : []),
    { kind: 'grpo', steps: grpoSteps, tasksPerStep, groupSize: 2, lr: 1e-3, warmupSteps: 0, samplingRounds: 1, klCoef: 0, evalEvery },
    { kind: 'eval', label: 'after GRPO', split: 'test', n: 2, baselines: false },
  ],
});

describe('SFT-vs-RL comparison', () => {
  it('a run with 0 SFT steps prices an SFT step from the arm itself: finite steps, about GRPO\'s compute, the arm runs them', async () => {
    const rt = await testRuntime('opengles');
    const start = initialWeights(MICRO_MODEL, 5);
    const opts = { model: MICRO_MODEL, initial: start };
    const armSteps: number[] = []; // the SFT-only arm's stages come with index + 1000
    const r = await runSftRlComparison(rt, config(0), { onSft: (i) => void (i >= 1000 && armSteps.push(i)) }, opts);
    expect(Number.isInteger(r.sftSteps) && r.sftSteps >= 1).toBe(true);
    expect(r.grpoCompute).toBeGreaterThan(0);
    const perStep = r.sftCompute / r.sftSteps;
    expect(Math.abs(r.sftCompute - r.grpoCompute)).toBeLessThanOrEqual(perStep); // matched to within one step
    expect(armSteps.length).toBe(r.sftSteps); // the arm ran those steps (the pricing steps are not reported as the arm's)

    // with SFT steps in the run, the price comes from them and no pricing run happens: the arm is as before
    const withSft = await runSftRlComparison(rt, config(PRICING_STEPS), {}, opts);
    expect(Number.isInteger(withSft.sftSteps) && withSft.sftSteps >= 1).toBe(true);
  }, 180_000);

  it('with a GRPO validation curve, the SFT-only arm is evaluated at the same compute, and those points change nothing it trains', async () => {
    const rt = await testRuntime('opengles');
    const opts = { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 5) };
    const armCurve: number[] = []; // steps of the arm's curve points (its stage comes with index 1000)
    const r = await runSftRlComparison(rt, config(2, 3, 1, 12), { onCurve: (i, step) => void (i >= 1000 && armCurve.push(step)) }, opts);
    // GRPO points after steps 1 and 2 (step 3 is the final eval); each paired with the arm's step of the same cost
    expect(r.rl.grpo[0].curve.map((c) => c.step)).toEqual([1, 2]);
    const price = r.prefix.compute.sftStepCost();
    const expected = r.rl.grpo[0].curve.map((c) => Math.max(1, Math.round(r.rl.compute.grpoCostAfter(0, c.step) / price))).filter((k) => k < r.sftSteps);
    expect(expected).toEqual([1, 3]); // GRPO had spent ≈ 5 400 and 10 700 forward-token-equivalents; an SFT step costs ≈ 4 200 (arm: 4 steps)
    expect(r.curve.map((p) => p.sftStep)).toEqual(expected);
    expect(armCurve).toEqual([...new Set(expected)]);
    expect(r.curve.every((p, i) => p.grpoStep === i + 1 && p.grpoStage === 2 && p.compute > 0)).toBe(true);
    // both arms' points on the n of the run's validation stage (it sits in the prefix, before GRPO), so they pair task by task
    expect(r.curve.map((p) => [p.grpo.split, p.grpo.taskSets[0].model.n, p.sftOnly.split, p.sftOnly.taskSets[0].model.n])).toEqual([['validation', 3, 'validation', 3], ['validation', 3, 'validation', 3]]);
    expect(matchedCurveRows(r.curve).map((row) => row.grpo_minus_sft_only.n)).toEqual([3, 3]);
    expect(r.curve[1].compute).toBeGreaterThan(r.curve[0].compute);
    // the same run without curves: the same GRPO compute, so the same arm, trained step for step the same
    const plain = await runSftRlComparison(rt, config(2, 3, 0, 12), {}, opts);
    expect(plain.curve).toEqual([]);
    expect(plain.grpoCompute).toBe(r.grpoCompute);
    expect(plain.sftOnly.sft[0].history.map((m) => m.loss)).toEqual(r.sftOnly.sft[0].history.map((m) => m.loss));
    expect(plain.sftOnly.evals.at(-1)!.taskSets[0].successByTask).toEqual(r.sftOnly.evals.at(-1)!.taskSets[0].successByTask);
  }, 300_000);
});
