import { describe, expect, it } from 'vitest';
import { DEFAULT_DEMO, demoConfig } from '../pipeline/demoPipeline';
import { trainingShape } from '../pipeline/runner';
import { DEFAULT_RUN_CONFIG, DEMO_TRAINING_SHAPE, describeErrors, fromFormValues, toFormValues, validateRunConfig } from './runConfig';

describe('RunConfig validation', () => {
  it("defaults to the demo pipeline's settings", () => {
    const { preset, seed, sftSteps, rlSteps, tasksPerStep, groupSize } = DEFAULT_DEMO;
    expect(DEFAULT_RUN_CONFIG).toEqual({ preset, seed, sftSteps, rlSteps, tasksPerStep, groupSize, quick: false });
  });

  it("estimates fit at the demo pipeline's training shape", () => {
    const { batch, seqLen, referenceCopy } = trainingShape(demoConfig(DEFAULT_DEMO));
    expect(DEMO_TRAINING_SHAPE).toEqual({ batchSize: batch, seqLen, referenceCopy });
  });

  it('accepts the defaults', () => {
    expect(validateRunConfig(DEFAULT_RUN_CONFIG)).toEqual({ ok: true, config: DEFAULT_RUN_CONFIG });
  });

  it('names each bad field with a message a person can act on', () => {
    const r = validateRunConfig({ ...DEFAULT_RUN_CONFIG, preset: 'huge', seed: -1, sftSteps: 2.5, rlSteps: -1, groupSize: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.preset).toBe('must be one of nano, tiny, small');
    expect(r.errors.seed).toBe('must be at least 0');
    expect(r.errors.sftSteps).toBe('must be a whole number');
    expect(r.errors.rlSteps).toBe('must be at least 0');
    expect(r.errors.groupSize).toBe('must be at least 2');
    expect(r.errors.tasksPerStep).toBeUndefined();
  });

  it('reads form text strictly: empty is required, junk is not a number', () => {
    const values = { ...toFormValues(DEFAULT_RUN_CONFIG), seed: '', rlSteps: '3x', sftSteps: ' 12 ' };
    const r = validateRunConfig(fromFormValues(values));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual({ seed: 'is required', rlSteps: 'must be a number' });
    expect(describeErrors(r.errors)).toBe('seed is required; rlSteps must be a number');
  });

  it('round-trips through form values', () => {
    const config = { ...DEFAULT_RUN_CONFIG, rlSteps: 0, quick: true, groupSize: 4 };
    expect(validateRunConfig(fromFormValues(toFormValues(config)))).toEqual({ ok: true, config });
  });

  it('drops keys of older links (batchSize, seqLen, lr)', () => {
    expect(validateRunConfig({ ...DEFAULT_RUN_CONFIG, batchSize: 4, seqLen: 384, lr: 8e-3 })).toEqual({ ok: true, config: DEFAULT_RUN_CONFIG });
  });
});
