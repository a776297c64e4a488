import { describe, expect, it } from 'vitest';
import type { EnvFamily } from '../../envs/types';
import { fakeFamily, type FakeTask } from '../../eval/fakeFamily';
import { routingFamily } from '../../envs/functionCalling/family';
import { ByteTokenizer, encodeConversation, formatToolCalls, withCompactTools } from '../../tokenizer';
import { DEFAULT_ROLLOUT, type RolloutConfig, rolloutBatch } from './rollout';
import { fakeExpertReply, scriptedGenerator } from '../testing/scriptedGenerator';
import { checkTrajectory } from './trajectory';

const tok = new ByteTokenizer();
const family = fakeFamily();
const tasks = [0, 1, 2].map((i) => family.generateTask(7, i, 'train'));
const cfg = (o: Partial<RolloutConfig> = {}): RolloutConfig => ({ ...DEFAULT_ROLLOUT, groupSize: 2, ...o });

describe('rolloutBatch (scripted generator, fake calculator family)', () => {
  it('plays two-turn episodes with one generate() call per turn for the whole batch', async () => {
    const gen = scriptedGenerator(tok, fakeExpertReply);
    const trajs = await rolloutBatch({ family, tasks, tokenizer: tok, generator: gen, config: cfg(), seed: 1, policyVersion: 5 });
    expect(gen.calls).toEqual([6, 6]);
    expect(trajs.map((t) => [t.group, t.sample])).toEqual([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]]);
    for (const t of trajs) {
      checkTrajectory(t);
      expect(t).toMatchObject({ end: 'done', truncated: false, success: true, turns: 2, policyVersion: 5 });
      expect(t.reward.total).toBeCloseTo(1, 12);
      expect(t.turnTotals).toHaveLength(2);
    }
  });

  it('produces exactly the SFT encoding of the same conversation (ids and mask)', async () => {
    const trajs = await rolloutBatch({ family, tasks, tokenizer: tok, generator: scriptedGenerator(tok, fakeExpertReply), config: cfg(), seed: 1, policyVersion: 0 });
    const opening = family.createEnv().reset(tasks[0]);
    const t = trajs[0];
    const shown = withCompactTools(t.messages, opening.tools);
    const sft = encodeConversation(tok, shown.messages, shown.tools);
    expect(t.ids).toEqual(sft.ids);
    expect(t.lossMask).toEqual(sft.assistantMask);
  });

  it('aligns behaviour log-probs and turn indices with the sampled tokens of each turn', async () => {
    const gen = scriptedGenerator(tok, fakeExpertReply);
    const [t] = await rolloutBatch({ family, tasks: tasks.slice(0, 1), tokenizer: tok, generator: gen, config: cfg({ groupSize: 1 }), seed: 3, policyVersion: 0 });
    const turns = [0, 1].map((k) => t.ids.filter((_, i) => t.turnIndex[i] === k));
    expect(tok.decode(turns[0])).toMatch(/^<tool_call>\n\{"name": "calculate".*<\/tool_call><\|im_end\|>$/s);
    expect(tok.decode(turns[1])).toMatch(/^The answer is \d+\.<\|im_end\|>$/);
    t.ids.forEach((_, i) => {
      if (t.lossMask[i]) expect(t.behaviourLogprobs[i]).toBeLessThan(0);
    });
    expect(t.responseTokens).toBe(turns[0].length + turns[1].length);
  });

  it('cuts a turn at maxNewTokensPerTurn: truncated, the forced <|im_end|> is not a policy token', async () => {
    const gen = scriptedGenerator(tok, fakeExpertReply);
    const trajs = await rolloutBatch({ family, tasks, tokenizer: tok, generator: gen, config: cfg({ maxNewTokensPerTurn: 10 }), seed: 1, policyVersion: 0 });
    expect(gen.calls).toEqual([6]);
    for (const t of trajs) {
      checkTrajectory(t);
      expect(t).toMatchObject({ end: 'max-tokens', truncated: true, success: false, responseTokens: 10, turns: 1 });
      const imEnd = t.ids.lastIndexOf(tok.imEndId);
      expect(t.lossMask[imEnd]).toBe(0);
    }
  });

  it('stops at maxTurns and at maxTotalTokens (dropping replies no turn can follow)', async () => {
    const oneTurn = await rolloutBatch({ family, tasks, tokenizer: tok, generator: scriptedGenerator(tok, fakeExpertReply), config: cfg({ maxTurns: 1 }), seed: 1, policyVersion: 0 });
    for (const t of oneTurn) expect(t).toMatchObject({ end: 'max-turns', truncated: true, turns: 1, success: false });
    // Room for the first turn only: the tool reply is not appended.
    const full = await rolloutBatch({ family, tasks: tasks.slice(0, 1), tokenizer: tok, generator: scriptedGenerator(tok, fakeExpertReply), config: cfg({ groupSize: 1 }), seed: 1, policyVersion: 0 });
    const firstTurnEnd = full[0].turnIndex.lastIndexOf(0) + 2; // "<|im_end|>" then "\n"
    const short = await rolloutBatch({ family, tasks: tasks.slice(0, 1), tokenizer: tok, generator: scriptedGenerator(tok, fakeExpertReply), config: cfg({ groupSize: 1, maxTotalTokens: firstTurnEnd + 20 }), seed: 1, policyVersion: 0 });
    checkTrajectory(short[0]);
    expect(short[0]).toMatchObject({ end: 'max-tokens', truncated: true, turns: 1 });
    expect(short[0].ids).toEqual(full[0].ids.slice(0, firstTurnEnd));
  });

  it('ends an episode whose environment throws as env-error with zero reward; others continue', async () => {
    const base = fakeFamily();
    const broken: EnvFamily<FakeTask> = {
      ...base,
      createEnv: (limits, weights) => {
        const env = base.createEnv(limits, weights);
        let n = 0;
        const step = env.step.bind(env);
        env.step = async (text) => {
          if (++n === 2) throw new Error('boom');
          return step(text);
        };
        return env;
      },
    };
    const trajs = await rolloutBatch({ family: broken, tasks: tasks.slice(0, 1), tokenizer: tok, generator: scriptedGenerator(tok, fakeExpertReply), config: cfg(), seed: 1, policyVersion: 0 });
    for (const t of trajs) {
      expect(t).toMatchObject({ end: 'env-error', truncated: true, success: false, turns: 2 });
      expect(t.reward.total).toBe(0);
      expect(t.error).toMatch(/boom/);
    }
  });

  it('rejects configs the model cannot hold', async () => {
    const gen = scriptedGenerator(tok, fakeExpertReply, 256);
    await expect(rolloutBatch({ family, tasks, tokenizer: tok, generator: gen, config: cfg({ maxTotalTokens: 512 }), seed: 1, policyVersion: 0 })).rejects.toThrow(/only 256 positions/);
  });

  it('maps the environment\'s decision points to the token that fixed each component (routing: the function name\'s closing quote)', async () => {
    const routing = routingFamily.generateTask(3, 0, 'train');
    const reply = (_: string, row: number) => (row === 0 ? 'Sure: ' : '') + formatToolCalls([{ name: 'define', arguments: { word: 'river' } }]);
    const trajs = await rolloutBatch({ family: routingFamily, tasks: [routing], tokenizer: tok, generator: scriptedGenerator(tok, reply), config: cfg({ maxTurns: 1, maxNewTokensPerTurn: 96 }), seed: 1, policyVersion: 0 });
    for (const t of trajs) {
      checkTrajectory(t);
      const at = t.decidedAt!.function_choice;
      const firstPolicy = t.lossMask.indexOf(1);
      expect(tok.decode(t.ids.slice(firstPolicy, at + 1)).endsWith('{"name": "define"')).toBe(true);
      expect(t.lossMask[at + 1]).toBe(1); // the arguments follow, sampled by the policy
    }
    // fake family rewards carry no decision points: nothing recorded
    const plain = await rolloutBatch({ family, tasks, tokenizer: tok, generator: scriptedGenerator(tok, fakeExpertReply), config: cfg(), seed: 1, policyVersion: 0 });
    expect(plain.every((t) => t.decidedAt === undefined)).toBe(true);
  });
});
