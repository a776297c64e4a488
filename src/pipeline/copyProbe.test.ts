// The copy probe's held-out drills are unseen strings, and a tiny run reports one point per probe
// with the exact-copy rate over every held-out drill (the long runs are `npm run copy-probe`).
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { parseCopyProbeArgs } from '../../scripts/lib/copyProbeArgs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProbeFolder, saveProbeFolder } from '../../scripts/lib/copyProbeFolder';
import { PRESETS } from '../model/config';
import { initialWeights } from '../model/weights';
import { tokenizerForModel } from '../tokenizer';
import { defaultRenderer } from '../train/rl/rollout';
import { COPY_PROBE_DEFAULTS, copyProbeDrills, drillText, runCopyProbe, scoreCopies, valueMask, valueMaskedDocs } from './copyProbe';
import { encodeSftConversations } from './sftData';

describe('copy probe', () => {
  it('held-out strings never occur in the training drills', () => {
    const { train, heldOut } = copyProbeDrills({ drills: 5000, heldOut: 64, seed: 1 });
    const seen = new Set(train.map(drillText));
    expect(heldOut).toHaveLength(64);
    expect(heldOut.filter((c) => seen.has(drillText(c)))).toEqual([]);
    expect(heldOut.every((c) => drillText(c).length >= 2)).toBe(true);
  });

  it('a continued probe never holds out a string its weights trained on', () => {
    const first = copyProbeDrills({ drills: 64, heldOut: 64, seed: 1 });
    // the continuation's own stream is another seed; the first run's HELD-OUT strings were trained on since
    const trained = first.heldOut.map(drillText);
    const next = copyProbeDrills({ drills: 64, heldOut: 64, seed: 1 }, trained);
    expect(next.heldOut.filter((c) => trained.includes(drillText(c)))).toEqual([]);
    expect(next.heldOut).toHaveLength(64);
  });

  it('--save writes a folder that --from loads back exactly, with the drill streams behind it; another shape is refused', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'copy-probe-')), 'saved');
    const params = initialWeights(PRESETS.nano, 5);
    const point = { step: 7, loss: 1, heldOutDrillLoss: 2, heldOutFirstTokenLoss: 3, heldOutRestLoss: 1, heldOutInductionLoss: NaN, exact: { successes: 0, n: 1, rate: 0, lo: 0, hi: 1 }, copiedPrefix: 0, example: { want: 'a', got: 'b' } };
    saveProbeFolder(dir, PRESETS.nano, params, { preset: 'nano', drillSources: [{ seed: 1, drills: 3 }, { seed: 2, drills: 2 }], totalSteps: 7, point });
    const { start, record } = loadProbeFolder(dir, 'nano');
    expect(record.totalSteps).toBe(7);
    for (const [name, v] of params) expect(start.weights.get(name)).toEqual(v);
    const { train: a } = copyProbeDrills({ drills: 3, heldOut: 1, seed: 1 });
    const { train: b } = copyProbeDrills({ drills: 2, heldOut: 1, seed: 2 });
    expect([...start.trainedStrings]).toEqual([...a, ...b].map(drillText));
    expect(() => loadProbeFolder(dir, 'tiny')).toThrow(/differs from --preset tiny in hiddenSize \(96 vs 256\).*pass the preset it was trained with \(nano\)/);
    expect(() => loadProbeFolder(join(dir, 'nope'), 'nano')).toThrow(/no copy-probe.json there/);
  });

  it('email drills: held out unseen, their masks pick the address, the folder record regenerates them', async () => {
    const tok = await tokenizerForModel(PRESETS['nano-q']);
    const { train, heldOut } = copyProbeDrills({ drills: 400, heldOut: 16, seed: 1, emails: 1 });
    const seen = new Set(train.map(drillText));
    expect(heldOut.every((c) => /@/.test(drillText(c)) && !seen.has(drillText(c)))).toBe(true);
    const docs = encodeSftConversations(heldOut, tok, defaultRenderer(tok), 256).docs;
    const decode = (ids: number[]) => tok.decode(ids);
    docs.forEach((d, i) => {
      const pick = (m: number[]) => decode(d.ids.filter((_, j) => m[j] === 1));
      expect(pick(valueMask(d, decode, 'first').mask) + pick(valueMask(d, decode, 'rest').mask)).toBe(drillText(heldOut[i]));
    });
    const dir = join(mkdtempSync(join(tmpdir(), 'copy-probe-')), 'emails');
    const point = { step: 1, loss: 1, heldOutDrillLoss: 2, heldOutFirstTokenLoss: 3, heldOutRestLoss: 1, heldOutInductionLoss: NaN, exact: { successes: 0, n: 1, rate: 0, lo: 0, hi: 1 }, copiedPrefix: 0, example: { want: 'a', got: 'b' } };
    saveProbeFolder(dir, PRESETS.nano, initialWeights(PRESETS.nano, 5), { preset: 'nano', drillSources: [{ seed: 1, drills: 400, emails: 1 }], totalSteps: 1, point });
    expect([...loadProbeFolder(dir, 'nano').start.trainedStrings]).toEqual(train.map(drillText));
  });

  it('the value masks pick the copied string\'s first token and its other tokens, nothing else', async () => {
    const tok = await tokenizerForModel(PRESETS.nano);
    const { heldOut } = copyProbeDrills({ drills: 16, heldOut: 8, seed: 1 });
    const docs = encodeSftConversations(heldOut, tok, defaultRenderer(tok), 256).docs;
    docs.forEach((d, i) => {
      const want = drillText(heldOut[i]);
      const pick = (m: number[]) => tok.decode(d.ids.filter((_, j) => m[j] === 1));
      const first = valueMask(d, (ids) => tok.decode(ids), 'first').mask;
      const rest = valueMask(d, (ids) => tok.decode(ids), 'rest').mask;
      expect(pick(first)).toBe(want[0]); // byte tokens: one letter
      expect(pick(rest)).toBe(want.slice(1));
      expect(first.every((m, j) => m === 0 || d.mask[j] === 1)).toBe(true);
    });
  });

  it('nano-q: a held-out string of one token has no \'rest\'; the rest rows keep only strings with one (a from-scratch nano-q probe failed on it)', async () => {
    const tok = await tokenizerForModel(PRESETS['nano-q']);
    const { heldOut } = copyProbeDrills({ drills: 20_000, heldOut: 64, seed: 6 });
    const docs = encodeSftConversations(heldOut, tok, defaultRenderer(tok), 256).docs;
    const decode = (ids: number[]) => tok.decode(ids);
    const single = docs.filter((d) => !valueMask(d, decode, 'rest').mask.includes(1));
    expect(single.length).toBeGreaterThan(0); // this seed's stream holds such strings (the failing run's)
    single.forEach((d) => expect(valueMask(d, decode, 'first').mask.filter((m) => m === 1)).toHaveLength(1));
    const rest = valueMaskedDocs(docs, decode, 'rest');
    expect(rest).toHaveLength(docs.length - single.length);
    expect(rest.every((d) => d.mask.includes(1))).toBe(true);
    expect(valueMaskedDocs(docs, decode, 'first')).toHaveLength(docs.length);
  });

  it('exact copy: the generated turn up to its <|im_end|> equals the target turn (the template\'s "\\n" after it is not generated)', async () => {
    const tok = await tokenizerForModel(PRESETS.nano);
    const { heldOut } = copyProbeDrills({ drills: 16, heldOut: 3, seed: 1 });
    const docs = encodeSftConversations(heldOut, tok, defaultRenderer(tok), 256).docs;
    const targets = docs.map((d) => d.ids.slice(d.mask.indexOf(1)));
    const stopIds = tok.encode('<|im_end|>');
    expect(tok.decode(targets[0]).endsWith('<|im_end|>\n')).toBe(true);
    const upToStop = targets.map((t) => t.slice(0, t.indexOf(stopIds[0]) + 1));
    const decode = (ids: number[]) => tok.decode(ids);
    expect(scoreCopies(targets, upToStop, decode, stopIds)).toEqual({ exact: 3, copied: heldOut.map(drillText).join('').length, letters: heldOut.map(drillText).join('').length });
    // one wrong letter in the second string, and a third that runs on past the string's end
    const wrong = upToStop.map((t) => t.slice());
    const at = tok.decode(wrong[1]).indexOf('"text": "') + '"text": "'.length; // byte tokens: index = position
    wrong[1][at] = wrong[1][at] === 65 ? 66 : 65;
    const third = tok.encode(tok.decode(upToStop[2]).replace(/"text": "([^"]*)"/, '"text": "$1 please"'));
    const r = scoreCopies(targets, [upToStop[0], wrong[1], third], decode, stopIds);
    expect(r.exact).toBe(1);
    expect(r.copied).toBe(drillText(heldOut[0]).length + drillText(heldOut[2]).length);
  });

  it('a tiny run probes at every --every steps and at the end', async () => {
    const rt = await testRuntime('opengles');
    const points = await runCopyProbe(rt, { ...COPY_PROBE_DEFAULTS, drills: 32, steps: 3, batch: 2, heldOut: 4, probeEvery: 2, seqLen: 256 });
    expect(points.map((p) => p.step)).toEqual([2, 3]);
    for (const p of points) {
      expect(p.exact.n).toBe(4);
      expect(Number.isFinite(p.loss)).toBe(true);
      expect(p.heldOutDrillLoss).toBeGreaterThan(0);
      expect(p.heldOutFirstTokenLoss).toBeGreaterThan(0);
      expect(p.heldOutRestLoss).toBeGreaterThan(0);
      expect(Number.isNaN(p.heldOutInductionLoss)).toBe(true); // no --induction
      expect(p.example.want.length).toBeGreaterThan(0);
    }
  }, 120_000);

  it('flags are checked', () => {
    expect(parseCopyProbeArgs(['--steps', '50', '--qk-gain', '3']).qkNormGain).toBe(3);
    expect(parseCopyProbeArgs(['--induction', '500']).induction).toBe(500);
    expect(parseCopyProbeArgs([]).induction).toBe(0);
    expect(parseCopyProbeArgs(['--emails', '0.5']).emails).toBe(0.5);
    expect(parseCopyProbeArgs([])).not.toHaveProperty('emails');
    expect(() => parseCopyProbeArgs(['--emails', '2'])).toThrow(/--emails takes a number ≥ 0 up to 1/);
    expect(parseCopyProbeArgs(['--save', 'a', '--from', 'b'])).toMatchObject({ save: 'a', from: 'b' });
    expect(() => parseCopyProbeArgs(['--from', 'b', '--qk-gain', '3'])).toThrow(/--from continues saved weights: drop one/);
    expect(() => parseCopyProbeArgs(['--save', ''])).toThrow(/--save takes a folder path/);
    expect(() => parseCopyProbeArgs(['--steps', '0'])).toThrow(/--steps takes an integer from 1 to 10000000, got '0'/);
    expect(() => parseCopyProbeArgs(['--preset', 'big'])).toThrow(/--preset takes/);
    expect(() => parseCopyProbeArgs(['--lr=-1'])).toThrow(/--lr takes a positive number/);
  });
});
