import { parsePipelineConfig } from '../../src/pipeline/config';
import { describe, expect, it } from 'vitest';
import { learningConfig } from '../../src/pipeline/presets';
import { parseLearnArgs } from './learnArgs';

describe('parseLearnArgs', () => {
  it('reads the documented flags into the pipeline options', () => {
    const a = parseLearnArgs(['--family', 'function-calling', '--level', 'route4', '--preset', 'tiny', '--steps', '12', '--out=m.jsonl', '--lr', '3e-3', '--group', '8', '--kl', '0.02', '--credit', 'trajectory', '--eval-every', '10', '--sft-examples', '64', '--seeds', '1,2,3', '--no-compare']);
    expect(a.options).toMatchObject({ preset: 'tiny', rlSteps: 12, lr: 3e-3, groupSize: 8, klCoef: 0.02, credit: 'trajectory', evalEvery: 10, sftExamples: 64, seed: 1, tasks: [{ family: 'function-calling', level: 'route4', weight: 1 }] });
    expect(a).toMatchObject({ family: 'function-calling', out: 'm.jsonl', seeds: [1, 2, 3], compare: false });
    const cfg = learningConfig(a.options); // what the CLI runs: a valid pipeline config
    expect(cfg.stages.map((s) => s.kind)).toEqual(['sft', 'eval', 'eval', 'grpo', 'eval']);
    expect(parseLearnArgs(['--family', 'service']).options.tasks).toEqual([{ family: 'service', weight: 1 }]);
    // the SFT augmentations reach the sft stage's data
    const aug = learningConfig(parseLearnArgs(['--family', 'function-calling', '--sft-random-values', '0.25', '--sft-wrapped-requests', '1', '--sft-edited-requests', '0.5']).options);
    expect(aug.stages[0]).toMatchObject({ kind: 'sft', data: { source: 'synthetic', randomValues: 0.25, wrappedRequests: 1, editedRequests: 0.5 } });
    expect(() => parseLearnArgs(['--family', 'function-calling', '--sft-edited-requests', '2'])).toThrow(/sft-edited-requests/);
    const framed = learningConfig(parseLearnArgs(['--family', 'function-calling', '--sft-framed-requests', '0.5']).options);
    expect(framed.stages[0]).toMatchObject({ kind: 'sft', data: { source: 'synthetic', framedRequests: 0.5 } });
    expect(() => parseLearnArgs(['--family', 'function-calling', '--sft-framed-requests', '1.5'])).toThrow(/sft-framed-requests/);
    const renamed = learningConfig(parseLearnArgs(['--family', 'service', '--level', 'status', '--sft-random-users', '0.75']).options);
    expect(renamed.stages[0]).toMatchObject({ kind: 'sft', data: { source: 'synthetic', randomUsers: 0.75 } });
    expect(learningConfig(parseLearnArgs(['--family', 'service']).options).stages[0]).not.toHaveProperty('data.randomUsers');
    expect(() => parseLearnArgs(['--family', 'service', '--sft-random-users', '-1'])).toThrow(/sft-random-users/);
    const emails = learningConfig(parseLearnArgs(['--family', 'service', '--level', 'status', '--sft-drills', '64', '--sft-drill-emails', '0.5']).options);
    expect(parsePipelineConfig(emails).stages[0]).toMatchObject({ kind: 'sft', data: { source: 'synthetic', drills: 64, drillEmails: 0.5 } });
    expect(() => parsePipelineConfig(learningConfig(parseLearnArgs(['--family', 'service', '--sft-drill-emails', '0.5']).options))).toThrow(/drillEmails is the share of the copy drills that are email drills: set drills > 0 too/);
    expect(() => parseLearnArgs(['--family', 'service', '--sft-drill-emails', '2'])).toThrow(/sft-drill-emails/);
    const demo = learningConfig(parseLearnArgs(['--family', 'function-calling', '--level', 'route4', '--sft-phrasings', '4']).options);
    expect(demo.stages[0]).toMatchObject({ kind: 'sft', data: { source: 'synthetic', phrasings: 4 } });
    expect(learningConfig(parseLearnArgs(['--family', 'function-calling']).options).stages[0]).not.toHaveProperty('data.phrasings');
    expect(() => parseLearnArgs(['--family', 'function-calling', '--sft-phrasings', '0'])).toThrow(/sft-phrasings/);
    expect(parseLearnArgs(['--family', 'all']).options.tasks.map((t) => t.family)).toEqual(['function-calling', 'service', 'coding']);
  });

  it('rejects what it cannot run, saying why', () => {
    expect(() => parseLearnArgs([])).toThrow(/--family is required/);
    expect(() => parseLearnArgs(['--family', 'chess'])).toThrow(/--family takes one of function-calling, service, coding, all, got 'chess'/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--preset', 'huge'])).toThrow(/--preset takes one of nano, tiny, small, nano-q, tiny-q, qwen3-0\.6b/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--steps', '-1'])).toThrow(/--steps/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--steps=-1'])).toThrow(/--steps takes an integer from 0 to 10000000, got '-1'/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--steps', ''])).toThrow(/--steps/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--eval-n', '1e308'])).toThrow(/--eval-n takes an integer from 1 to 10000000, got '1e308'/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--group', '1'])).toThrow(/--group takes an integer from 2/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--resume', 'd'])).toThrow(/--no-compare/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--keep', '2'])).toThrow(/need --save DIR/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--out'])).toThrow(/argument missing/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--kl=-0.1'])).toThrow(/--kl takes a number ≥ 0 up to 100, got '-0.1'/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--credit', 'token'])).toThrow(/--credit takes one of trajectory, turn, component/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--bogus'])).toThrow(/Unknown option '--bogus'/);
    expect(parseLearnArgs(['--family', 'function-calling', '--reward-weights', 'exact_match=1, function_choice=0']).options.rewardWeights).toEqual({ exact_match: 1, function_choice: 0 });
    expect(() => parseLearnArgs(['--family', 'function-calling', '--reward-weights', 'exact_match'])).toThrow(/"exact_match" is not COMPONENT=WEIGHT/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--reward-weights', 'format=-1'])).toThrow(/--reward-weights takes a number ≥ 0/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--reward-weights', 'format=1,format=0'])).toThrow(/format is given twice/);
    expect(parseLearnArgs(['--family', 'function-calling', '--temperature', '1.5']).options.temperature).toBe(1.5);
    expect(parseLearnArgs(['--family', 'function-calling']).options.temperature).toBeUndefined();
    expect(() => parseLearnArgs(['--family', 'function-calling', '--temperature', '0'])).toThrow(/--temperature takes a number ≥ 0.05 up to 5, got '0'/);
    const o = parseLearnArgs(['--family', 'function-calling', '--entropy-coef', '0.005', '--advantage', 'mean']).options;
    expect([o.entropyCoef, o.advantage]).toEqual([0.005, 'mean']);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--entropy-coef', '2'])).toThrow(/--entropy-coef/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--advantage', 'median'])).toThrow(/--advantage/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--eval-only', '--advantage', 'mean'])).toThrow(/--advantage/);
    expect(learningConfig(parseLearnArgs(['--family', 'function-calling', '--random-values', '0.5']).options).stages.find((s) => s.kind === 'grpo')).toMatchObject({ randomValues: 0.5 });
    expect(learningConfig(parseLearnArgs(['--family', 'function-calling']).options).stages.find((s) => s.kind === 'grpo')).not.toHaveProperty('randomValues');
    expect(() => parseLearnArgs(['--family', 'function-calling', '--random-values', '1.5'])).toThrow(/--random-values takes a number ≥ 0 up to 1, got '1.5'/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--sft-random-values', '1.5'])).toThrow(/--sft-random-values takes a number ≥ 0 up to 1, got '1.5'/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--steps', '1', '--steps', '2'])).toThrow(/--steps is given twice/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--seeds', '1,1'])).toThrow(/listed twice/);
    expect(() => parseLearnArgs(['--family', 'all', '--level', 'route4'])).toThrow(/--family all the mix is fixed/);
    expect(() => parseLearnArgs(['--family', 'service', '--level', 'route4'])).toThrow(/--level takes one of retail/);
  });

  it('--model: a loaded Qwen3 folder with LoRA (preset qwen3-0.6b, rank 16, LoRA learning rates, Qwen3 JSON-tools context)', () => {
    const a = parseLearnArgs(['--family', 'function-calling', '--level', 'route4', '--model', '/m']);
    expect(a).toMatchObject({ model: '/m', loraRank: 16, options: { preset: 'qwen3-0.6b', sftLr: 2e-4, lr: 5e-5 } });
    expect(learningConfig(a.options).context).toEqual({ maxTotalTokens: 448, maxNewTokensPerTurn: 64, maxTurns: 1 }); // nano's is 288 (compact tools)
    expect(learningConfig(parseLearnArgs(['--family', 'function-calling', '--level', 'route4']).options).context.maxTotalTokens).toBe(288);
    const b = parseLearnArgs(['--family', 'function-calling', '--preset', 'qwen3-0.6b', '--model', '/m', '--lora-rank', '8', '--sft-lr', '1e-3', '--lr', '1e-4', '--budget-gib', '4']);
    expect(b).toMatchObject({ loraRank: 8, budgetBytes: 4 * 2 ** 30, options: { sftLr: 1e-3, lr: 1e-4 } });
  });

  it('refuses what a --model run cannot do, saying why', () => {
    const fc = ['--family', 'function-calling'];
    expect(() => parseLearnArgs([...fc, '--preset', 'qwen3-0.6b'])).toThrow(/--preset qwen3-0\.6b needs --model DIR .*there is no seeded init of 0\.6B worth training/);
    expect(() => parseLearnArgs([...fc, '--model', '/m', '--preset', 'nano'])).toThrow(/--model loads a Qwen3 model \(preset qwen3-0\.6b\); --preset nano is a seeded init/);
    expect(() => parseLearnArgs([...fc, '--lora-rank', '8'])).toThrow(/--lora-rank applies to --model runs/);
    expect(() => parseLearnArgs([...fc, '--budget-gib', '4'])).toThrow(/--budget-gib applies to --model runs/);
    expect(() => parseLearnArgs([...fc, '--model', '/m', '--lora-rank', '0'])).toThrow(/--lora-rank takes an integer from 1 to 1024/);
    expect(() => parseLearnArgs([...fc, '--model', '/m', '--async', '1'])).toThrow(/--async runs full-parameter models/);
    expect(() => parseLearnArgs([...fc, '--model', '/m', '--no-compare', '--resume', 'd'])).toThrow(/a --model run saves no checkpoints/);
    expect(() => parseLearnArgs([...fc, '--model', '/m', '--save', 'd', '--save-every', '5'])).toThrow(/which a --model run does not write/);
  });

  it('--eval-also scores more task sets of the family at every before/after evaluation', () => {
    const a = parseLearnArgs(['--family', 'function-calling', '--level', 'bfcl', '--eval-also', 'bfcl-unseen-tools']);
    // a mix entry of weight 0: evaluated at every eval stage, never drawn for SFT data or GRPO
    expect(learningConfig(a.options).tasks).toEqual([{ family: 'function-calling', level: 'bfcl', weight: 1 }, { family: 'function-calling', level: 'bfcl-unseen-tools', weight: 0 }]);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--eval-also', 'retail'])).toThrow(/--eval-also takes one of bfcl, bfcl-unseen-tools/);
    expect(() => parseLearnArgs(['--family', 'all', '--eval-also', 'bfcl'])).toThrow(/with --family all give none/);
  });

  it('--eval-only: one evaluation with the baselines, 3 samples by default; training flags refused by name', () => {
    const a = parseLearnArgs(['--family', 'function-calling', '--level', 'route4', '--eval-only', '--eval-split', 'validation', '--eval-n', '16']);
    expect(a).toMatchObject({ evalOnly: true, compare: false, samples: 3 });
    expect(learningConfig(a.options).stages).toEqual([{ kind: 'eval', label: 'model', split: 'validation', n: 16, baselines: true }]);
    // train: the memorisation check beside a held-out figure (the seed's train tasks: trained templates, fresh instances)
    expect(learningConfig(parseLearnArgs(['--family', 'coding', '--eval-only', '--eval-split', 'train', '--eval-n', '8']).options).stages).toEqual([{ kind: 'eval', label: 'model', split: 'train', n: 8, baselines: true }]);
    expect(() => parseLearnArgs(['--family', 'coding', '--eval-only', '--eval-split', 'training'])).toThrow(/--eval-split.*validation, test, train/);
    expect(parseLearnArgs(['--family', 'service', '--eval-only', '--samples', '0']).samples).toBe(0);
    expect(parseLearnArgs(['--family', 'service', '--samples', '2']).samples).toBe(2); // a training run prints samples too
    expect(() => parseLearnArgs(['--family', 'service', '--eval-only', '--sft-steps', '5', '--steps', '2'])).toThrow(/--eval-only trains nothing, so --sft-steps, --steps would do nothing: drop them/);
    expect(() => parseLearnArgs(['--family', 'service', '--eval-only', '--save', 'x'])).toThrow(/--save would do nothing: drop it/);
  });

  it('allows --help alone', () => {
    expect(parseLearnArgs(['--help']).help).toBe(true);
  });
});
