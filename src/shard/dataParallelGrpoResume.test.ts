// Data-parallel GRPO resumed mid-run (llvmpipe, memory transport): a 2-rank run stopped after 2 of
// its 4 steps resumes from rank 0's newest complete checkpoint — saved and loaded as the pipeline does
// (storage/resume.ts: rlAutosave on rank 0, resumeFrom; weights, AdamW moments, KL reference, step,
// policy version) — (a) on 2 new ranks: the uninterrupted run's steps 3–4 and weights, bit for bit;
// (b) in one process (a smaller world): the same metrics and weights within 1e-5 relative (float32
// sums in another order: one process adds all micro-batches' gradients, 2 ranks add two partial sums).
// Also with dynamic sampling's refill rounds before the checkpoint (the refill stream's cursor).
// The session-level resume (dpStart naming the checkpoint, every tab loading it) is
// dataParallelRun.test.ts's; its pipeline tasks earn the micro model no reward, so its GRPO steps
// are skipped and could not show a wrong restore — here every step trains.
import { beforeAll, describe, expect, it } from 'vitest';
import type { GpuRuntime } from '../gpu/runtime';
import { testRuntime } from '../gpu/testDevice';
import { GpuWeights, initialWeights } from '../model/weights';
import { loadLatestCheckpoint } from '../storage/checkpoint';
import { tokenizerIdentity } from '../storage/format';
import { MemoryBackend } from '../storage/memoryBackend';
import { resumeFrom, rlAutosave } from '../storage/resume';
import { type RlLoopConfig, runSyncRl } from '../train/rl/rlLoop';
import { grpoConfig } from '../train/rl/grpo';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import { MICRO_MODEL } from '../train/testing/microModel';
import { CFG, maxWeightError, metricError, runRanks, textScoredFamily, timed, tok, worst } from './testing/dpGrpoCompare';

let rt: GpuRuntime;
beforeAll(async () => {
  rt = await testRuntime('opengles');
});

/** A record without its wall-clock figures (the rank's own rollout seconds included). */
const comparable = (r: RlStepRecord) => ({ ...r, rank: r.rank && { ...r.rank, rolloutSeconds: 0 }, metrics: Object.fromEntries(Object.entries(r.metrics).filter(([k]) => !timed(k))) });

const REFILLS: RlLoopConfig = {
  ...CFG, steps: 3, maxSamplingRounds: 3,
  trainer: { ...CFG.trainer, grpo: grpoConfig('default', { groupSize: 3, klCoef: 0.05, entropyCoef: 0.01, dynamicSampling: true }) },
};

describe('data-parallel GRPO resumed from rank 0\'s checkpoint', () => {
  it.each([
    { name: '2 ranks stopped after 2 of 4 steps', cfg: { ...CFG, steps: 4 }, k: 2, flat: undefined },
    { name: 'with dynamic sampling\'s refill rounds, 2 ranks stopped after 1 of 3 steps (the refill stream\'s cursor restored)', cfg: REFILLS, k: 1, flat: (i: number) => i % 2 === 0 },
  ])('$name: 2 new ranks end bit for bit as the uninterrupted run, 1 process within 1e-5', async ({ cfg, k, flat }) => {
    const family = textScoredFamily({ flat });
    const init = initialWeights(MICRO_MODEL, 8);
    const whole = await runRanks(rt, family, cfg, 2, init);
    expect(whole.per[0].every((r) => !r.skipped)).toBe(true); // every step trains: a wrong restore shows
    if (cfg.maxSamplingRounds) expect(whole.per[0][k - 1].metrics['sampling/rounds']).toBeGreaterThan(1); // refills before the checkpoint
    // the same run, stopped after step k; rank 0 checkpoints every step as the pipeline runner does
    const store = new MemoryBackend();
    const tokenizer = await tokenizerIdentity(tok);
    const run = { preset: 'micro', model: MICRO_MODEL, tokenizer, seed: cfg.seed, pipelineConfig: cfg, metrics: () => ({}) };
    const first = await runRanks(rt, family, cfg, 2, init, (r) => ({ stopAfter: k, ...(r === 0 ? rlAutosave({ store, run, every: 1, totalSteps: cfg.steps, keepLast: 2 }) : {}) }));
    expect(first.per.map((p) => p.length)).toEqual([k, k]);
    await first.close();
    const { reader } = await loadLatestCheckpoint(store, { tokenizer, model: MICRO_MODEL });
    expect(reader!.manifest.training.step).toBe(k); // the newest of the kept ones
    const point = await resumeFrom(rt, reader!);

    // (a) two new ranks, each loading rank 0's checkpoint
    const again = await runRanks(rt, family, cfg, 2, point.initial, () => ({ ...point.rl }));
    for (const r of [0, 1]) {
      expect(again.per[r].map((x) => x.step)).toEqual(whole.per[r].slice(k).map((x) => x.step));
      expect(again.per[r].map(comparable)).toEqual(whole.per[r].slice(k).map(comparable));
      expect(await maxWeightError(again.ws[r], whole.ws[r])).toBe(0);
    }
    // (b) one process: the ranks' groups played by one, the same seeds per group
    const alone = new GpuWeights(rt, MICRO_MODEL, point.initial);
    const tail = await runSyncRl(rt, alone, family, tok, cfg, undefined, undefined, { ...point.rl });
    expect(tail.map((x) => x.step)).toEqual(whole.per[0].slice(k).map((x) => x.step));
    for (const [s, want] of whole.per[0].slice(k).entries()) {
      expect(tail[s].version).toBe(want.version);
      expect(Object.keys(tail[s].metrics).sort()).toEqual(Object.keys(want.metrics).sort());
      for (const [key, v] of Object.entries(want.metrics)) if (!timed(key)) expect(metricError(key, tail[s].metrics[key], v), `step ${s + k + 1} ${key}: ${tail[s].metrics[key]} vs ${v}`).toBeLessThanOrEqual(1e-5);
    }
    const weightError = await maxWeightError(alone, whole.ws[0]);
    expect(weightError).toBeLessThanOrEqual(1e-5);
    console.log(`DP GRPO resume at step ${k} of ${cfg.steps}${cfg.maxSamplingRounds ? ' with refills' : ''}: 2 new ranks bit for bit; 1 process: worst relative error of a metric ${worst(whole.per[0].slice(k), [tail]).toExponential(2)}, of the weights ${weightError.toExponential(2)}`);
    alone.destroy();
    for (const x of [whole, again]) await x.close();
  }, 300_000);
});
