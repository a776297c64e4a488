// The compute ledger's prices (compute.ts): hand-worked costs per stage, LoRA's cheaper backward, and
// the SFT steps that match a GRPO cost.
import { describe, expect, it } from 'vitest';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import type { SftMetrics } from '../train/sft/sft';
import { ComputeLedger, trainedTokenCost } from './compute';

const sftStep = (tokens: number): SftMetrics => ({ step: 1, loss: 1, lr: 1e-3, gradNorm: 1, tokensPerSec: 1, tokens, skipped: false });
const grpoStep = (trained: number, episode: number): RlStepRecord => ({
  step: 1, version: 1, skipped: false, stalenessHistogram: [1], metrics: { 'train/processed_tokens': trained, 'rollout/episode_tokens': episode },
});

describe('ComputeLedger', () => {
  it('SFT: 3 forward-equivalents a token with all weights trained, 2 with LoRA adapters', () => {
    expect(trainedTokenCost(false)).toBe(3);
    expect(trainedTokenCost(true)).toBe(2);
    const c = new ComputeLedger();
    c.addSft(0, sftStep(1000));
    c.addSft(1, sftStep(1000), true);
    c.addSft(1, sftStep(500), true);
    expect(c.stage(0)).toBe(3000);
    expect(c.stage(1)).toBe(3000); // 2 × 1 500
    expect(c.sftStepCost()).toBe((3000 + 2000 + 1000) / 3);
  });

  it('GRPO: trained tokens × (3 or 2 with LoRA, +1 with the KL reference) + every rollout token', () => {
    const c = new ComputeLedger();
    c.addGrpo(0, grpoStep(100, 400), true);
    c.addGrpo(1, grpoStep(100, 400), false);
    c.addGrpo(2, grpoStep(100, 400), true, true);
    c.addGrpo(3, grpoStep(100, 400), false, true);
    expect([0, 1, 2, 3].map((i) => c.stage(i))).toEqual([800, 700, 700, 600]);
  });

  it('prices SFT steps for a cost at the recorded mean step cost; none recorded → a clear error', () => {
    const c = new ComputeLedger();
    expect(() => c.sftStepsFor(10)).toThrow(/no SFT step was recorded/);
    c.addSft(0, sftStep(100), true); // 200 a step
    expect(c.sftStepsFor(1000)).toBe(5);
    expect(c.sftStepsFor(1)).toBe(1);
  });
});
