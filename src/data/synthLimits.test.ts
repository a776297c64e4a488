// synth on huge or absurd input: bounded counts, bounded shares, and output that streams out while
// the run goes on instead of being held to the end.
import { describe, expect, it } from 'vitest';
import { fakeFamily } from '../eval/fakeFamily';
import type { EnvFamily } from '../envs/types';
import { MAX_MIX_SHARE, MAX_SYNTH_CONVERSATIONS } from '../util/limits';
import { allocateCounts, streamMix, synthesizeMix, type MixPart, type MixProgress } from './synth';
import { parseSynthArgs } from './synthArgs';

const other = { ...fakeFamily({ expertWrongEvery: 4 }), name: 'other' } as unknown as EnvFamily;
const PARTS: MixPart[] = [{ family: fakeFamily(), share: 3 }, { family: other, share: 1 }];

describe('synth limits', () => {
  it('refuses --n beyond the bound and absurd or empty --mix shares, with what to do', () => {
    expect(() => parseSynthArgs(['--n', '1000000000', '--out', 'o'])).toThrow(`--n 1000000000 is more than the ${MAX_SYNTH_CONVERSATIONS} conversations one run writes; run several times with different --seed values`);
    expect(() => parseSynthArgs(['--n', String(MAX_SYNTH_CONVERSATIONS), '--out', 'o'])).not.toThrow();
    expect(() => parseSynthArgs(['--n', '10', '--out', 'o', '--mix', 'coding=1e308,service=1e308'])).toThrow(`shares are relative (2,1,1 is a 50/25/25 mix) and at most ${MAX_MIX_SHARE}`);
    for (const mix of ['coding=Infinity', 'coding=NaN', 'coding=', 'coding=-1', 'coding=1=2']) {
      expect(() => parseSynthArgs(['--n', '10', '--out', 'o', '--mix', mix]), mix).toThrow(/is not family=share/);
    }
    expect(() => allocateCounts(10, [1e308, 1e308])).toThrow(/mix shares must be numbers from 0 to/);
    expect(allocateCounts(10, [MAX_MIX_SHARE, 1e-9])).toEqual([10, 0]);
  });

  it('writes conversations while the run goes on, holding at most the mixing window', async () => {
    const progress: MixProgress[] = [];
    const writtenAt: number[] = []; // episodes run when each conversation was written
    const result = await streamMix(PARTS, { n: 40, seed: 3, window: 8, onProgress: (p) => progress.push(p) }, () => writtenAt.push(progress.length));
    expect(writtenAt).toHaveLength(40);
    expect(writtenAt[0]).toBeLessThanOrEqual(12); // the 9th kept conversation pushes the first one out
    const held = progress.map((p, i) => p.accepted.reduce((a, b) => a + b, 0) - writtenAt.filter((w) => w <= i + 1).length);
    expect(Math.max(...held)).toBeLessThanOrEqual(8);
    expect(progress.at(-1)).toMatchObject({ accepted: [30, 10], wanted: [30, 10] });
    expect(result.stats.map((s) => s.accepted)).toEqual([30, 10]);
  });

  it('mixes families through the run and stays deterministic', async () => {
    const a = await synthesizeMix(PARTS, { n: 40, seed: 9 });
    const b = await synthesizeMix(PARTS, { n: 40, seed: 9 });
    expect(a.items.map((i) => i.taskId)).toEqual(b.items.map((i) => i.taskId));
    expect(new Set(a.items.slice(0, 10).map((i) => i.family)).size).toBe(2);
  });
});
