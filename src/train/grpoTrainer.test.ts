// GRPO trainer on the GPU (llvmpipe): the trainer's log-probs of rollout tokens equal the behaviour
// log-probs generate() recorded (alignment), an update moves the policy toward the better sample,
// and non-finite input or no signal skips the update with the weights untouched.
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeFamily } from '../eval/fakeFamily';
import type { GpuRuntime } from '../gpu/runtime';
import { testRuntime } from '../gpu/testDevice';
import { BYTE_VOCAB_SIZE, type ModelConfig } from '../model/config';
import { GpuWeights, initialWeights } from '../model/weights';
import { ByteTokenizer } from '../tokenizer';
import { grpoConfig } from './grpo';
import { DEFAULT_GRPO_TRAINER, GrpoTrainer, type GrpoTrainerConfig } from './grpoTrainer';
import { modelTurnGenerator } from './modelGenerator';
import { DEFAULT_ROLLOUT, rolloutBatch } from './rollout';
import type { Trajectory } from './trajectory';

/** A one-layer model: the point is the plumbing, not capacity. */
const MICRO: ModelConfig = {
  vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 32, intermediateSize: 64, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 16,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 512, tieWordEmbeddings: true, tokenizer: 'byte',
};
const tok = new ByteTokenizer();
const family = fakeFamily();
const rollout = { ...DEFAULT_ROLLOUT, groupSize: 2, maxTurns: 1, maxNewTokensPerTurn: 12, maxTotalTokens: 256 };
const trainerCfg = (o: Partial<GrpoTrainerConfig> = {}): GrpoTrainerConfig => ({
  ...DEFAULT_GRPO_TRAINER, grpo: grpoConfig('default', { groupSize: 2 }), microBatchRows: 2, seqLen: 256, lr: 1e-2, ...o,
});

let rt: GpuRuntime;
beforeAll(async () => {
  rt = await testRuntime('opengles');
});

/** Two tasks × G = 2 episodes sampled by the model itself (cut at 12 tokens: truncated, still trainable). */
async function sampled(w: GpuWeights, seed: number): Promise<Trajectory[]> {
  const tasks = [0, 1].map((i) => family.generateTask(seed, i, 'train'));
  return rolloutBatch({ family, tasks, tokenizer: tok, generator: modelTurnGenerator(rt, w, { temperature: 1, topK: 0, topP: 1 }), config: rollout, seed, policyVersion: 0 });
}

/** Rewards chosen by the test: sample 0 of each group wins. */
function withRewards(trajs: Trajectory[], win: (t: Trajectory) => number): Trajectory[] {
  return trajs.map((t) => ({ ...t, reward: { components: {}, weights: {}, total: win(t) } }));
}

describe('GrpoTrainer (llvmpipe)', () => {
  it('scores rollout tokens with the behaviour log-probs: ratio 1, no clipping, KL ≈ 0', async () => {
    const w = new GpuWeights(rt, MICRO, initialWeights(MICRO, 3));
    const trajs = withRewards(await sampled(w, 1), (t) => (t.sample === 0 ? 1 : 0));
    const trainer = new GrpoTrainer(rt, w, trainerCfg());
    const r = await trainer.step(trajs);
    expect(r.skipped).toBe(false);
    expect(r.metrics.policy_tokens).toBe(trajs.reduce((a, t) => a + t.responseTokens, 0));
    expect(Math.abs(r.metrics['ratio/mean'] - 1)).toBeLessThan(1e-4);
    expect(r.metrics['ratio/max']).toBeLessThan(1 + 1e-3);
    expect(r.metrics['ratio/min']).toBeGreaterThan(1 - 1e-3);
    expect(r.metrics.approx_kl).toBeLessThan(1e-6);
    expect(r.metrics.clip_ratio).toBe(0);
    expect(r.metrics.entropy).toBeGreaterThan(4); // near-uniform over 272 tokens (ln 272 ≈ 5.6)
    trainer.destroy();
    w.destroy();
  });

  it('one update raises the winners’ log-probs and lowers the losers’', async () => {
    const w = new GpuWeights(rt, MICRO, initialWeights(MICRO, 4));
    const trajs = withRewards(await sampled(w, 2), (t) => (t.sample === 0 ? 1 : 0));
    const trainer = new GrpoTrainer(rt, w, trainerCfg({ importanceCorrection: 'tis' }));
    await trainer.step(trajs);
    // Score the same tokens again, one group at a time: each group's sample 0 should now be likelier.
    for (const g of [0, 1]) {
      const pair = trajs.filter((t) => t.group === g);
      const probe = new GrpoTrainer(rt, w, trainerCfg({ lr: 0, importanceCorrection: 'tis' }));
      const perSample = [];
      for (const t of pair) {
        const r = await probe.step([t, { ...t, reward: { ...t.reward, total: t.reward.total - 1 } }]);
        perSample.push(r.metrics['tis/weight_mean']); // mean of π_new / π_behaviour over its tokens
      }
      probe.destroy();
      expect(perSample[0]).toBeGreaterThan(1);
      expect(perSample[1]).toBeLessThan(1);
    }
    trainer.destroy();
    w.destroy();
  });

  it('skips the update and keeps the weights on a non-finite behaviour log-prob', async () => {
    const w = new GpuWeights(rt, MICRO, initialWeights(MICRO, 5));
    const trajs = withRewards(await sampled(w, 3), (t) => (t.sample === 0 ? 1 : 0));
    const k = trajs[1].lossMask.indexOf(1);
    trajs[1] = { ...trajs[1], behaviourLogprobs: trajs[1].behaviourLogprobs.map((x, i) => (i === k ? NaN : x)) };
    const before = await w.download();
    const trainer = new GrpoTrainer(rt, w, trainerCfg());
    const r = await trainer.step(trajs);
    expect(r.skipped).toBe(true);
    expect(r.reason).toMatch(/non-finite input oldLogp/);
    const after = await w.download();
    for (const [name, v] of before) expect(after.get(name)).toEqual(v);
    trainer.destroy();
    w.destroy();
  });

  it('with dynamic sampling, skips a batch whose groups all have equal rewards', async () => {
    const w = new GpuWeights(rt, MICRO, initialWeights(MICRO, 6));
    const trajs = withRewards(await sampled(w, 4), () => 0.5);
    const trainer = new GrpoTrainer(rt, w, trainerCfg({ grpo: grpoConfig('default', { groupSize: 2, dynamicSampling: true }) }));
    const r = await trainer.step(trajs);
    expect(r).toMatchObject({ skipped: true, keptGroups: [false, false] });
    expect(r.reason).toMatch(/every group was dropped/);
    trainer.destroy();
    w.destroy();
  });
});
