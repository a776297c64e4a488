import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeTableConfigs } from '../../src/pipeline/mergeTable';
import { parseMergeTableArgs } from './mergeTableArgs';

describe('parseMergeTableArgs', () => {
  it('the "All + merge" example with the stage sizes, seed and n given; every method that merges three models', () => {
    const a = parseMergeTableArgs(['--seed', '4', '--shared-sft-steps', '30', '--specialist-sft-steps', '16', '--specialist-sft-examples', '64', '--grpo-steps', '0', '--n', '16', '--out', 't.json']);
    expect(a.config.seed).toBe(4);
    expect(a.config.stages.map((s) => `${s.kind}${'steps' in s ? ` ${s.steps}` : ''}${'specialists' in s && s.specialists ? ' specialists' : ''}`)).toEqual(['sft 30', 'sft 16 specialists', 'eval', 'merge', 'eval']);
    expect(a.config.stages[1]).toMatchObject({ data: { examples: 64 } });
    expect(a.methods).toEqual(['linear', 'task-arithmetic', 'ties', 'dare-linear', 'dare-ties', 'ram', 'fisher']); // slerp merges two
    expect(a).toMatchObject({ n: 16, out: 't.json' });
    expect(parseMergeTableArgs(['--methods', 'ties,linear']).methods).toEqual(['ties', 'linear']);
  });

  it('--tune off by default; --tune with the default grid and --tune-n half of --n; grids and --tune-n given', () => {
    expect(parseMergeTableArgs([]).tune).toBeUndefined();
    expect(parseMergeTableArgs(['--tune', '--n', '32']).tune).toEqual({ n: 16, grid: { lambda: [0.3, 0.5, 0.7, 1], density: [0.3, 0.5, 0.7], t: [0.3, 0.5, 0.7] } });
    expect(parseMergeTableArgs(['--tune', '--n', '5']).tune!.n).toBe(3);
    const a = parseMergeTableArgs(['--tune', '--tune-n', '4', '--tune-lambda', '0.25,1.5', '--tune-density', '0.9', '--tune-t', '0,1']);
    expect(a.tune).toEqual({ n: 4, grid: { lambda: [0.25, 1.5], density: [0.9], t: [0, 1] } });
    expect(() => parseMergeTableArgs(['--tune-n', '4'])).toThrow(/--tune-n sets up tuning: add --tune/);
    // the default config merges three specialists: three weights per vector
    expect(parseMergeTableArgs(['--tune', '--tune-weights', '1,1,1;0.5,1,1']).tune!.grid.weights).toEqual([[1, 1, 1], [0.5, 1, 1]]);
    expect(() => parseMergeTableArgs(['--tune-weights', '1,1,1'])).toThrow(/--tune-weights sets up tuning: add --tune/);
    expect(() => parseMergeTableArgs(['--tune', '--tune-weights', '1,1'])).toThrow(/'1,1' has 2 weights, the table merges 3 specialists/);
    expect(() => parseMergeTableArgs(['--tune', '--tune-density', '0.5,1.2'])).toThrow(/--tune-density: '1.2' is not a number in \(0, 1\]/);
    expect(() => parseMergeTableArgs(['--tune', '--tune-n', '0'])).toThrow(/--tune-n takes an integer ≥ 1/);
  });

  it('--seeds: one table per seed, the first one in the config; --seed and --seeds exclusive', () => {
    const a = parseMergeTableArgs(['--seeds', '1,2,3']);
    expect(a.seeds).toEqual([1, 2, 3]);
    expect(a.config.seed).toBe(1);
    expect(parseMergeTableArgs(['--seed', '7']).seeds).toEqual([7]);
    expect(parseMergeTableArgs([]).seeds).toEqual([a.config.seed]);
    expect(() => parseMergeTableArgs(['--seed', '1', '--seeds', '1,2'])).toThrow(/--seed or --seeds, not both/);
    expect(() => parseMergeTableArgs(['--seeds', '1,1'])).toThrow(/listed twice/);
    expect(() => parseMergeTableArgs(['--seeds', '1,x'])).toThrow(/--seeds takes an integer ≥ 0, got 'x'/);
  });

  it('every config in scripts/configs (the README\'s merge-table commands) parses and plans a table', () => {
    const dir = join(__dirname, '..', 'configs');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const f of files) {
      const a = parseMergeTableArgs(['--config', join(dir, f)]);
      expect(() => mergeTableConfigs(a.config, a.methods, a.n), f).not.toThrow();
    }
  });

  it('--scale-probe: off by default; the λ values given; bad or repeated values refused', () => {
    expect(parseMergeTableArgs([]).scaleProbe).toBeUndefined();
    expect(parseMergeTableArgs(['--scale-probe', '0.5,1']).scaleProbe).toEqual([0.5, 1]);
    expect(() => parseMergeTableArgs(['--scale-probe', '0.5,x'])).toThrow(/--scale-probe: 'x' is not a number/);
    expect(() => parseMergeTableArgs(['--scale-probe', '0.5,0.5'])).toThrow(/listed twice/);
  });

  it('--init: the folder the shared stages start from; an empty path refused', () => {
    expect(parseMergeTableArgs([]).init).toBeUndefined();
    expect(parseMergeTableArgs(['--init', '/tmp/copy/C']).init).toBe('/tmp/copy/C');
    expect(() => parseMergeTableArgs(['--init', ' '])).toThrow(/--init needs a folder path/);
  });

  it('rejects bad values and repeated flags, saying which', () => {
    expect(() => parseMergeTableArgs(['--n', '0'])).toThrow(/--n takes an integer ≥ 1, got '0'/);
    expect(() => parseMergeTableArgs(['--n', '2', '--n', '3'])).toThrow(/--n is given twice/);
    expect(() => parseMergeTableArgs(['--specialist-sft-steps', 'x'])).toThrow(/--specialist-sft-steps/);
    expect(() => parseMergeTableArgs(['--bogus'])).toThrow(/bogus/);
  });
});
