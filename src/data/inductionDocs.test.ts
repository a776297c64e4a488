// Induction documents are a run repeated once, scored on the predictable part of the repeat only.
import { describe, expect, it } from 'vitest';
import { inductionDocs, tokenPool } from './inductionDocs';

describe('induction documents', () => {
  it('repeat a seeded run from the pool and score tokens 2..L of the repeat', () => {
    const pool = [5, 9, 11, 40];
    const docs = inductionDocs(50, pool, 3, { minRun: 4, maxRun: 9 });
    for (const d of docs) {
      const L = d.ids.length / 2;
      expect(Number.isInteger(L) && L >= 4 && L <= 9).toBe(true);
      expect(d.ids.slice(L)).toEqual(d.ids.slice(0, L));
      expect(d.ids.every((t) => pool.includes(t))).toBe(true);
      expect(d.mask).toEqual(d.ids.map((_, i) => (i > L ? 1 : 0)));
    }
    expect(inductionDocs(50, pool, 3, { minRun: 4, maxRun: 9 })).toEqual(docs);
    expect(inductionDocs(50, pool, 4, { minRun: 4, maxRun: 9 })).not.toEqual(docs);
  });

  it('the pool is the distinct tokens of the texts; bad shapes are refused', () => {
    expect(tokenPool(['ab', 'ba', 'c'], (s) => [...s].map((ch) => ch.charCodeAt(0)))).toEqual([97, 98, 99]);
    expect(() => inductionDocs(1, [1], 1)).toThrow(/at least 2 distinct tokens/);
    expect(() => inductionDocs(1, [1, 2], 1, { minRun: 5, maxRun: 3 })).toThrow(/minRun ≤ maxRun/);
  });
});
