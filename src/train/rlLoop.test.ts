// The synchronous loop end to end on a one-layer model (llvmpipe): records per step with the named
// metrics, versions advancing, and JSONL lines that parse back.
import { describe, expect, it } from 'vitest';
import { fakeFamily } from '../eval/fakeFamily';
import { testRuntime } from '../gpu/testDevice';
import type { ModelConfig } from '../model/config';
import { GpuWeights, initialWeights } from '../model/weights';
import { ByteTokenizer } from '../tokenizer';
import { grpoConfig } from './grpo';
import { DEFAULT_GRPO_TRAINER } from './grpoTrainer';
import { toJsonlLine } from './rlMetrics';
import { runSyncRl } from './rlLoop';
import { DEFAULT_ROLLOUT } from './rollout';
import { MICRO_MODEL } from './testing/microModel';

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
    }, (r) => seen.push(r.step));
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
});
