// The rollout-cost table of `npm run context-stats -- --rollout` (its shape, not its speed): one row per
// level through the real rollout code and environments, with a scripted generator in place of the model.
import { describe, expect, it } from 'vitest';
import { CURRICULA } from '../envs/taskSets';
import { PRESETS } from '../model/config';
import { tokenizerForModel } from '../tokenizer';
import { scriptedGenerator } from '../train/testing/scriptedGenerator';
import { TASK_SET_CONTEXT } from './presets';
import { formatRolloutTable, rolloutLevels } from './rolloutStats';

const levels = (['service', 'coding'] as const).flatMap((family) => CURRICULA[family].map((level) => ({ family, level })));

describe('rollout stats per level', () => {
  it('one row per level in curriculum order: episodes, turns, policy ≤ total tokens, a rate; a markdown table with the adapter', async () => {
    const tok = await tokenizerForModel(PRESETS['nano-q']);
    // a polite reply that never acts: every episode runs to its level's turn limit
    const gen = scriptedGenerator(tok, () => 'Could you tell me a bit more, please?', PRESETS['nano-q'].maxPositionEmbeddings);
    const rows = await rolloutLevels(gen, tok, { preset: 'nano-q', seed: 3, tasks: 1, group: 2, levels });
    expect(rows.map((r) => r.taskSet)).toEqual(levels.map((l) => `${l.family}/${l.level}`));
    for (const [i, r] of rows.entries()) {
      const c = TASK_SET_CONTEXT[levels[i].level];
      expect(r.episodes, r.taskSet).toBe(2);
      expect([r.maxNewTokensPerTurn, r.maxTurns, r.maxTotalTokens]).toEqual([c.maxNewTokensPerTurn, c.maxTurns, c.maxTotalTokens]);
      expect(r.turnsPerEpisode, r.taskSet).toBeGreaterThanOrEqual(1);
      expect(r.turnsPerEpisode, r.taskSet).toBeLessThanOrEqual(c.maxTurns);
      expect(r.policyTokensPerEpisode, r.taskSet).toBeGreaterThan(0);
      expect(r.policyTokensPerEpisode, r.taskSet).toBeLessThan(r.totalTokensPerEpisode);
      expect(r.tokensPerSecond, r.taskSet).toBeGreaterThan(0);
      expect(Object.values(r.ends).reduce((a, b) => a + b, 0)).toBe(2);
    }
    const table = formatRolloutTable(rows, 'test adapter').split('\n');
    expect(table).toHaveLength(2 + levels.length);
    const cells = (line: string) => line.split('|').slice(1, -1).map((s) => s.trim());
    expect(cells(table[0])).toEqual(['task set', 'episodes', 'max new tokens/turn', 'turns/episode', 'policy tokens/episode', 'total tokens/episode', 'ends', 'rollout tokens/s', 'adapter']);
    for (const [i, line] of table.slice(2).entries()) {
      const c = cells(line);
      expect(c).toHaveLength(9);
      expect(c[0]).toBe(rows[i].taskSet);
      for (const k of [1, 2, 3, 4, 5, 7]) expect(Number.isFinite(Number(c[k])), `${c[0]} column ${k}: ${c[k]}`).toBe(true);
      expect(c[8]).toBe('test adapter');
    }
  });

  it('refuses a model whose context is shorter than a level needs', async () => {
    const tok = await tokenizerForModel(PRESETS['nano-q']);
    const gen = scriptedGenerator(tok, () => 'Hi', 1024);
    await expect(rolloutLevels(gen, tok, { preset: 'nano-q', seed: 1, tasks: 1, group: 1, levels: [{ family: 'service', level: 'multi-step' }] })).rejects.toThrow(/service\/multi-step needs 3072 positions; the model has 1024/);
  });
});
