import { describe, expect, it } from 'vitest';
import { parseMergeTableArgs } from './mergeTableArgs';

describe('parseMergeTableArgs', () => {
  it('the "All + merge" example with the stage sizes, seed and n given; every method that merges three models', () => {
    const a = parseMergeTableArgs(['--seed', '4', '--shared-sft-steps', '30', '--specialist-sft-steps', '16', '--specialist-sft-examples', '64', '--grpo-steps', '0', '--n', '16', '--out', 't.json']);
    expect(a.config.seed).toBe(4);
    expect(a.config.stages.map((s) => `${s.kind}${'steps' in s ? ` ${s.steps}` : ''}${'specialists' in s && s.specialists ? ' specialists' : ''}`)).toEqual(['sft 30', 'sft 16 specialists', 'eval', 'merge', 'eval']);
    expect(a.config.stages[1]).toMatchObject({ data: { examples: 64 } });
    expect(a.methods).toEqual(['linear', 'task-arithmetic', 'ties', 'dare-linear', 'dare-ties', 'ram']); // slerp merges two
    expect(a).toMatchObject({ n: 16, out: 't.json' });
    expect(parseMergeTableArgs(['--methods', 'ties,linear']).methods).toEqual(['ties', 'linear']);
  });

  it('rejects bad values and repeated flags, saying which', () => {
    expect(() => parseMergeTableArgs(['--n', '0'])).toThrow(/--n needs a whole number ≥ 1, got '0'/);
    expect(() => parseMergeTableArgs(['--n', '2', '--n', '3'])).toThrow(/--n is given twice/);
    expect(() => parseMergeTableArgs(['--specialist-sft-steps', 'x'])).toThrow(/--specialist-sft-steps/);
    expect(() => parseMergeTableArgs(['--bogus'])).toThrow(/bogus/);
  });
});
