// The real actors in-process on the GPU (llvmpipe): async GRPO with k = 1 survives an injected
// rollout crash, rollout actors pick up the trainer's published weights, and staleness stays ≤ k.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../../../gpu/testDevice';
import type { ModelConfig } from '../../../model/config';
import { initialWeights } from '../../../model/weights';
import { grpoConfig } from '../grpo';
import { DEFAULT_GRPO_TRAINER } from '../grpoTrainer';
import { DEFAULT_ROLLOUT } from '../rollout';
import { runAsyncRl } from './coordinator';
import { injectFaults, inProcessPool } from './handles';
import { packWeights, unpackWeights } from './weights';
import { MICRO_MODEL } from '../../testing/microModel';

const MICRO: ModelConfig = MICRO_MODEL;

describe('async GRPO with in-process actors (llvmpipe)', () => {
  it('k = 1: trains every step through a crashed rollout actor; actors use published weights', async () => {
    const rt = await testRuntime('opengles');
    const rollout = { ...DEFAULT_ROLLOUT, groupSize: 2, maxTurns: 1, maxNewTokensPerTurn: 8, maxTotalTokens: 288 };
    const trainer = { ...DEFAULT_GRPO_TRAINER, grpo: grpoConfig('default', { groupSize: 2 }), microBatchRows: 4, seqLen: 288, lr: 1e-2, pack: false };
    const inner = inProcessPool({ rt, spec: { model: MICRO, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }], rollout, taskSeed: 5 }, trainer, initial: initialWeights(MICRO, 7) });
    const pool = injectFaults(inner, { crashJobs: [1] });
    const records = await runAsyncRl(pool, { steps: 4, tasksPerStep: 2, seed: 3, warmupSteps: 0, minLrRatio: 1, rollout, trainer, staleness: 1, rolloutActors: 1, hangTimeoutMs: 120_000, maxRestarts: 2 });
    await pool.close();
    expect(records).toHaveLength(4);
    const last = records.at(-1)!;
    expect(last.metrics['async/restarts']).toBe(1);
    expect(last.metrics['async/lost_episodes']).toBe(4);
    for (const r of records) {
      expect(r.stalenessHistogram.length).toBeLessThanOrEqual(2);
      expect(r.skipped ? 0 : r.version).toBeGreaterThan(0);
    }
    // Later batches were sampled by weights the trainer published (version > 0).
    const trainedFrom = records.map((r) => r.version - (r.skipped ? 0 : 1) - (r.stalenessHistogram.length - 1));
    expect(Math.max(...trainedFrom)).toBeGreaterThan(0);
  }, 600_000);

  it('packs and unpacks weight snapshots exactly (plain and shared memory)', () => {
    const values = initialWeights(MICRO, 1);
    for (const shared of [false, true]) {
      const p = packWeights(values, 3, shared);
      expect(p.data.buffer instanceof SharedArrayBuffer).toBe(shared);
      const back = unpackWeights(p);
      for (const [k, v] of values) expect(back.get(k)).toEqual(v);
    }
  });
});
