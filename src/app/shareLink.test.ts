import { describe, expect, it } from 'vitest';
import { EXAMPLE_PIPELINES } from '../pipeline/presets';
import { DEFAULT_PIPELINE } from './pipelineDraft';
import { encodePipeline, fromBase64Url, hashWithoutAutostart, MAX_ENCODED_CHARS, readShareLink, shareHash, shareUrl, toBase64Url } from './shareLink';

const service = EXAMPLE_PIPELINES.find((x) => x.id === 'service')!.config;

describe('share links', () => {
  it('base64url round-trips UTF-8 without padding or +/', () => {
    for (const text of ['', 'a', 'ab', 'abc', '{"x":"é ✓ 🚀"}', '\u00ff\u00fe>>>???']) {
      const enc = toBase64Url(text);
      expect(enc).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(fromBase64Url(enc)).toBe(text);
    }
  });

  it('round-trips every example pipeline through the hash, with and without autostart', () => {
    for (const x of EXAMPLE_PIPELINES) {
      expect(readShareLink(shareHash(x.config))).toEqual({ kind: 'ok', config: x.config, autostart: false });
      expect(readShareLink(shareHash(x.config, { autostart: true }))).toEqual({ kind: 'ok', config: x.config, autostart: true });
    }
    expect(shareHash(service).length).toBeLessThan(MAX_ENCODED_CHARS / 4);
  });

  it("keeps a stage's own lora (false under a run-wide rank, or its own rank)", () => {
    const [first, ...rest] = service.stages;
    const withLora = { ...service, lora: { rank: 4 }, stages: [{ ...first, lora: false }, ...rest] } as typeof service;
    expect(readShareLink(shareHash(withLora))).toEqual({ kind: 'ok', config: withLora, autostart: false });
  });

  it('builds a full URL, replacing an existing fragment, and reads the query string too', () => {
    const url = shareUrl('http://127.0.0.1:4173/?adapter=core#pipeline=old', service);
    expect(url).toBe(`http://127.0.0.1:4173/?adapter=core#pipeline=${encodePipeline(service)}`);
    const u = new URL(url);
    expect(readShareLink(u.hash, u.search)).toMatchObject({ kind: 'ok', config: service });
    expect(readShareLink('', `?pipeline=${encodePipeline(service)}&autostart=1`)).toEqual({ kind: 'ok', config: service, autostart: true });
    expect(readShareLink('#other=1', '')).toEqual({ kind: 'none' });
  });

  it("converts the earlier page's routing links (#config=) and says so", () => {
    const old = toBase64Url(JSON.stringify({ preset: 'tiny', seed: 7, sftSteps: 5, rlSteps: 3, tasksPerStep: 2, groupSize: 6, quick: true }));
    const r = readShareLink(`#config=${old}&autostart=1`);
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    expect(r.converted).toMatch(/older version of the page/);
    expect(r.autostart).toBe(true);
    expect(r.config).toMatchObject({ preset: 'tiny', seed: 7, tasks: [{ family: 'function-calling', level: 'route4' }] });
    const [sft, , grpo, last] = r.config.stages;
    expect(sft).toMatchObject({ kind: 'sft', steps: 5 });
    expect(grpo).toMatchObject({ kind: 'grpo', steps: 3, tasksPerStep: 2, groupSize: 6 });
    expect(last).toMatchObject({ kind: 'eval', n: 4 });
    expect(readShareLink(`#config=${toBase64Url('{"preset":"huge"}')}`)).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/older page's link with bad fields \(preset/) });
  });

  it('refuses malformed links clearly, naming the field and keeping the defaults', () => {
    const bad = (o: unknown) => readShareLink(`#pipeline=${toBase64Url(JSON.stringify(o))}&autostart=1`);
    expect(bad({ ...DEFAULT_PIPELINE, preset: 'huge' })).toMatchObject({ kind: 'invalid', error: expect.stringMatching(/^This share link's pipeline cannot be used: preset: must be one of .*nothing was started\.$/) });
    const lr = bad({ ...DEFAULT_PIPELINE, stages: [{ ...DEFAULT_PIPELINE.stages[0], lr: 5 }] });
    expect(lr).toMatchObject({ kind: 'invalid', error: expect.stringContaining('stages.0.lr: must be at most 1') });
    expect(bad({ ...DEFAULT_PIPELINE, tasks: [{ family: 'service', level: 'nope', weight: 1 }] })).toMatchObject({ kind: 'invalid', error: expect.stringContaining('tasks.0.level: service has no level "nope"') });
    expect(readShareLink('#pipeline=')).toMatchObject({ kind: 'invalid', error: expect.stringContaining('pipeline= is empty') });
    expect(readShareLink('#pipeline=%%%')).toMatchObject({ kind: 'invalid', error: expect.stringContaining('not base64url') });
    expect(readShareLink(`#pipeline=${toBase64Url('[1,2]')}`)).toMatchObject({ kind: 'invalid', error: expect.stringContaining('must decode to a JSON object') });
    expect(readShareLink(`#pipeline=${'A'.repeat(MAX_ENCODED_CHARS + 4)}`)).toMatchObject({ kind: 'invalid', error: expect.stringContaining('characters long') });
    expect(readShareLink(`#pipeline=${encodePipeline(service).slice(0, 200)}`)).toMatchObject({ kind: 'invalid', error: expect.stringContaining('cut off') });
  });

  it('drops autostart from the fragment (a reload must not start the run again)', () => {
    expect(hashWithoutAutostart('#pipeline=abc&autostart=1')).toBe('#pipeline=abc');
    expect(hashWithoutAutostart('#autostart=1')).toBe('');
  });
});
