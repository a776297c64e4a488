import { describe, expect, it } from 'vitest';
import { evaluateSplit, type EvalRequest } from './evaluation';

describe('evaluateSplit', () => {
  it('refuses a split the task set does not have, naming the ones it has', async () => {
    // the unseen-tools set exists only as validation and test: its functions are never trained on
    const req = { mix: [{ family: 'function-calling', level: 'bfcl-unseen-tools', weight: 1 }], split: 'train', n: 1, seeds: [1] } as unknown as EvalRequest;
    await expect(evaluateSplit(req)).rejects.toThrow(/function-calling\/bfcl-unseen-tools has no train split \(it has validation, test\)/);
  });
});
