// Multi-turn rollouts on the families that talk back (service: tools AND a simulated user; coding:
// a sandbox), with a scripted generator standing in for the model: the loss mask covers only what
// the policy sampled across interleaved tool and user turns, the behaviour log-probs and turn
// indices sit on exactly those tokens, every step's reward components are recorded, and faults
// (a malformed call mid-conversation, a user who cannot read the agent, an unknown tool, a sandbox
// time-out, max turns, max tokens) end the turn or the episode cleanly and are counted.
import { afterAll, describe, expect, it } from 'vitest';
import { CodingEnv, codingLevelFamily } from '../../envs/coding/index';
import { closeNodeSandbox } from '../../envs/coding/sandbox/nodeSandbox';
import { serviceLevelFamily } from '../../envs/service/index';
import { mixFamily } from '../../envs/taskMix';
import type { EnvFamily, TaskBase } from '../../envs/types';
import { ByteTokenizer, encodeConversation, withCompactTools } from '../../tokenizer';
import { scriptedGenerator } from '../testing/scriptedGenerator';
import { episodeEndsAndFaults } from './rlMetrics';
import { DEFAULT_ROLLOUT, type RolloutConfig, rolloutBatch } from './rollout';
import { checkTrajectory, type Trajectory } from './trajectory';

afterAll(() => closeNodeSandbox());

const tok = new ByteTokenizer();
const status = serviceLevelFamily('status');
const cfg = (o: Partial<RolloutConfig> = {}): RolloutConfig => ({ ...DEFAULT_ROLLOUT, groupSize: 2, maxTurns: 6, maxNewTokensPerTurn: 256, maxTotalTokens: 4096, ...o });

/** Replies turn by turn from a script (the k-th assistant turn of the prompt gets script[k]). */
function script(turns: readonly string[]) {
  return (prompt: string) => turns[(prompt.match(/<\|im_start\|>assistant/g) ?? []).length - 1] ?? 'Goodbye.';
}

/** The expert's turns for a task, as text. */
async function expertTurns<T extends TaskBase>(family: EnvFamily<T>, task: T): Promise<string[]> {
  const env = family.createEnv();
  const { messages, tools } = env.reset(task);
  const policy = family.expertPolicy(task, 1);
  const convo = [...messages];
  const out: string[] = [];
  for (;;) {
    const text = await policy(convo, tools);
    out.push(text);
    convo.push({ role: 'assistant', content: text });
    const r = await env.step(text);
    convo.push(...r.messages);
    if (r.done) return out;
  }
}

/** The policy tokens of each turn, decoded. */
const turnTexts = (t: Trajectory) => Array.from({ length: t.turns }, (_, k) => tok.decode(t.ids.filter((_, i) => t.turnIndex[i] === k)));

