import { describe, expect, it } from 'vitest';
import { GpuError } from '../gpu/errors';
import { PRESETS } from './config';
import { assertConfigFits, assertPresetFits } from './fit';

const COMPAT = { limits: { maxBufferSize: 256 * 2 ** 20, maxStorageBufferBindingSize: 128 * 2 ** 20 } as GPUSupportedLimits };
const opts = { batch: 4, seqLen: 256, optimizer: 'adamw' as const, weightDtype: 'f32' as const };

describe('preset fit check', () => {
  it('reports parameters and memory for a preset that fits', () => {
    const r = assertPresetFits(COMPAT, 'nano', opts);
    expect(r.parameters).toBeLessThan(1e6);
    expect(r.summary).toMatch(/preset nano: 0\.43 M parameters; training at batch 4 × 256 tokens needs [\d.]+ MiB/);
  });

  it('refuses qwen3-0.6b on a 128 MiB-binding adapter, naming the limit and what to do', () => {
    let err: unknown;
    try {
      assertPresetFits(COMPAT, 'qwen3-0.6b', opts);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GpuError);
    expect((err as GpuError).code).toBe('limit-too-small');
    expect((err as GpuError).message).toMatch(/preset qwen3-0\.6b needs a [\d.]+ MiB storage binding for .*this adapter allows 128 MiB/);
  });
});

describe('config fit check (a loaded model)', () => {
  it('names the model by its label, and refuses it with the limit when too big', () => {
    const cfg = { ...PRESETS.nano };
    expect(assertConfigFits(COMPAT, cfg, opts, { label: 'the loaded model' }).summary).toMatch(/^the loaded model: 0\.43 M parameters; training at batch 4 × 256/);
    expect(() => assertConfigFits(COMPAT, PRESETS['qwen3-0.6b'], opts, { label: 'the loaded model' }))
      .toThrow(/^the loaded model: .* It does not fit this device: the loaded model needs a [\d.]+ MiB storage binding .*this adapter allows 128 MiB/);
  });
});
