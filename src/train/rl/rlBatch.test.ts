import { describe, expect, it } from 'vitest';
import { fakeFamily } from '../../eval/fakeFamily';
import { ByteTokenizer } from '../../tokenizer';
import { buildRlBatch } from './rlBatch';
import { DEFAULT_ROLLOUT, rolloutBatch } from './rollout';
import { fakeExpertReply, scriptedGenerator } from '../testing/scriptedGenerator';
import type { Trajectory } from './trajectory';

const tok = new ByteTokenizer();
const family = fakeFamily();

async function trajectories(): Promise<Trajectory[]> {
  const tasks = [0, 1, 2].map((i) => family.generateTask(3, i, 'train'));
  return rolloutBatch({ family, tasks, tokenizer: tok, generator: scriptedGenerator(tok, fakeExpertReply), config: { ...DEFAULT_ROLLOUT, groupSize: 2 }, seed: 9, policyVersion: 0 });
}

describe('buildRlBatch', () => {
  it('puts the record of token i at position start + i − 1 of its row (targets, mask, behaviour logp, turn)', async () => {
    const trajs = await trajectories();
    const T = 1024;
    const b = buildRlBatch(trajs, { rows: 2, seqLen: T, padId: 0, maskTruncated: false });
    expect(b.usedRows).toBe(2); // 6 episodes of ~310 tokens: 3 per 1024-token row
    expect(b.micro).toHaveLength(1);
    let tokens = 0;
    trajs.forEach((t, s) => {
      const p = b.placements[s]!;
      const mb = b.micro[p.micro];
      expect(p.length).toBe(t.ids.length);
      for (let i = 1; i < t.ids.length; i++) {
        const n = p.row * T + p.start + i - 1;
        expect(mb.rows.inputIds[n]).toBe(t.ids[i - 1]);
        expect(mb.rows.targets[n]).toBe(t.ids[i]);
        expect(mb.mask[n]).toBe(t.lossMask[i]);
        expect(mb.oldLogp[n]).toBe(Math.fround(t.behaviourLogprobs[i]));
        expect(mb.turnIndex[n]).toBe(t.turnIndex[i]);
        expect(mb.tokenIndex[n]).toBe(t.lossMask[i] ? i : -1);
        expect(mb.seqIndex[n]).toBe(s);
      }
      // The last token scores nothing (its target would be the next document).
      expect(mb.mask[p.row * T + p.start + t.ids.length - 1]).toBe(0);
      tokens += t.responseTokens;
    });
    expect(b.totals).toEqual({ tokens, sequences: 6 });
    let masked = 0;
    for (const mb of b.micro) for (const m of mb.mask) masked += m;
    expect(masked).toBe(tokens);
  });

  it('sharePrefix: a group holds its prompt once; each sample\'s records sit at start + i − 1 past the shared part', async () => {
    const trajs = await trajectories(); // 3 tasks × G = 2
    const T = 1024;
    const full = buildRlBatch(trajs, { rows: 2, seqLen: T, padId: 0, maskTruncated: false });
    const b = buildRlBatch(trajs, { rows: 2, seqLen: T, padId: 0, maskTruncated: false, sharePrefix: { groupSize: 2 } });
    trajs.forEach((t, s) => {
      const p = b.placements[s]!;
      expect(p.shared).toBeGreaterThan(100); // the rendered prompt
      const mb = b.micro[p.micro];
      for (let i = p.shared + 1; i < t.ids.length; i++) {
        const n = p.row * T + p.start + i - 1;
        expect(mb.rows.inputIds[n]).toBe(t.ids[i - 1]);
        expect(mb.rows.targets[n]).toBe(t.ids[i]);
        expect(mb.rows.positions[n]).toBe(i - 1);
        expect(mb.mask[n]).toBe(t.lossMask[i]);
        expect(mb.tokenIndex[n]).toBe(t.lossMask[i] ? i : -1);
        expect(mb.seqIndex[n]).toBe(s);
      }
    });
    expect(b.totals).toEqual(full.totals);
    const count = (x: typeof b) => x.micro.reduce((a, mb) => a + mb.rows.segments.filter((g) => g >= 0).length, 0);
    // one prompt per group: S + Σ (L − S) tokens instead of Σ L
    const want = [0, 2, 4].reduce((a, s) => a + b.placements[s]!.shared + trajs[s].ids.length + trajs[s + 1].ids.length - 2 * b.placements[s]!.shared, 0);
    expect(count(b)).toBe(want);
    expect(count(full)).toBe(trajs.reduce((a, t) => a + t.ids.length, 0));
  });

  it('pads the last micro-batch and skips trajectories with no policy token', async () => {
    const trajs = await trajectories();
    const empty: Trajectory = { ...trajs[0], lossMask: trajs[0].lossMask.map(() => 0), behaviourLogprobs: trajs[0].ids.map(() => 0), turnIndex: trajs[0].ids.map(() => -1), responseTokens: 0 };
    const b = buildRlBatch([empty, ...trajs], { rows: 4, seqLen: 512, padId: 0, maskTruncated: false, pack: false });
    expect(b.placements[0]).toBeNull();
    expect(b.usedRows).toBe(6);
    expect(b.micro).toHaveLength(2);
    const last = b.micro[1];
    expect([...last.rows.segments.slice(2 * 512)].every((s) => s === -1)).toBe(true); // rows 2, 3 are padding
    expect(b.totals.sequences).toBe(6);
  });

  it('leaves truncated trajectories out of the totals under maskTruncated', async () => {
    const trajs = await trajectories();
    trajs[1] = { ...trajs[1], truncated: true };
    const b = buildRlBatch(trajs, { rows: 2, seqLen: 1024, padId: 0, maskTruncated: true });
    expect(b.totals.sequences).toBe(5);
    expect(b.totals.tokens).toBe(trajs.reduce((a, t, s) => a + (s === 1 ? 0 : t.responseTokens), 0));
  });

  it('refuses a trajectory longer than a row, naming the fix', async () => {
    const trajs = await trajectories();
    expect(() => buildRlBatch(trajs, { rows: 2, seqLen: 128, padId: 0, maskTruncated: false })).toThrow(/raise seqLen/);
  });
});
