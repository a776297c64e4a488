import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN_CONFIG, type RunConfig } from './runConfig';
import { PRESETS } from '../model/config';
import { countParameters } from '../model/parameters';
import { AUTOSTART_MAX_SIZE, autostartHold, encodeRunConfig, fromBase64Url, PRESET_COST, readShareLink, runSizeVsDefault, shareHash, shareUrl, toBase64Url } from './shareLink';

const config: RunConfig = { preset: 'tiny', seed: 42, sftSteps: 7, rlSteps: 3, tasksPerStep: 2, groupSize: 4, quick: true };

describe('share links', () => {
  it('base64url round-trips UTF-8 without padding or +/', () => {
    for (const text of ['', 'a', 'ab', 'abc', '{"x":"é ✓ 🚀"}', '\u00ff\u00fe>>>???']) {
      const enc = toBase64Url(text);
      expect(enc).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(fromBase64Url(enc)).toBe(text);
    }
  });

  it('round-trips a config through the hash, with and without autostart', () => {
    expect(readShareLink(shareHash(config))).toEqual({ kind: 'ok', config, autostart: false });
    expect(readShareLink(shareHash(config, { autostart: true }))).toEqual({ kind: 'ok', config, autostart: true });
  });

  it('builds a full URL, replacing an existing fragment', () => {
    const url = shareUrl('http://127.0.0.1:4173/?adapter=core#config=old', config);
    expect(url).toBe(`http://127.0.0.1:4173/?adapter=core#config=${encodeRunConfig(config)}`);
    const u = new URL(url);
    expect(readShareLink(u.hash, u.search)).toMatchObject({ kind: 'ok', config });
  });

  it('equal configs give equal links whatever the key order', () => {
    const shuffled = { quick: true, groupSize: 4, tasksPerStep: 2, rlSteps: 3, sftSteps: 7, seed: 42, preset: 'tiny' } as RunConfig;
    expect(encodeRunConfig(shuffled)).toBe(encodeRunConfig(config));
  });

  it('reads the query string when the fragment has no config', () => {
    expect(readShareLink('', `?config=${encodeRunConfig(config)}&autostart=1`)).toEqual({ kind: 'ok', config, autostart: true });
    expect(readShareLink('#other=1', '')).toEqual({ kind: 'none' });
  });

  it('fills fields a link leaves out with the defaults', () => {
    const r = readShareLink(`#config=${toBase64Url(JSON.stringify({ sftSteps: 3 }))}`);
    expect(r).toEqual({ kind: 'ok', config: { ...DEFAULT_RUN_CONFIG, sftSteps: 3 }, autostart: false });
  });

  it.each([
    ['not base64url', '#config=%%%', /not base64url-encoded JSON/],
    ['cut off mid-character', `#config=${toBase64Url('{"preset":"nano"}').slice(0, 5)}`, /does not decode to JSON|not base64url/],
    ['an array', `#config=${toBase64Url('[1,2]')}`, /must decode to a JSON object/],
    ['a bad field', `#config=${toBase64Url(JSON.stringify({ ...config, groupSize: 1 }))}`, /groupSize must be at least 2/],
    ['empty', '#config=', /config= is empty/],
  ])('rejects a link that is %s, falling back to the defaults', (_what, hash, message) => {
    const r = readShareLink(`${hash}&autostart=1`);
    expect(r.kind).toBe('invalid');
    if (r.kind !== 'invalid') return;
    expect(r.error).toMatch(message);
    expect(r.error).toMatch(/The form shows the defaults instead and the run was not started\./);
    expect(r.config).toEqual(DEFAULT_RUN_CONFIG);
  });
});

describe('autostart of long runs', () => {
  it('lets the default run and small runs start on their own', () => {
    expect(runSizeVsDefault(DEFAULT_RUN_CONFIG)).toBeCloseTo(1, 12);
    expect(autostartHold(DEFAULT_RUN_CONFIG)).toBeNull();
    expect(autostartHold({ ...DEFAULT_RUN_CONFIG, sftSteps: 50, quick: true })).toBeNull();
    expect(autostartHold({ ...DEFAULT_RUN_CONFIG, rlSteps: 40 })).toBeNull(); // 3.25 default runs
  });

  it('holds a long run for the Start button, saying how long', () => {
    const max: RunConfig = { preset: 'small', seed: 1, sftSteps: 100_000, rlSteps: 100_000, tasksPerStep: 256, groupSize: 64, quick: false };
    expect(autostartHold(max)).toMatch(/^This link asks for a long run \(preset small, 100000 SFT steps, 100000 GRPO steps × 256 tasks × 64 samples: about 1\.4e\+8× the default run, which can take hours\)\. It was not started on its own: check the settings and press Start\.$/);
    expect(autostartHold({ ...DEFAULT_RUN_CONFIG, preset: 'tiny' })).toMatch(/about 11× the default run/);
    expect(runSizeVsDefault({ ...DEFAULT_RUN_CONFIG, rlSteps: 60 })).toBeGreaterThan(AUTOSTART_MAX_SIZE);
  });

  it('weighs presets by their parameter counts', () => {
    const nano = countParameters(PRESETS.nano);
    for (const p of ['nano', 'tiny', 'small'] as const) expect(PRESET_COST[p]).toBeCloseTo(countParameters(PRESETS[p]) / nano, 1);
  });
});
