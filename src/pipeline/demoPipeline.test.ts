// The demo pipeline end to end at smoke size on llvmpipe (Node): stages and events in order, the
// summary's fields, a loaded model through `initial`, and the refusals a loaded model can get.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { type ModelConfig, PRESETS } from '../model/config';
import { initialWeights } from '../model/weights';
import { type DemoEvent, type DemoOptions, runDemo } from './demoPipeline';
import { MICRO_MODEL } from '../train/testing/microModel';

const SMOKE: DemoOptions = { preset: 'nano', seed: 3, taskSet: 'route4', sftExamples: 8, sftSteps: 2, rlSteps: 2, tasksPerStep: 2, groupSize: 2, evalTasks: 3, samples: 1, skipSelfCheck: true };

/** One layer, hidden 32, untied head: a loaded model small enough for a smoke run. */
const TINY: ModelConfig = { ...MICRO_MODEL, tieWordEmbeddings: false };

describe('demo pipeline (llvmpipe)', () => {
  it('runs SFT → eval → GRPO → eval → sample and reports both success rates', async () => {
    const rt = await testRuntime('opengles');
    const events: DemoEvent[] = [];
    const s = await runDemo(rt, SMOKE, (e) => events.push(e));
    const order = events.filter((e) => e.kind !== 'sft' && e.kind !== 'grpo').map((e) => (e.kind === 'stage' ? `stage:${e.stage}` : e.kind === 'eval' ? `eval:${e.label}` : e.kind));
    expect(order).toEqual(['stage:model', 'stage:sft', 'stage:eval', 'eval:after SFT', 'stage:grpo', 'stage:eval', 'eval:after GRPO', 'stage:sample', 'sample', 'done']);
    const afterSft = events.find((e) => e.kind === 'eval' && e.label === 'after SFT');
    // the evaluation after SFT scores the cheap baselines on the same test tasks
    expect(afterSft?.kind === 'eval' && Object.keys(afterSft.baselines)).toEqual(expect.arrayContaining(['do nothing', 'random', 'keyword rule (fit on train)']));
    expect(events.filter((e) => e.kind === 'sft').map((e) => e.kind === 'sft' && [e.metrics.step, e.totalSteps])).toEqual([[1, 2], [2, 2]]);
    const grpo = events.flatMap((e) => (e.kind === 'grpo' ? [e.progress] : []));
    expect(grpo.map((g) => [g.step, g.totalSteps])).toEqual([[1, 2], [2, 2]]);
    for (const g of grpo) {
      expect(g.successRate).toBeGreaterThanOrEqual(0);
      expect(Object.keys(g.components)).toEqual(expect.arrayContaining(['format', 'function_choice']));
      // 2 tasks per step, then up to 2 refill rounds of 1–2 tasks (sized to the groups missing)
      expect(Number.isInteger(g.groups) && g.groups >= 2 && g.groups <= 6).toBe(true);
      expect(g.groupsDropped).toBeLessThanOrEqual(g.groups);
    }
    const evals = events.flatMap((e) => (e.kind === 'eval' ? [e] : []));
    expect(evals.map((e) => e.total)).toEqual([3, 3]);
    const sample = events.find((e) => e.kind === 'sample');
    expect(sample?.kind === 'sample' && sample.text).toMatch(/^user: .*\nassistant: /);
    expect(s).toMatchObject({ model: 'preset nano', preset: 'nano', taskSet: 'route4', parameters: 432_672, evalTasks: 3, selfCheckFailures: 0 });
    expect(s.evals.map((e) => [e.label, e.split, e.total])).toEqual([['after SFT', 'test', 3], ['after GRPO', 'test', 3]]);
    for (const e of s.evals) expect(e.interval[0] <= e.success / e.total && e.success / e.total <= e.interval[1]).toBe(true);
    expect(Number.isFinite(s.firstLoss) && Number.isFinite(s.finalLoss) && Number.isFinite(s.finalReward)).toBe(true);
    expect(s.stageSeconds.sft).toBeGreaterThan(0);
    expect(s.stageSeconds.grpo).toBeGreaterThan(0);
    expect(s.seconds).toBeGreaterThanOrEqual(s.stageSeconds.sft + s.stageSeconds.grpo);
  }, 300_000);

  it('trains a loaded model from its weights, and a hook that throws stops the run', async () => {
    const rt = await testRuntime('opengles');
    const initial = { cfg: TINY, params: initialWeights(TINY, 9), label: 'tiny.safetensors' };
    const events: DemoEvent[] = [];
    const s = await runDemo(rt, { ...SMOKE, sftSteps: 1, rlSteps: 1, evalBefore: true, initial }, (e) => events.push(e));
    expect(s.model).toBe('loaded: tiny.safetensors');
    expect(s.evals[0].label).toBe('before SFT');
    expect(events.find((e) => e.kind === 'stage' && e.stage === 'model')).toMatchObject({ detail: expect.stringMatching(/^the loaded model \(tiny\.safetensors\): 0\.0\d M parameters/) });

    const stop = new Error('stopped by the user');
    await expect(runDemo(rt, { ...SMOKE, initial }, (e) => {
      if (e.kind === 'sft') throw stop;
    })).rejects.toBe(stop);
  }, 300_000);

  it('refuses a loaded model it cannot train, saying what it needs', async () => {
    const rt = await testRuntime('opengles');
    const none = () => undefined;
    const params = new Map<string, Float32Array>();
    await expect(runDemo(rt, { ...SMOKE, initial: { cfg: PRESETS['qwen3-0.6b'], params, label: 'q' } }, none))
      .rejects.toThrow(/the loaded model \(qwen3 tokenizer, vocab \d+\) cannot train on the demo's byte-tokenized tasks: it needs the byte tokenizer/);
    await expect(runDemo(rt, { ...SMOKE, initial: { cfg: { ...TINY, maxPositionEmbeddings: 128 }, params, label: 'short' } }, none))
      .rejects.toThrow("the loaded model's context (max_position_embeddings 128) is shorter than the demo's episodes (288 tokens): load a model with a context of at least 288");
  });
});
