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
    expect(parseLearnArgs(['--family', 'all']).options.tasks.map((t) => t.family)).toEqual(['function-calling', 'service', 'coding']);
  });

  it('rejects what it cannot run, saying why', () => {
    expect(() => parseLearnArgs([])).toThrow(/--family is required/);
    expect(() => parseLearnArgs(['--family', 'chess'])).toThrow(/--family must be one of function-calling, service, coding, all/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--preset', 'huge'])).toThrow(/--preset must be one of nano, tiny, small, nano-q, tiny-q/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--steps', '-1'])).toThrow(/--steps/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--steps=-1'])).toThrow(/whole number from 0/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--steps', ''])).toThrow(/--steps/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--eval-n', '1e308'])).toThrow(/whole number from 1 to 10000000/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--group', '1'])).toThrow(/whole number from 2/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--resume', 'd'])).toThrow(/--no-compare/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--keep', '2'])).toThrow(/need --save DIR/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--out'])).toThrow(/argument missing/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--kl=-0.1'])).toThrow(/--kl needs a number ≥ 0/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--credit', 'token'])).toThrow(/--credit must be one of trajectory, turn, component/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--bogus'])).toThrow(/Unknown option '--bogus'/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--steps', '1', '--steps', '2'])).toThrow(/--steps is given twice/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--seeds', '1,1'])).toThrow(/listed twice/);
    expect(() => parseLearnArgs(['--family', 'all', '--level', 'route4'])).toThrow(/--family all the mix is fixed/);
    expect(() => parseLearnArgs(['--family', 'service', '--level', 'route4'])).toThrow(/--level must be one of retail/);
  });

  it('--eval-also scores more task sets of the family at every before/after evaluation', () => {
    const a = parseLearnArgs(['--family', 'function-calling', '--level', 'bfcl', '--eval-also', 'bfcl-unseen-tools']);
    // a mix entry of weight 0: evaluated at every eval stage, never drawn for SFT data or GRPO
    expect(learningConfig(a.options).tasks).toEqual([{ family: 'function-calling', level: 'bfcl', weight: 1 }, { family: 'function-calling', level: 'bfcl-unseen-tools', weight: 0 }]);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--eval-also', 'retail'])).toThrow(/--eval-also must be one of bfcl, bfcl-unseen-tools/);
    expect(() => parseLearnArgs(['--family', 'all', '--eval-also', 'bfcl'])).toThrow(/with --family all give none/);
  });

  it('allows --help alone', () => {
    expect(parseLearnArgs(['--help']).help).toBe(true);
  });
});
