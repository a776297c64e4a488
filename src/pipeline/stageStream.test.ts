// Training streams follow the stage's place among stages of its kind (stageStream.ts), so eval
// stages never change what trains. Before, the SFT batch order and the GRPO tasks were seeded by the
// position in the stage list: an evaluation before SFT (learn --eval-before) changed every figure
// after it. The micro-model run trains SFT → GRPO with and without eval stages around them and
// expects the same weights, bit for bit — also from the SFT-vs-RL comparison of `npm run learn`, whose
// GRPO stage was seeded as stage 0 of its own config and so differed from the same run with
// --no-compare; that the comparison's later stages count the stages before them (with LoRA its GRPO
// adapters were drawn as training stage 0, the SFT stage's stream, instead of 1); and the pure
// counting rule. Node WebGPU.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { initialWeights } from '../model/weights';
import { MICRO_MODEL } from '../train/testing/microModel';
import { PIPELINE_CONFIG_VERSION, parsePipelineConfig, type StageConfig } from './config';
import { runSftRlComparison } from './comparison';
import { runPipeline } from './runner';
import { stageStream, stageStreamAfter, TRAINING_KINDS } from './stageStream';

const sft: StageConfig = { kind: 'sft', data: { source: 'synthetic', examples: 16, drills: 0 }, steps: 3, batchSize: 2, lr: 1e-2, warmupSteps: 0, minLrRatio: 1 };
const grpo: StageConfig = { kind: 'grpo', steps: 2, tasksPerStep: 2, groupSize: 2, lr: 1e-2, warmupSteps: 0, minLrRatio: 1, samplingRounds: 1, klCoef: 0, credit: 'component', temperature: 1, evalEvery: 0 };
const evalStage = (label: string): StageConfig => ({ kind: 'eval', label, split: 'test', n: 2, baselines: false });
const config = (stages: StageConfig[], extra: Record<string, unknown> = {}) => parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 7, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }],
  context: { maxTotalTokens: 288, maxNewTokensPerTurn: 16, maxTurns: 1 }, stages, ...extra,
});

describe('stage streams', () => {
  it('counts the stages of the same kind before a stage (or of the kinds given)', () => {
    const stages = [evalStage('before'), sft, evalStage('a'), grpo, sft, evalStage('b'), grpo];
    expect(stages.map((_, i) => stageStream(stages, i))).toEqual([0, 0, 1, 0, 1, 2, 1]);
    expect(stageStream(stages, 6, TRAINING_KINDS)).toBe(3);
    expect(() => stageStream(stages, 7)).toThrow(/not in a config of 7 stages/);
    // the comparison's rest (from the first GRPO stage) counts the prefix's stages
    const [before, rest] = [stages.slice(0, 3), stages.slice(3)];
    expect(rest.map((_, i) => stageStreamAfter(before, rest, i))).toEqual([0, 1, 2, 1]);
    expect(stageStreamAfter(before, rest, 0, TRAINING_KINDS)).toBe(1);
    expect(stageStream(rest, 0, TRAINING_KINDS)).toBe(0); // what the rest alone would have drawn
  });

  it('eval stages before, between and after SFT and GRPO leave the trained weights bit for bit the same', async () => {
    const rt = await testRuntime('opengles');
    const opts = { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 7) };
    const train = async (stages: StageConfig[]) => {
      const r = await runPipeline(rt, config(stages), {}, opts);
      const w = await r.weights.download();
      r.weights.destroy();
      return { w, rewards: r.grpo.flatMap((g) => g.history.map((h) => [h.metrics.reward, h.metrics.loss])), streams: r.grpo[0].streams };
    };
    const plain = await train([sft, grpo]);
    const withEvals = await train([evalStage('before SFT'), sft, evalStage('after SFT'), grpo, evalStage('after GRPO')]);
    expect(withEvals.rewards).toEqual(plain.rewards);
    for (const [name, v] of plain.w) expect(withEvals.w.get(name), name).toEqual(v);
    // npm run learn's comparison runs GRPO as a config of its own: its rl arm trains the same weights
    const cmp = await runSftRlComparison(rt, config([sft, evalStage('after SFT'), grpo, evalStage('after GRPO')]), {}, opts);
    expect(cmp.rl.grpo.flatMap((g) => g.history.map((h) => [h.metrics.reward, h.metrics.loss]))).toEqual(plain.rewards);
    for (const [name, v] of plain.w) expect(cmp.finalWeights.get(name), name).toEqual(v);
    // the micro model earns no GRPO reward (every group is dropped, nothing trains), so for GRPO the
    // weights only show that SFT matched; the recorded streams show GRPO's
    expect([withEvals.streams, cmp.rl.grpo[0].streams]).toEqual([plain.streams, { data: 0 }]);
  }, 180_000);

  it('with LoRA, the comparison\'s rl arm draws the GRPO adapters of the whole config (training stage 1, not 0)', async () => {
    const rt = await testRuntime('opengles');
    const opts = { model: MICRO_MODEL, initial: initialWeights(MICRO_MODEL, 7) };
    const cfg = (stages: StageConfig[]) => config(stages, { lora: { rank: 2 } });
    const plain = await runPipeline(rt, cfg([sft, grpo]), {}, opts);
    plain.weights.destroy();
    expect([plain.sft[0].streams, plain.grpo[0].streams]).toEqual([{ data: 0, lora: 0 }, { data: 0, lora: 1 }]);
    // the micro model earns no reward, so its GRPO steps drop every group: the weights cannot tell the
    // adapters apart, the recorded streams can
    const cmp = await runSftRlComparison(rt, cfg([sft, evalStage('after SFT'), grpo, evalStage('after GRPO')]), {}, opts);
    expect(cmp.prefix.sft[0].streams).toEqual({ data: 0, lora: 0 });
    expect(cmp.rl.grpo[0].streams).toEqual({ data: 0, lora: 1 });
  }, 180_000);
});
