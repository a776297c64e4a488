// A config's `start`: the bundled model it names is checked by the schema (id, preset shape), carried
// by demoConfig, and the runner refuses to run it without its weights (never the seeded init instead).
import { describe, expect, it } from 'vitest';
import type { GpuRuntime } from '../gpu/runtime';
import { COPY_BASE } from '../model/bundledModels';
import { validatePipelineConfig } from './config';
import { DEFAULT_DEMO, demoConfig, demoDefaults, SEEDED_DEMO } from './demoPipeline';
import { runPipeline } from './runner';

const demo = demoConfig(SEEDED_DEMO);

describe("a pipeline config's start", () => {
  it('accepts a bundled model of the preset, refuses an unknown one or another preset by path', () => {
    expect(validatePipelineConfig({ ...demo, start: { bundled: COPY_BASE.id } })).toMatchObject({ ok: true });
    expect(validatePipelineConfig({ ...demo, start: { bundled: 'gpt-5' } })).toEqual({ ok: false, errors: ['start.bundled: must be one of nano-copy-base'] });
    expect(validatePipelineConfig({ ...demo, preset: 'tiny', start: { bundled: COPY_BASE.id } })).toEqual({
      ok: false, errors: ["start.bundled: nano-copy-base has preset nano's shape, the config's preset is tiny: set preset to nano or drop start"],
    });
    expect(validatePipelineConfig({ ...demo, start: {} })).toMatchObject({ ok: false });
  });

  it('is carried by demoConfig: the demo starts from the copy base, the seeded demo and other presets from their init', () => {
    expect(demo.start).toBeUndefined();
    expect(demoConfig(DEFAULT_DEMO).start).toEqual({ bundled: COPY_BASE.id });
    expect(validatePipelineConfig(demoConfig(DEFAULT_DEMO))).toMatchObject({ ok: true });
    expect(demoDefaults({})).toBe(DEFAULT_DEMO);
    expect(demoDefaults({ preset: 'nano' })).toBe(DEFAULT_DEMO);
    expect(demoDefaults({ start: null })).toBe(SEEDED_DEMO);
    expect(demoDefaults({ preset: 'tiny' })).toBe(SEEDED_DEMO);
    expect(demoDefaults({ preset: 'tiny', start: COPY_BASE.id })).toBe(DEFAULT_DEMO); // asked for: the config then refuses the mismatch
  });

  it('the runner refuses it without the weights, before touching the GPU', async () => {
    const cfg = { ...demo, start: { bundled: COPY_BASE.id } };
    await expect(runPipeline({} as GpuRuntime, cfg)).rejects.toThrow(/starts from the bundled model nano-copy-base, but no weights were given for it: load public\/models\/nano-copy-base\//);
  });
});
