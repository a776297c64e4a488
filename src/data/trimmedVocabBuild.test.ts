import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PRESETS } from '../model/config';
import { encodeConversation } from '../tokenizer/encodeConversation';
import { qwen3TokenizerFromDisk } from '../tokenizer/qwen3TokenizerNode';
import { tokenizerForModel } from '../tokenizer/tokenizerForModel';
import { requiredQwen3Ids, type TrimmedQwen3Tokenizer } from '../tokenizer/trimmedQwen3Tokenizer';
import { loadQwen3Files } from '../tokenizer/qwen3Source';
import { withToolRendering } from '../tokenizer/compactTools';
import { renderConversation } from '../tokenizer/chatSegments';
import { contextRows, episodeBudget, episodeTokens, summarize } from './contextStats';
import { TASK_SETS, taskSet } from '../envs/taskSets';
import { corpusEpisodes, trainTaskSets, type CorpusPolicy } from './episodeCorpus';
import { addCoverage, buildKeptIds, corpusTexts, emptyCoverage } from './trimmedVocabBuild';

const tok = (await tokenizerForModel(PRESETS['nano-q'])) as TrimmedQwen3Tokenizer;
const qwen3 = qwen3TokenizerFromDisk();

afterEach(() => vi.restoreAllMocks());

describe('trimmed Qwen3 vocabulary on real episodes', () => {
  it('property: every task set\'s episodes (expert, random, format-breaking; every split; both tool renderings) encode to ids that decode to the text, here and in Qwen3', async () => {
    const setSplits = TASK_SETS.flatMap((set) => set.splits.map((split) => ({ set, split })));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...setSplits), fc.integer({ min: 0, max: 10_000 }),
        fc.constantFrom<CorpusPolicy>('expert', 'random', 'format-breaking'), fc.constantFrom('compact', 'json' as const),
        async ({ set, split }, seed, policy, rendering) => {
          const [ep] = await corpusEpisodes(set, { split, seed, n: 1, policy });
          const shown = withToolRendering(ep.messages, ep.tools, rendering);
          const text = renderConversation(shown.messages, shown.tools);
          const seq = encodeConversation(tok, shown.messages, shown.tools);
          expect(seq.ids.every((id) => id < tok.usedIds)).toBe(true);
          expect(tok.decode(seq.ids)).toBe(text);
          expect(qwen3.decode(tok.toQwen3Ids(seq.ids))).toBe(text);
          expect(seq.ids.length).toBe(episodeTokens(tok, ep, rendering));
        },
      ),
      { numRuns: 40, seed: 5 },
    );
  });

  it('the committed list covers ≥ 99.5 % of the bytes of other train episodes without splitting a Qwen3 token', async () => {
    const c = emptyCoverage();
    for (const set of trainTaskSets()) for await (const text of corpusTexts(set, 'train', 1, { expert: 3 })) addCoverage(c, tok, text);
    expect(c.bytes).toBeGreaterThan(50_000);
    expect(c.keptBytes / c.bytes).toBeGreaterThanOrEqual(0.995);
    expect(c.trimmedTokens).toBeGreaterThanOrEqual(c.qwen3Tokens);
  });
});

describe('buildKeptIds', () => {
  it('reads train-split tasks only, keeps every id the text uses plus the required ones, ascending', async () => {
    const splits = new Set<string>();
    for (const { envFamily } of TASK_SETS) {
      const generate = envFamily.generateTask.bind(envFamily);
      vi.spyOn(envFamily, 'generateTask').mockImplementation((seed, index, split) => (splits.add(split), generate(seed, index, split)));
    }
    const { json } = await loadQwen3Files();
    const required = requiredQwen3Ids(json);
    const build = await buildKeptIds((t) => tok.qwen3Encode(t), required, { seed: 3, episodes: { expert: 1, random: 1, 'format-breaking': 1 } });
    expect([...splits]).toEqual(['train']);
    expect(build.source.split).toBe('train');
    expect(build.source.taskSets).not.toContain('function-calling/bfcl-unseen-tools'); // it has no train split
    expect(build.qwen3Ids).toEqual([...build.qwen3Ids].sort((a, b) => a - b));
    expect(new Set(build.qwen3Ids).size).toBe(build.qwen3Ids.length);
    for (const id of required) expect(build.qwen3Ids).toContain(id);
    const used = new Set<number>();
    for await (const text of corpusTexts(taskSet('service'), 'train', 3, { expert: 1 })) for (const id of tok.qwen3Encode(text)) used.add(id);
    for (const id of used) expect(build.qwen3Ids).toContain(id);
    expect(build.qwen3Ids.length).toBeGreaterThan(required.length + used.size / 2);
  });
});

describe('context stats', () => {
  it('summarises mean, nearest-rank p95 and max', () => {
    const xs = Array.from({ length: 20 }, (_, i) => i + 1); // 1…20
    expect(summarize(xs)).toEqual({ n: 20, mean: 10.5, p95: 19, max: 20 });
    expect(summarize([7])).toEqual({ n: 1, mean: 7, p95: 7, max: 7 });
  });

  it('counts an episode as encodeConversation does, per tokenizer and rendering; compact is shorter than JSON', async () => {
    const byte = await tokenizerForModel(PRESETS.nano);
    const episodes = await corpusEpisodes(taskSet('function-calling', 'bfcl'), { split: 'train', seed: 1, n: 2, policy: 'expert' });
    const rows = contextRows('function-calling', episodes, [byte, tok], ['compact', 'json']);
    expect(rows.map((r) => `${r.tokenizer}/${r.rendering}`)).toEqual(['byte/compact', 'byte/json', 'qwen3-trimmed/compact', 'qwen3-trimmed/json']);
    const shown = withToolRendering(episodes[0].messages, episodes[0].tools, 'json');
    expect(episodeTokens(byte, episodes[0], 'json')).toBe(encodeConversation(byte, shown.messages, shown.tools).ids.length);
    expect(rows[0].tokens.mean).toBeLessThan(rows[1].tokens.mean);
    expect(rows[2].tokens.mean).toBeLessThan(rows[0].tokens.mean / 2.5); // trimmed Qwen3 vs bytes (≈ 3.2× over 200 episodes)
    expect(rows[0].turns).toEqual(summarize(episodes.map((e) => e.turns)));
    const budget = episodeBudget(tok, episodes[0], 'compact');
    const compact = withToolRendering(episodes[0].messages, episodes[0].tools, 'compact');
    const seq = encodeConversation(tok, compact.messages, compact.tools);
    expect(budget.opening + budget.assistant + budget.environment).toBe(seq.ids.length);
    expect(budget.assistant).toBe(seq.assistantMask.reduce((a, b) => a + b, 0));
  });
});
