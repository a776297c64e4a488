// Specialist stages and merge stages in the PipelineConfig: where they may stand (a merge needs ≥ 2
// specialists before it; specialists need a merge after them) and LoRA's bounds. Pure validation.
import { describe, expect, it } from 'vitest';
import { anyStageLora, PIPELINE_CONFIG_VERSION, pendingSpecialists, stageLora, stageRepeats, validatePipelineConfig } from './config';
import { EXAMPLE_PIPELINES } from './presets';

const two = [{ family: 'function-calling', level: 'route4', weight: 1 }, { family: 'function-calling', level: 'route8', weight: 1 }];
const sft = (extra: object = {}) => ({ kind: 'sft', data: { source: 'synthetic', examples: 8 }, steps: 2, batchSize: 2, lr: 1e-3, ...extra });
const grpo = (extra: object = {}) => ({ kind: 'grpo', steps: 2, tasksPerStep: 2, groupSize: 2, lr: 1e-3, ...extra });
const evalStage = { kind: 'eval', label: 'e', split: 'test', n: 2 };
const merge = (extra: object = {}) => ({ kind: 'merge', method: 'ties', ...extra });
const cfg = (stages: object[], extra: object = {}) => ({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 1, tasks: two, context: { maxTotalTokens: 384, maxNewTokensPerTurn: 64, maxTurns: 1 }, stages, ...extra,
});
const errors = (input: object) => {
  const r = validatePipelineConfig(input);
  return r.ok ? [] : r.errors;
};

