import { describe, expect, it } from 'vitest';
import { DEFAULT_GRPO_CONFIG, GRPO_VARIANTS, grpoConfig, validateGrpoConfig } from './config';

describe('GrpoConfig', () => {
  it('defaults: clip-higher 0.2/0.28, token-mean, no KL, no entropy bonus', () => {
    expect(DEFAULT_GRPO_CONFIG).toMatchObject({ epsLow: 0.2, epsHigh: 0.28, lossAggregation: 'token-mean', klCoef: 0, entropyCoef: 0, scaleByStd: true, rewardWeights: {} });
    expect(() => validateGrpoConfig(DEFAULT_GRPO_CONFIG)).not.toThrow();
  });
  it('named variants differ where the papers do', () => {
    expect(GRPO_VARIANTS.grpo).toMatchObject({ scaleByStd: true, lossAggregation: 'seq-mean-token-mean', epsHigh: 0.2 });
    expect(GRPO_VARIANTS['dr-grpo']).toMatchObject({ scaleByStd: false, lossAggregation: 'seq-mean-token-sum-norm', klCoef: 0 });
    expect(GRPO_VARIANTS.dapo).toMatchObject({ epsHigh: 0.28, lossAggregation: 'token-mean', dynamicSampling: true });
    for (const v of Object.values(GRPO_VARIANTS)) expect(() => validateGrpoConfig(v)).not.toThrow();
  });
  it('grpoConfig applies overrides without touching the variant', () => {
    const cfg = grpoConfig('grpo', { groupSize: 4, rewardWeights: { outcome: 2 } });
    expect(cfg.groupSize).toBe(4);
    expect(GRPO_VARIANTS.grpo.groupSize).toBe(8);
    expect(GRPO_VARIANTS.grpo.rewardWeights).toEqual({});
  });
  it('lists every invalid field in one error', () => {
    expect(() => grpoConfig('default', { groupSize: 1, epsLow: 1.5, lossNormLength: 0 })).toThrow(/groupSize = 1[\s\S]*epsLow = 1.5[\s\S]*lossNormLength = 0/);
    expect(() => grpoConfig('default', { overlongPenalty: { maxLength: 10, bufferLength: 20, factor: 1 } })).toThrow(/bufferLength = 20/);
  });
});
