import { describe, expect, it } from 'vitest';
import { turnViews } from './episodeView';

describe('episode views', () => {
  it('counts each turn\'s sampled tokens and marks a turn cut before <|im_end|> as hitting the token limit', () => {
    const END = 9;
    // prompt (turnIndex −1), turn 0 ends with <|im_end|>, tool reply, turn 1 cut at its budget
    const t = { ids: [1, 2, 5, 6, END, 3, 3, 7, 7, 7], turnIndex: [-1, -1, 0, 0, 0, -1, -1, 1, 1, 1], turns: 2, turnTotals: [0.2, 0.5] };
    expect(turnViews(t, END)).toEqual([{ tokens: 3, hitTokenLimit: false, totalAfter: 0.2 }, { tokens: 3, hitTokenLimit: true, totalAfter: 0.5 }]);
    expect(turnViews({ ...t, turnTotals: [] }, END)[1].totalAfter).toBeNull();
  });
});
