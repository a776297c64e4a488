import { describe, expect, it } from 'vitest';
import { parseLearnArgs } from './learnArgs';

describe('parseLearnArgs', () => {
  it('reads the documented flags', () => {
    const a = parseLearnArgs(['--family', 'function-calling', '--preset', 'tiny', '--steps', '12', '--out=m.jsonl', '--lr', '3e-3', '--group', '8', '--kl', '0.02', '--min-lr-ratio', '0.1', '--skip-before', '--eval-every', '10', '--no-component-credit']);
    expect(a).toMatchObject({ family: 'function-calling', preset: 'tiny', steps: 12, out: 'm.jsonl', lr: 3e-3, group: 8, kl: 0.02, minLrRatio: 0.1, skipBefore: true, seed: 1, evalEvery: 10, noComponentCredit: true });
    const plain = parseLearnArgs(['--family', 'function-calling']);
    expect([plain.noComponentCredit, plain.evalEvery, plain.kl]).toEqual([false, undefined, undefined]); // the recipe's defaults apply
  });

  it('rejects what it cannot run, saying why', () => {
    expect(() => parseLearnArgs([])).toThrow(/--family is required/);
    expect(() => parseLearnArgs(['--family', 'service'])).toThrow(/only function-calling/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--preset', 'small'])).toThrow(/nano or tiny/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--steps', '-1'])).toThrow(/integer ≥ 0/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--group', '1'])).toThrow(/integer ≥ 2/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--out'])).toThrow(/--out needs a value/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--kl', '-0.1'])).toThrow(/--kl needs a number ≥ 0/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--min-lr-ratio', '2'])).toThrow(/in \[0, 1\]/);
    expect(() => parseLearnArgs(['--family', 'function-calling', '--bogus'])).toThrow(/unknown option/);
  });

  it('allows --help alone', () => {
    expect(parseLearnArgs(['--help']).help).toBe(true);
  });
});
