import { describe, expect, it } from 'vitest';
import { CURRICULA } from '../../src/envs/taskSets';
import { parseRolloutArgs, ROLLOUT_LEVELS } from './rolloutArgs';

describe('context-stats --rollout flags', () => {
  it('defaults: nano-q, seed 1, 2 tasks × 2 samples, every service and coding level smallest first', () => {
    expect(parseRolloutArgs({})).toEqual({ preset: 'nano-q', seed: 1, tasks: 2, group: 2, levels: ROLLOUT_LEVELS });
    expect(ROLLOUT_LEVELS.map((l) => l.level)).toEqual([...CURRICULA.service, ...CURRICULA.coding]);
    expect(parseRolloutArgs({ seed: '4', tasks: '3', group: '1', preset: 'tiny-q' })).toMatchObject({ seed: 4, tasks: 3, group: 1, preset: 'tiny-q' });
  });

  it('names the bad flag and the choices', () => {
    expect(() => parseRolloutArgs({ tasks: '0' })).toThrow(/--tasks takes an integer from 1 to 16, got '0'/);
    expect(() => parseRolloutArgs({ group: 'x' })).toThrow(/--group takes/);
    expect(() => parseRolloutArgs({ seed: '1.5' })).toThrow(/--seed takes an integer, got '1.5'/);
    expect(() => parseRolloutArgs({ preset: 'nano' })).toThrow(/--preset takes one of nano-q, tiny-q/);
  });
});
