import { describe, expect, it } from 'vitest';
import { packDocuments, stackRows } from './packing';

const doc = (ids: number[], mask: number[]) => ({ ids, mask });

describe('packing', () => {
  it('scores each position against the next token of its own document only', () => {
    const rows = packDocuments([doc([1, 2, 3], [0, 1, 1]), doc([4, 5], [0, 1])], { seqLen: 8, padId: 0 });
    expect(rows).toHaveLength(1);
    const r = rows[0];
    expect(Array.from(r.inputIds)).toEqual([1, 2, 3, 4, 5, 0, 0, 0]);
    expect(Array.from(r.targets)).toEqual([2, 3, 0, 5, 0, 0, 0, 0]);
    expect(Array.from(r.mask)).toEqual([1, 1, 0, 1, 0, 0, 0, 0]); // last token of a document scores nothing
    expect(Array.from(r.segments)).toEqual([0, 0, 0, 1, 1, -1, -1, -1]);
    expect(Array.from(r.positions)).toEqual([0, 1, 2, 0, 1, 0, 0, 0]); // positions restart per document
  });

  it('first-fit packs in order, or one document per row without packing', () => {
    const docs = [doc([1, 2, 3, 4, 5], [0, 1, 1, 1, 1]), doc([6, 7, 8, 9], [0, 1, 1, 1]), doc([1, 2, 3], [0, 0, 1])];
    expect(packDocuments(docs, { seqLen: 8, padId: 0 }).map((r) => Array.from(r.segments))).toEqual([
      [0, 0, 0, 0, 0, 1, 1, 1],
      [0, 0, 0, 0, -1, -1, -1, -1],
    ]);
    expect(packDocuments(docs, { seqLen: 8, padId: 0, pack: false })).toHaveLength(3);
  });

  it('rejects empty and over-long conversations with the index, or truncates on request', () => {
    expect(() => packDocuments([doc([1, 2], [0, 1]), doc([3, 4], [0, 0])], { seqLen: 8, padId: 0 })).toThrow(/conversation 1 is empty or has no assistant tokens/);
    expect(() => packDocuments([doc([1, 2, 3, 4], [0, 1, 1, 1])], { seqLen: 3, padId: 0 })).toThrow(/conversation 0 has 4 tokens, more than the sequence length 3/);
    const [r] = packDocuments([doc([1, 2, 3, 4], [0, 1, 1, 1])], { seqLen: 3, padId: 0, overLong: 'truncate' });
    expect(Array.from(r.inputIds)).toEqual([1, 2, 3]);
  });

  it('stacks rows into a (B, T) batch', () => {
    const rows = packDocuments([doc([1, 2], [0, 1]), doc([3, 4], [0, 1])], { seqLen: 2, padId: 0 });
    const b = stackRows(rows);
    expect(Array.from(b.inputIds)).toEqual([1, 2, 3, 4]);
    expect(Array.from(b.segments)).toEqual([0, 0, 0, 0]);
  });
});

describe('placements', () => {
  it('report where each document landed', async () => {
    const { packDocumentsWithPlacement } = await import('./packing');
    const { placements } = packDocumentsWithPlacement([doc([1, 2, 3], [0, 1, 1]), doc([4, 5, 6, 7, 8, 9], [0, 1, 1, 1, 1, 1]), doc([4, 5], [0, 1])], { seqLen: 8, padId: 0 });
    expect(placements).toEqual([{ row: 0, start: 0, length: 3 }, { row: 1, start: 0, length: 6 }, { row: 0, start: 3, length: 2 }]);
  });
});
