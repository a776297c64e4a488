import { describe, expect, it } from 'vitest';
import type { EncodedDoc } from './packing';
import { branchSegment, segmentSees } from './segments';
import { packSharedPrefixRows, sharedPrefixLength } from './sharedPrefixRows';

/** A prompt of ids 1…P (mask 0) then a response (mask 1). */
const doc = (P: number, response: number[]): EncodedDoc => ({
  ids: [...Array.from({ length: P }, (_, i) => i + 1), ...response],
  mask: [...new Array(P).fill(0), ...response.map(() => 1)],
});

describe('sharedPrefixLength', () => {
  it('is one less than the common prompt, so each branch starts with the last prompt token', () => {
    expect(sharedPrefixLength([doc(5, [90, 91]), doc(5, [92])])).toBe(4);
  });
  it('stops before the first scored target even when the samples agree past it', () => {
    expect(sharedPrefixLength([doc(5, [90, 91, 92]), doc(5, [90, 91, 93])])).toBe(4);
  });
  it('stops where the prompts differ, and is 0 for one document or nothing in common', () => {
    const other = doc(5, [90]);
    other.ids[3] = 77;
    expect(sharedPrefixLength([doc(5, [90]), other])).toBe(2);
    expect(sharedPrefixLength([doc(5, [90])])).toBe(0);
    const first = doc(5, [90]);
    first.ids[0] = 55;
    expect(sharedPrefixLength([first, doc(5, [91])])).toBe(0);
  });
});

describe('packSharedPrefixRows', () => {
  it('lays out [prompt | branch per sample]: own positions, branch segments, targets and masks', () => {
    const docs = [doc(5, [90, 91]), doc(5, [92]), doc(5, [93, 94, 95])];
    const { rows, placements } = packSharedPrefixRows(docs, [0, 0, 0], { seqLen: 16, padId: 0 });
    expect(rows).toHaveLength(1);
    const r = rows[0];
    // prompt tokens 1..4 (S = 4), then branches [5 90 91] [5 92] [5 93 94 95]
    expect([...r.inputIds]).toEqual([1, 2, 3, 4, 5, 90, 91, 5, 92, 5, 93, 94, 95, 0, 0, 0]);
    expect([...r.positions]).toEqual([0, 1, 2, 3, 4, 5, 6, 4, 5, 4, 5, 6, 7, 0, 0, 0]);
    const [b0, b1, b2] = [0, 1, 2].map((j) => branchSegment(0, j));
    expect([...r.segments]).toEqual([0, 0, 0, 0, b0, b0, b0, b1, b1, b2, b2, b2, b2, -1, -1, -1]);
    expect([...r.targets]).toEqual([2, 3, 4, 5, 90, 91, 0, 92, 0, 93, 94, 95, 0, 0, 0, 0]);
    expect([...r.mask]).toEqual([0, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0]);
    expect(placements).toEqual([
      { row: 0, start: 0, length: 7, shared: 4 },
      { row: 0, start: 3, length: 6, shared: 4 },
      { row: 0, start: 5, length: 8, shared: 4 },
    ]);
    // placement addressing: token i ≥ shared sits at start + i
    docs.forEach((d, m) => {
      for (let i = 4; i < d.ids.length; i++) expect(r.inputIds[placements[m].start + i]).toBe(d.ids[i]);
    });
    expect(segmentSees(b1, 0) && !segmentSees(b1, b0) && !segmentSees(0, b1)).toBe(true);
  });

  it('splits a group that does not fit a row into blocks, each with its own copy of the prompt; groups never share', () => {
    const docs = [doc(6, [90, 91, 92]), doc(6, [93, 94, 95]), doc(6, [96, 97, 98]), doc(6, [99])];
    const { rows, placements } = packSharedPrefixRows(docs, [0, 0, 0, 1], { seqLen: 16, padId: 0 });
    // group 0: S = 5, branches of 4 → 5 + 4 + 4 = 13 fits, a third (17) does not: it opens a new block
    expect(placements.map((p) => p.row)).toEqual([0, 0, 1, 1]);
    expect([...rows[1].segments]).toEqual([0, 0, 0, 0, 0, branchSegment(0, 0), branchSegment(0, 0), branchSegment(0, 0), branchSegment(0, 0), 1, 1, 1, 1, 1, 1, 1]);
    expect(placements[3]).toEqual({ row: 1, start: 9, length: 7, shared: 0 }); // a lone sample is a plain document
    expect(rows[1].positions[9]).toBe(0);
  });

  it('one block per row with pack: false, and refuses a document longer than a row', () => {
    const docs = [doc(3, [90]), doc(3, [91]), doc(3, [92])];
    expect(packSharedPrefixRows(docs, [0, 1, 2], { seqLen: 8, padId: 0, pack: false }).rows).toHaveLength(3);
    expect(() => packSharedPrefixRows([doc(9, [90])], [0], { seqLen: 8, padId: 0 })).toThrow(/raise seqLen/);
  });
});
