// The synchronous loop end to end on a one-layer model (llvmpipe): records per step with the named
// metrics, versions advancing, and JSONL lines that parse back.
import { describe, expect, it } from 'vitest';
import { fakeFamily } from '../../eval/fakeFamily';
import { testRuntime } from '../../gpu/testDevice';
import type { ModelConfig } from '../../model/config';
import { GpuWeights, initialWeights } from '../../model/weights';
import { ByteTokenizer } from '../../tokenizer';
import { grpoConfig } from './grpo';
import { DEFAULT_GRPO_TRAINER } from './grpoTrainer';
import { toJsonlLine } from './rlMetrics';
import { runSyncRl } from './rlLoop';
import { DEFAULT_ROLLOUT } from './rollout';
import { MICRO_MODEL } from '../testing/microModel';

const MICRO: ModelConfig = MICRO_MODEL;

describe('runSyncRl (llvmpipe, one-layer model)', () => {
  it('streams one record per step with reward components, loss metrics, staleness and throughput', async () => {
    const rt = await testRuntime('opengles');
    const w = new GpuWeights(rt, MICRO, initialWeights(MICRO, 2));
    const rollout = { ...DEFAULT_ROLLOUT, groupSize: 2, maxTurns: 2, maxNewTokensPerTurn: 6, maxTotalTokens: 240 };
    const seen: number[] = [];
    const records = await runSyncRl(rt, w, fakeFamily(), new ByteTokenizer(), {
      steps: 2, tasksPerStep: 2, seed: 4, warmupSteps: 0, minLrRatio: 1, rollout,
      trainer: { ...DEFAULT_GRPO_TRAINER, grpo: grpoConfig('default', { groupSize: 2 }), microBatchRows: 4, seqLen: 240 },
    }, (r) => {
      seen.push(r.step);
    });
    w.destroy();
    expect(seen).toEqual([1, 2]);
    for (const r of records) {
      expect(r.stalenessHistogram).toEqual([4]);
      for (const key of ['reward', 'reward/format', 'reward/outcome/std', 'success_rate', 'turns/mean', 'response_length/mean', 'frac_groups_dropped', 'clip_ratio', 'approx_kl', 'entropy', 'grad_norm', 'rollout/tokens_per_s', 'train/tokens_per_s']) {
        expect(r.metrics[key], key).toBeTypeOf('number');
      }
      expect(r.metrics['truncated/fraction']).toBe(1); // 6 tokens never finish a turn
      const back = JSON.parse(toJsonlLine(r));
      expect(back.step).toBe(r.step);
      expect(back.metrics.reward).toBeCloseTo(r.metrics.reward, 12);
    }
    expect(records[1].version).toBe(records[0].version + (records[1].skipped ? 0 : 1));
  }, 300_000);

  // Cut at 6 tokens every episode gets the same reward here, so each step uses all 3 rounds and then
  // skips: the plumbing (rounds, counts, metrics over every drawn group) is what this checks; the
  // selection itself is tested in dynamicSampling.test.ts.
  it('with dynamic sampling and maxSamplingRounds, draws more task batches when groups carry no signal and reports every group drawn', async () => {
    const rt = await testRuntime('opengles');
    const w = new GpuWeights(rt, MICRO, initialWeights(MICRO, 2));
    const rollout = { ...DEFAULT_ROLLOUT, groupSize: 2, maxTurns: 1, maxNewTokensPerTurn: 6, maxTotalTokens: 240 };
    const cfg = {
      steps: 2, tasksPerStep: 2, seed: 4, warmupSteps: 0, minLrRatio: 1, rollout, maxSamplingRounds: 3,
      trainer: { ...DEFAULT_GRPO_TRAINER, grpo: grpoConfig('default', { groupSize: 2, dynamicSampling: true }), microBatchRows: 4, seqLen: 240 },
    };
    const records = await runSyncRl(rt, w, fakeFamily(), new ByteTokenizer(), cfg);
    w.destroy();
    for (const r of records) {
      const rounds = r.metrics['sampling/rounds'];
      expect(rounds).toBeGreaterThanOrEqual(1);
      expect(rounds).toBeLessThanOrEqual(3);
      expect(r.metrics['sampling/groups_drawn']).toBe(2 * rounds);
      expect(r.metrics.episodes).toBe(2 * 2 * rounds);
      // a refill round happens only while the step is short of 2 groups with signal
      const withSignal = r.metrics['sampling/groups_drawn'] - r.metrics.groups_dropped;
      if (rounds < 3) expect(withSignal).toBeGreaterThanOrEqual(2);
      if (withSignal === 0) expect(r.reason).toMatch(/every group was dropped/);
      expect(r.metrics.frac_groups_dropped).toBeCloseTo(r.metrics.groups_dropped / r.metrics['sampling/groups_drawn'], 12);
    }
    console.log(`dynamic sampling: rounds per step ${records.map((r) => r.metrics['sampling/rounds']).join(', ')}, groups dropped ${records.map((r) => r.metrics.groups_dropped).join(', ')}`);
  }, 300_000);
});
