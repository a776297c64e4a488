import { describe, expect, it } from 'vitest';
import { evaluateMerges, formatMergeTable } from './evaluateMerges';

describe('evaluateMerges', () => {
  it('lays out specialists, merges and the multi-task model, and finds the best merge by its worst gap', async () => {
    const table: Record<string, Record<string, number>> = {
      A: { routing: 0.9, service: 0.2 }, B: { routing: 0.3, service: 0.8 },
      ties: { routing: 0.85, service: 0.79 }, linear: { routing: 0.89, service: 0.6 }, multi: { routing: 0.88, service: 0.81 },
    };
    const e = await evaluateMerges({
      families: ['routing', 'service'],
      specialists: [{ family: 'routing', model: 'A' }, { family: 'service', model: 'B' }],
      merges: [{ method: 'ties', model: 'ties' }, { method: 'linear', model: 'linear' }],
      multiTask: 'multi',
      evaluate: async (m, f) => ({ success: table[m][f], n: 100, ci95: [table[m][f] - 0.05, table[m][f] + 0.05] }),
    });
    expect(e.rows.map((r) => r.label)).toEqual(['specialist: routing', 'specialist: service', 'merge: ties', 'merge: linear', 'multi-task']);
    expect(e.bestMerge!.method).toBe('ties'); // worst gap 5 points (routing) vs linear's 20 (service)
    expect(e.bestMerge!.worstGapPoints).toBeCloseTo(5, 6);
    const text = formatMergeTable(e, ['routing', 'service']);
    expect(text).toContain('| merge: ties | 85.0 % [80.0, 90.0] (n 100) | 79.0 % [74.0, 84.0] (n 100) |');
    expect(text).toContain('best merge: ties, worst gap to a specialist on its own family 5.0 points');
  });
});
