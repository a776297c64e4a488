// Exact resume of a whole pipeline (SFT → eval → GRPO → eval) on the micro model: a run stopped in
// the middle of SFT, or of GRPO, and resumed from its newest checkpoint reports the same step
// metrics, the same evaluations and ends with the same weights as a run that never stopped (same
// seed, same adapter). The loops' own state (AdamW moments, the KL reference, the row stream) is
// checked against updates that change the weights in src/storage/exactResume.test.ts; here the micro
// model's GRPO rewards are all 0 (no update), so this test covers the pipeline's part: which stage
// and step continue, and the results and histories carried over.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { MemoryBackend } from '../storage/memoryBackend';
import { MICRO_MODEL } from '../train/testing/microModel';
import { PIPELINE_CONFIG_VERSION, type PipelineConfig, parsePipelineConfig } from './config';
import { resumePipeline } from './resume';
import { STAGE_STREAMS_VERSION } from './stageStream';
import { runPipeline } from './runner';
import type { PipelineResult } from './runnerTypes';

const CFG: PipelineConfig = parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 5, tasks: [{ family: 'function-calling', level: 'route4' }],
  context: { maxTotalTokens: 288, maxNewTokensPerTurn: 24, maxTurns: 1 },
  stages: [
    { kind: 'sft', data: { source: 'synthetic', examples: 32 }, steps: 24, batchSize: 2, lr: 1e-2, warmupSteps: 0 },
    { kind: 'eval', label: 'after SFT', split: 'test', n: 3 },
    { kind: 'grpo', steps: 4, tasksPerStep: 2, groupSize: 2, lr: 1e-3, samplingRounds: 1 },
    { kind: 'eval', label: 'after GRPO', split: 'test', n: 3 },
  ],
});
const OPTS = { model: MICRO_MODEL };

/** Metrics without wall-clock figures (those differ between any two runs). */
function timeless(r: PipelineResult) {
  const clean = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !/time|per_s|tokensPerSec/.test(k)));
  return {
    sft: r.sft.map((s) => s.history.map((m) => clean(m as unknown as Record<string, number>))),
    grpo: r.grpo.map((g) => g.history.map((h) => ({ ...h, metrics: clean(h.metrics) }))),
    evals: r.evals,
  };
}

class Stop extends Error {}

describe('pipeline exact resume', () => {
  it('stop in SFT or in GRPO, resume from the newest checkpoint: same metrics, evaluations and weights as an uninterrupted run', async () => {
    const rt = await testRuntime('opengles');
    const whole = await runPipeline(rt, CFG, {}, { ...OPTS, checkpoints: { store: new MemoryBackend(), every: 1, keepLast: 2 } });
    const wholeWeights = await whole.weights.download();
    whole.weights.destroy();

    const stops = [
      { hooks: { onSft: (_i: number, m: { step: number }) => { if (m.step === 17) throw new Stop('stopped at SFT step 17'); } }, at: { stage: 0, step: 16 } },
      { hooks: { onRlStep: (_i: number, r: { step: number }) => { if (r.step === 3) throw new Stop('stopped at GRPO step 3'); } }, at: { stage: 2, step: 2 } },
    ];
    for (const stop of stops) {
      const store = new MemoryBackend();
      await expect(runPipeline(rt, CFG, stop.hooks, { ...OPTS, checkpoints: { store, every: 1, keepLast: 2 } })).rejects.toBeInstanceOf(Stop);
      const found = await resumePipeline(rt, store, CFG, MICRO_MODEL);
      expect(found).toMatchObject(stop.at); // the stopped step's checkpoint was never written: the hook stopped the run first
      const resumed = await runPipeline(rt, CFG, {}, { ...OPTS, initial: found!.point.initial, resume: found!.point, checkpoints: { store, every: 1, keepLast: 2 } });
      const resumedWeights = await resumed.weights.download();
      resumed.weights.destroy();
      expect(timeless(resumed)).toEqual(timeless(whole));
      for (const [name, v] of wholeWeights) expect(resumedWeights.get(name), name).toEqual(v);
    }
  }, 300_000);

  it('refuses a checkpoint of another config', async () => {
    const rt = await testRuntime('opengles');
    const store = new MemoryBackend();
    const short = { ...CFG, stages: CFG.stages.slice(0, 1) };
    (await runPipeline(rt, short, {}, { ...OPTS, checkpoints: { store, every: 1, keepLast: 1 } })).weights.destroy();
    await expect(resumePipeline(rt, store, CFG, MICRO_MODEL)).rejects.toThrow(/belongs to a run with another pipeline config/);
  }, 120_000);

  it('refuses a checkpoint saved under another stream-seeding scheme (before 2815bb9: no streams cursor), and says how to keep its weights', async () => {
    const rt = await testRuntime('opengles');
    const store = new MemoryBackend();
    const short = { ...CFG, stages: CFG.stages.slice(0, 1) };
    (await runPipeline(rt, short, {}, { ...OPTS, checkpoints: { store, every: 12, keepLast: 1 } })).weights.destroy();
    const [id] = (await store.list()).complete;
    const manifest = JSON.parse((await store.readManifest(id))!);
    expect(manifest.training.cursors.streams).toBe(STAGE_STREAMS_VERSION); // what the runner saves today
    expect((await resumePipeline(rt, store, short, MICRO_MODEL))?.step).toBe(24);
    for (const [streams, reads] of [[undefined, /streams unversioned, before 2815bb9; this one uses version 2/], [1, /streams version 1; this one uses version 2/]] as const) {
      const cursors = { ...manifest.training.cursors, streams };
      await store.commit(id, JSON.stringify({ ...manifest, training: { ...manifest.training, cursors } }));
      await expect(resumePipeline(rt, store, short, MICRO_MODEL)).rejects.toThrow(reads);
      await expect(resumePipeline(rt, store, short, MICRO_MODEL)).rejects.toThrow(/npm run export -- --checkpoint PATH --format hf --out DIR/);
    }
  }, 120_000);
});
