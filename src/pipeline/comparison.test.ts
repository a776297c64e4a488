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

const sft = (steps: number) => ({ kind: 'sft' as const, data: { source: 'synthetic' as const, examples: 16 }, steps, batchSize: 2, lr: 1e-2, warmupSteps: 0 });
const config = (sftSteps: number) => parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 5, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }],
  context: { maxTotalTokens: 288, maxNewTokensPerTurn: 16, maxTurns: 1 },
  stages: [sft(sftSteps), { kind: 'grpo', steps: 1, tasksPerStep: 2, groupSize: 2, lr: 1e-3, warmupSteps: 0, samplingRounds: 1, klCoef: 0 }, { kind: 'eval', label: 'after GRPO', split: 'test', n: 2, baselines: false }],
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
});