describe('multi-turn rollouts with tools and a simulated user (scripted generator)', () => {
  it('service: the mask covers exactly the assistant turns between tool results and user replies; per-turn components are recorded', async () => {
    const task = status.generateTask(4, 0, 'train');
    const turns = await expertTurns(status, task);
    const [t] = await rolloutBatch({ family: status, tasks: [task], tokenizer: tok, generator: scriptedGenerator(tok, script(turns), 4096), config: cfg({ groupSize: 1 }), seed: 1, policyVersion: 3 });
    checkTrajectory(t);
    expect(t).toMatchObject({ end: 'done', success: true, turns: 4, truncated: false, policyVersion: 3 });
    // the conversation holds user AND tool replies between the turns
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'user']);
    // ids and mask are the SFT encoding of the same conversation (the final user reply is not tokenised)
    const shown = withCompactTools(t.messages.slice(0, -1), status.createEnv().reset(task).tools);
    const sft = encodeConversation(tok, shown.messages, shown.tools);
    expect(t.ids).toEqual(sft.ids);
    expect(t.lossMask).toEqual(sft.assistantMask);
    // each turn's policy tokens are its text and the closing <|im_end|>, nothing of the replies around it
    expect(turnTexts(t)).toEqual(turns.map((x) => `${x}<|im_end|>`));
    t.ids.forEach((_, i) => expect(t.behaviourLogprobs[i] < 0).toBe(t.lossMask[i] === 1));
    // components after every step: authenticated by the lookup in turn 1, the fact told in turn 3
    expect(t.turnComponents.map((c) => c.authentication)).toEqual([0, 1, 1, 1]);
    expect(t.turnComponents.map((c) => c.outcome)).toEqual([0, 0, 0, 1]);
    expect(t.turnTotals.at(-1)).toBeCloseTo(1, 12);
    expect(t.faults).toEqual({});
  });

  it('service: a malformed call, an unreadable turn and an unknown tool mid-conversation are observations; the episode goes on to max turns', async () => {
    const task = status.generateTask(4, 1, 'train');
    const good = await expertTurns(status, task);
    const bad = [
      '<tool_call>{"name": "find_user_id_by_email", "arguments": {"email": </tool_call>', // malformed
      'ok', // the user finds nothing to answer
      '<tool_call>{"name": "get_user_details", "arguments": {"user_id": "x"}}</tool_call>', // not offered at this level
      good[0], // back on track: asks for email and order id
      good[1], // authenticates
      'Thanks.', // never reads the order: the user cannot act on it
    ];
    const [t] = await rolloutBatch({ family: status, tasks: [task], tokenizer: tok, generator: scriptedGenerator(tok, script(bad), 4096), config: cfg({ groupSize: 1 }), seed: 2, policyVersion: 0 });
    checkTrajectory(t);
    expect(t).toMatchObject({ end: 'max-turns', truncated: true, success: false, turns: 6 });
    expect(t.faults).toMatchObject({ 'malformed-call': 1, 'tool-error': 1 });
    expect(t.faults['user-confused']).toBeGreaterThanOrEqual(2);
    expect(t.messages[3].content).toMatch(/^Error: 1 malformed tool call/);
    expect(t.messages.find((m) => m.role === 'tool' && /unknown tool "get_user_details"/.test(m.content))).toBeDefined();
    // what was done still counts: authenticated (0.1), nothing else
    expect(t.reward.components).toMatchObject({ authentication: 1, outcome: 0, info: 0 });
    expect(t.reward.total).toBeCloseTo(0.1, 12);
    const m = episodeEndsAndFaults([t]);
    expect(m).toMatchObject({ 'end/max-turns': 1, 'end/done': 0, 'faults/malformed-call': 1, 'faults/tool-error': 1, 'faults/user-confused': 1, 'faults/sandbox-timeout': 0 });
  });

  it('service: a user who gives up ends the episode (done, user-gave-up) with the components earned', async () => {
    const task = status.generateTask(4, 2, 'train');
    const [t] = await rolloutBatch({ family: status, tasks: [task], tokenizer: tok, generator: scriptedGenerator(tok, () => 'Okay.', 4096), config: cfg({ groupSize: 1 }), seed: 3, policyVersion: 0 });
    expect(t).toMatchObject({ end: 'done', success: false, turns: 3 });
    expect(t.faults).toMatchObject({ 'user-confused': 3, 'user-gave-up': 1 });
    expect(t.reward.total).toBe(0);
  });

  it('max tokens: a turn cut at maxNewTokensPerTurn, and an episode whose next reply would not fit, end as max-tokens with the last components', async () => {
    const task = status.generateTask(4, 3, 'train');
    const turns = await expertTurns(status, task);
    const cut = await rolloutBatch({ family: status, tasks: [task], tokenizer: tok, generator: scriptedGenerator(tok, script(turns), 4096), config: cfg({ groupSize: 1, maxNewTokensPerTurn: 40 }), seed: 4, policyVersion: 0 });
    checkTrajectory(cut[0]);
    expect(cut[0]).toMatchObject({ end: 'max-tokens', truncated: true, turns: 1, responseTokens: 40 });
    const full = (await rolloutBatch({ family: status, tasks: [task], tokenizer: tok, generator: scriptedGenerator(tok, script(turns), 4096), config: cfg({ groupSize: 1 }), seed: 4, policyVersion: 0 }))[0];
    const afterTurn2 = full.turnIndex.lastIndexOf(1) + 2;
    const short = await rolloutBatch({ family: status, tasks: [task], tokenizer: tok, generator: scriptedGenerator(tok, script(turns), 4096), config: cfg({ groupSize: 1, maxTotalTokens: afterTurn2 + 30 }), seed: 4, policyVersion: 0 });
    checkTrajectory(short[0]);
    expect(short[0]).toMatchObject({ end: 'max-tokens', truncated: true, turns: 2, success: false });
    expect(short[0].ids).toEqual(full.ids.slice(0, afterTurn2)); // the tool reply no turn could follow is dropped
    expect(short[0].reward.components.authentication).toBe(1); // what turn 2 earned is kept
  });

  it('coding: a sandbox time-out in run_tests is reported and the agent can still submit; a mix of service and coding rolls out together', async () => {
    const coding = codingLevelFamily('one-liners');
    // a short sandbox budget so the time-out costs ~0.3 s
    const quick: EnvFamily = { ...coding, createEnv: (limits, weights) => new CodingEnv({ limits, weights, sandboxLimits: { timeoutMs: 300 } }) } as EnvFamily;
    const task = coding.generateTask(2, 0, 'train');
    const [expertFirst, expertSubmit] = await expertTurns(coding, task);
    const loop = `<tool_call>{"name": "run_tests", "arguments": {"code": "function ${(task as { entry: string }).entry}() { for (;;) {} }"}}</tool_call>`;
    const [t] = await rolloutBatch({ family: quick, tasks: [task], tokenizer: tok, generator: scriptedGenerator(tok, script([loop, expertSubmit]), 4096), config: cfg({ groupSize: 1, maxTurns: 4 }), seed: 5, policyVersion: 0 });
    checkTrajectory(t);
    expect(t.faults).toEqual({ 'sandbox-timeout': 1 });
    expect(t).toMatchObject({ end: 'done', success: true, turns: 2 });
    expect(t.turnComponents.map((c) => c.success)).toEqual([0, 1]);
    expect(expertFirst).toMatch(/run_tests/);

    const mix = mixFamily([{ family: 'service', level: 'status', weight: 1 }, { family: 'coding', level: 'one-liners', weight: 1 }]);
    const tasks = Array.from({ length: 6 }, (_, i) => mix.generateTask(1, i, 'train'));
    expect(new Set(tasks.map((x) => x.family))).toEqual(new Set(['service', 'coding']));
    const trajs = await rolloutBatch({ family: mix, tasks, tokenizer: tok, generator: scriptedGenerator(tok, () => 'Hello, how can I help?', 4096), config: cfg({ maxTurns: 3 }), seed: 6, policyVersion: 0 });
    for (const x of trajs) {
      checkTrajectory(x);
      expect(x.turns).toBeGreaterThan(1); // the user or the coding env answered, and the agent spoke again
      expect(x.end === 'done' || x.end === 'max-turns').toBe(true);
    }
    expect(new Set(trajs.map((x) => x.family))).toEqual(new Set(['service', 'coding'])); // each episode labelled with its task's family, not the mix's first
    expect(trajs.filter((x) => x.family === 'coding').every((x) => x.faults['no-tool-call'] === x.turns)).toBe(true);
  });
});