describe('merge stages and specialists', () => {
  it('accepts specialists (SFT and GRPO in a row) → eval → merge → eval', () => {
    const c = cfg([sft(), grpo({ specialists: true }), grpo({ specialists: true }), evalStage, merge({ weights: [1, 2], density: 0.5 }), evalStage]);
    expect(errors(c)).toEqual([]);
    const r = validatePipelineConfig(c);
    if (!r.ok) throw new Error('unreachable');
    expect(pendingSpecialists(r.config)).toEqual([0, 0, 2, 2, 2, 0]);
    expect(stageRepeats(r.config)).toEqual([1, 2, 2, 2, 1, 1]);
  });

  it('refuses a merge before anything to merge, with fewer than two specialists, or with the wrong number of weights', () => {
    expect(errors(cfg([sft(), merge()]))).toEqual([expect.stringMatching(/^stages\.1: nothing to merge: no stage before it trains specialists/)]);
    expect(errors(cfg([merge(), sft({ specialists: true })])).join('\n')).toMatch(/stages\.0: nothing to merge[\s\S]*stages\.1\.specialists: no merge stage follows/);
    const one = { ...cfg([sft({ specialists: true }), merge()]), tasks: [two[0], { ...two[1], weight: 0 }] };
    expect(errors(one).join('\n')).toMatch(/stages\.0\.specialists: the task mix has 1 task set with weight > 0; specialists need at least two[\s\S]*stages\.1: a merge needs at least two specialists/);
    expect(errors(cfg([sft({ specialists: true }), merge({ weights: [1, 1, 1] })]))).toEqual(['stages.1.weights: 3 weights for 2 specialists; give one per task set with weight > 0, in mix order']);
    const three = { ...cfg([sft({ specialists: true }), merge({ method: 'slerp' })]), tasks: [...two, { family: 'function-calling', level: 'route8-multi', weight: 1 }] };
    expect(errors(three)).toEqual([expect.stringMatching(/^stages\.1\.method: slerp merges exactly 2 models; the task mix gives 3 specialists/)]);
    expect(errors(cfg([sft({ specialists: true }), merge({ method: 'fisher', weights: [1, 0] })]))).toEqual(["stages.1.weights: fisher weighs each specialist's Fisher by its weight; give positive weights"]);
    expect(errors(cfg([sft({ specialists: true }), merge({ method: 'fisher', weights: [1, 0.5] })]))).toEqual([]);
  });

  it('refuses specialists never merged, a plain training stage before their merge, and an unknown method', () => {
    expect(errors(cfg([grpo({ specialists: true }), evalStage]))).toEqual([expect.stringMatching(/^stages\.0\.specialists: no merge stage follows/)]);
    expect(errors(cfg([grpo({ specialists: true }), sft(), merge()]))).toEqual([expect.stringMatching(/^stages\.1: the specialists of stage 1 are not merged yet; add a merge stage before this stage/)]);
    expect(errors(cfg([grpo({ specialists: true, staleness: 1 }), merge()]))).toEqual([expect.stringMatching(/^stages\.0\.specialists: specialists train with synchronous rollouts/)]);
    expect(errors(cfg([sft({ specialists: true }), merge({ method: 'average' })]))[0]).toMatch(/^stages\.1\.method: must be one of linear, task-arithmetic, ties/);
    expect(errors(cfg([sft({ specialists: true }), merge({ density: 0 })]))).toEqual(['stages.1.density: must be more than 0']);
  });

  it('LoRA: rank a positive whole number at most the hidden size; not with async GRPO', () => {
    expect(errors(cfg([sft()], { lora: { rank: 8 } }))).toEqual([]);
    expect(errors(cfg([sft()], { lora: { rank: 8, alpha: 16 } }))).toEqual([]);
    expect(errors(cfg([sft()], { lora: { rank: 0 } }))).toEqual(['lora.rank: must be at least 1']);
    expect(errors(cfg([sft()], { lora: { rank: 2.5 } }))).toEqual(['lora.rank: must be a whole number']);
    expect(errors(cfg([sft()], { lora: { rank: 97 } }))).toEqual([expect.stringMatching(/^lora\.rank: 97 is more than preset nano's hidden size \(96\)/)]);
    expect(errors(cfg([sft()], { lora: { rank: 4, alpha: 0 } }))).toEqual(['lora.alpha: must be more than 0']);
    expect(errors(cfg([sft()], { lora: { rank: 4, extra: 1 } }))[0]).toMatch(/^lora: /);
    expect(errors(cfg([grpo({ staleness: 1 })], { lora: { rank: 4 } }))).toEqual([expect.stringMatching(/^stages\.0\.staleness: async GRPO trains all weights in its trainer worker, not LoRA adapters/)]);
  });

  it("a stage's own lora overrides config.lora for that stage: false = full fine-tuning, {rank} = adapters; checked like config.lora", () => {
    const ok = (input: object) => {
      const r = validatePipelineConfig(input);
      if (!r.ok) throw new Error(r.errors.join('; '));
      return r.config;
    };
    const mixed = ok(cfg([sft({ lora: false }), sft({ specialists: true }), grpo({ specialists: true, lora: { rank: 2, alpha: 1 } }), merge()], { lora: { rank: 8 } }));
    expect([0, 1, 2, 3].map((i) => stageLora(mixed, i))).toEqual([undefined, { rank: 8 }, { rank: 2, alpha: 1 }, undefined]);
    expect(anyStageLora(mixed)).toEqual({ rank: 8 });
    const onlyOne = ok(cfg([sft(), sft({ lora: { rank: 4 } })]));
    expect([stageLora(onlyOne, 0), stageLora(onlyOne, 1)]).toEqual([undefined, { rank: 4 }]);
    expect(anyStageLora(ok(cfg([sft({ lora: false })], { lora: { rank: 4 } })))).toBeUndefined();
    expect(errors(cfg([sft(), sft({ lora: { rank: 97 } })]))).toEqual([expect.stringMatching(/^stages\.1\.lora\.rank: 97 is more than preset nano's hidden size \(96\)/)]);
    expect(errors(cfg([sft({ lora: true })]))).toEqual(['stages.0.lora: must be false (full fine-tuning in this stage) or {rank, alpha?}']);
    expect(errors(cfg([sft({ lora: { rank: 0 } })]))[0]).toMatch(/^stages\.0\.lora/);
    // async GRPO refused where the stage trains adapters, allowed where it opts out of config.lora
    expect(errors(cfg([grpo({ staleness: 1, lora: { rank: 4 } })]))).toEqual([expect.stringMatching(/^stages\.0\.staleness: async GRPO trains all weights/)]);
    expect(errors(cfg([grpo({ staleness: 1, lora: false })], { lora: { rank: 4 } }))).toEqual([]);
  });

  it('the "All + merge" example trains a specialist per task set, scores each, merges them and scores the merge', () => {
    const x = EXAMPLE_PIPELINES.find((e) => e.id === 'merge')!;
    expect(x.config.tasks.length).toBeGreaterThanOrEqual(2);
    expect(x.config.stages.map((s) => s.kind)).toEqual(['sft', 'sft', 'grpo', 'eval', 'merge', 'eval']);
    expect(stageRepeats(x.config)).toEqual([1, 3, 3, 3, 1, 1]);
    expect(['nano', 'nano-q']).toContain(x.config.preset);
  });
});
