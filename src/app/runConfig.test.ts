import { describe, expect, it } from 'vitest';
import { DEFAULT_DEMO } from '../train/demoPipeline';
import { DEFAULT_RUN_CONFIG, describeErrors, fromFormValues, toFormValues, validateRunConfig } from './runConfig';

describe('RunConfig validation', () => {
  it("defaults to the demo pipeline's settings", () => {
    const { preset, seed, sftSteps, batchSize, seqLen, lr } = DEFAULT_DEMO;
    expect(DEFAULT_RUN_CONFIG).toEqual({ preset, seed, sftSteps, batchSize, seqLen, lr, quick: false });
  });

  it('accepts the defaults', () => {
    expect(validateRunConfig(DEFAULT_RUN_CONFIG)).toEqual({ ok: true, config: DEFAULT_RUN_CONFIG });
  });

  it('names each bad field with a message a person can act on', () => {
    const r = validateRunConfig({ ...DEFAULT_RUN_CONFIG, preset: 'huge', seed: -1, sftSteps: 2.5, batchSize: 0, lr: 5 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.preset).toBe('must be one of nano, tiny, small');
    expect(r.errors.seed).toBe('must be at least 0');
    expect(r.errors.sftSteps).toBe('must be a whole number');
    expect(r.errors.batchSize).toBe('must be at least 1');
    expect(r.errors.lr).toMatch(/between 1e-7 and 1/);
    expect(r.errors.seqLen).toBeUndefined();
  });

  it("limits seqLen to the preset's context length", () => {
    const r = validateRunConfig({ ...DEFAULT_RUN_CONFIG, preset: 'nano', seqLen: 1024 });
    expect(r).toEqual({ ok: false, errors: { seqLen: 'must be at most 512 for preset nano (its context length)' } });
    expect(validateRunConfig({ ...DEFAULT_RUN_CONFIG, preset: 'tiny', seqLen: 1024 }).ok).toBe(true);
  });

  it('reads form text strictly: empty is required, junk is not a number', () => {
    const values = { ...toFormValues(DEFAULT_RUN_CONFIG), seed: '', lr: '3e-3x', sftSteps: ' 12 ' };
    const r = validateRunConfig(fromFormValues(values));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual({ seed: 'is required', lr: 'must be a number, e.g. 3e-3' });
    expect(describeErrors(r.errors)).toBe('seed is required; lr must be a number, e.g. 3e-3');
  });

  it('round-trips through form values', () => {
    const config = { ...DEFAULT_RUN_CONFIG, lr: 1e-4, quick: true, seqLen: 448 };
    expect(validateRunConfig(fromFormValues(toFormValues(config)))).toEqual({ ok: true, config });
  });
});

describe('RunConfig cross-field checks', () => {
  it('reports a too-long seqLen even when another field is invalid too', () => {
    const r = validateRunConfig({ ...DEFAULT_RUN_CONFIG, seqLen: 1024, lr: Number.NaN });
    expect(r).toEqual({ ok: false, errors: { seqLen: 'must be at most 512 for preset nano (its context length)', lr: 'must be a number, e.g. 3e-3' } });
  });
});
