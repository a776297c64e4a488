// Every registered task set has a measured context (presets.ts), and the verified expert episodes of
// every multi-turn curriculum level (service, coding), the full sets included, fit it: whole episode, each
// assistant turn, turn count (compact tools with the trimmed-Qwen3 tokenizer; full JSON tools with Qwen3's own).
import { afterAll, describe, expect, it } from 'vitest';
import { episodeTokens } from '../data/contextStats';
import { corpusEpisodes } from '../data/episodeCorpus';
import { closeNodeSandbox } from '../envs/coding/sandbox/nodeSandbox';
import { CURRICULA, TASK_SETS, taskSet } from '../envs/taskSets';
import { PRESETS } from '../model/config';
import { tokenizerForModel } from '../tokenizer/tokenizerForModel';
import { TASK_SET_CONTEXT, TASK_SET_CONTEXT_JSON } from './presets';

afterAll(() => closeNodeSandbox());

describe('task-set contexts', () => {
  it('every registered task set has one in both tool renderings', () => {
    for (const s of TASK_SETS) {
      expect(TASK_SET_CONTEXT[s.level], s.level).toBeDefined();
      expect(TASK_SET_CONTEXT_JSON[s.level], s.level).toBeDefined();
    }
  });

  it('the expert episodes of every service and coding level fit their context (train and test, seed 1, n = 3 each; the full sets n = 12)', async () => {
    const trimmed = await tokenizerForModel(PRESETS['nano-q']);
    const full = await tokenizerForModel(PRESETS['qwen3-0.6b']);
    for (const family of ['service', 'coding'] as const) {
      for (const [i, level] of CURRICULA[family].entries()) {
        const c = TASK_SET_CONTEXT[level];
        const n = i === CURRICULA[family].length - 1 ? 12 : 3; // the full set (retail, functions): longer, more varied episodes
        for (const split of ['train', 'test'] as const) {
          for (const ep of await corpusEpisodes(taskSet(family, level), { split, seed: 1, n, policy: 'expert' })) {
            const where = `${family}/${level} ${split} ${ep.taskId}`;
            expect(episodeTokens(trimmed, ep, 'compact'), where).toBeLessThanOrEqual(c.maxTotalTokens);
            expect(episodeTokens(full, ep, 'json'), where).toBeLessThanOrEqual(TASK_SET_CONTEXT_JSON[level].maxTotalTokens);
            expect(ep.turns, where).toBeLessThanOrEqual(c.maxTurns);
            for (const m of ep.messages.filter((x) => x.role === 'assistant')) expect(trimmed.encode(m.content).length, where).toBeLessThan(c.maxNewTokensPerTurn);
          }
        }
      }
    }
  }, 120_000);
});
