import { describe, expect, it } from 'vitest';
import { optionsShowing } from './fields';
import { ADVANTAGE_MODES, ROLLOUT_MODES } from './stageFields';

describe('optionsShowing: a select shows the value the config holds', () => {
  it('adds an option for a value no option lists (the default written out, an unlisted staleness)', () => {
    const adv = optionsShowing(ADVANTAGE_MODES, 'std');
    expect(adv.map((o) => o.value)).toEqual(['', 'mean', 'std']);
    expect(adv[2].label).toBe('std (from the config)');
    expect(optionsShowing(ROLLOUT_MODES, 3).map((o) => o.value)).toEqual(['', '1', '2', '4', '3']);
  });

  it('leaves the options alone when the value is listed or absent', () => {
    expect(optionsShowing(ADVANTAGE_MODES, 'mean')).toBe(ADVANTAGE_MODES);
    expect(optionsShowing(ROLLOUT_MODES, 2)).toBe(ROLLOUT_MODES);
    expect(optionsShowing(ADVANTAGE_MODES, undefined)).toBe(ADVANTAGE_MODES);
    expect(optionsShowing(ADVANTAGE_MODES, null)).toBe(ADVANTAGE_MODES);
  });
});
