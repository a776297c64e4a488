// A tiny arithmetic family for tests of the rollout loop, evaluation and data synthesis: one tool
// (`calculate`), episodes of two turns (call, then answer). Its expert can be made wrong on some
// tasks and its environment can be made to omit info.success, so filters and fallbacks are testable.
import { formatToolCalls, parseToolCalls } from '../tokenizer/toolCalls';
import { Rng } from '../util/rng';
import { weightedReward, type ChatMessage, type EnvFamily, type Environment, type EpisodeLimits, type Reward, type StepResult, type TaskBase, type ToolSpec } from '../envs/types';

/** A fake task: compute a op b. */
export interface FakeTask extends TaskBase {
  /** First operand. */
  a: number;
  /** Second operand. */
  b: number;
  /** Operation, also the category. */
  op: 'add' | 'mul';
  /** Task index (the expert can be told to fail on some indices). */
  index: number;
}

/** How the fake family misbehaves. */
export interface FakeFamilyOptions {
  /** The expert answers wrongly on tasks whose index is a multiple of this (0: never). */
  expertWrongEvery?: number;
  /** When false the env omits info.success, so success falls back to the total-reward rule. */
  reportSuccess?: boolean;
}

/** Reward weights: format 0.2 (all turns parse), tool 0.3 (right call), outcome 0.5 (right final number). */
export const FAKE_WEIGHTS: Record<string, number> = { format: 0.2, tool: 0.3, outcome: 0.5 };

export const FAKE_TOOLS: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'calculate',
      description: 'Applies op to a and b.',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' }, op: { type: 'string', enum: ['add', 'mul'] } }, required: ['a', 'b', 'op'] },
    },
  },
];

const answerOf = (t: FakeTask) => (t.op === 'add' ? t.a + t.b : t.a * t.b);

class FakeEnv implements Environment<FakeTask> {
  readonly family = 'fake' as TaskBase['family'];
  private task: FakeTask | null = null;
  private turns = 0;
  private formatOk = true;
  private toolOk = false;
  private outcome = 0;

  constructor(
    private readonly limits: EpisodeLimits,
    private readonly weights: Record<string, number>,
    private readonly reportSuccess: boolean,
  ) {}

  reset(task: FakeTask) {
    this.task = task;
    this.turns = 0;
    this.formatOk = true;
    this.toolOk = false;
    this.outcome = 0;
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are a calculator assistant.' },
      { role: 'user', content: `What is ${task.a} ${task.op === 'add' ? 'plus' : 'times'} ${task.b}?` },
    ];
    return { messages, tools: structuredClone(FAKE_TOOLS) };
  }

  private reward(): Reward {
    return weightedReward({ format: this.formatOk ? 1 : 0, tool: this.toolOk ? 1 : 0, outcome: this.outcome }, this.weights);
  }

  async step(text: string): Promise<StepResult> {
    const task = this.task!;
    this.turns++;
    const parsed = parseToolCalls(text);
    if (parsed.errors.length > 0) this.formatOk = false;
    const messages: ChatMessage[] = [];
    let done = false;
    if (parsed.attemptedCall) {
      for (const call of parsed.calls) {
        const right = call.name === 'calculate' && call.arguments.a === task.a && call.arguments.b === task.b && call.arguments.op === task.op;
        if (right) this.toolOk = true;
        messages.push({ role: 'tool', name: call.name, content: right ? String(answerOf(task)) : 'Error: wrong call' });
      }
      if (parsed.errors.length > 0) messages.push({ role: 'tool', content: `Error: ${parsed.errors[0].message}` });
    } else {
      this.outcome = parsed.content.includes(String(answerOf(task))) ? 1 : 0;
      done = true;
    }
    const info: Record<string, unknown> = { turn: this.turns };
    if (!done && this.turns >= this.limits.maxTurns) {
      done = true;
      info.limit = 'max-turns';
    }
    if (done && this.reportSuccess) info.success = this.outcome === 1;
    return { messages, reward: this.reward(), done, info };
  }
}

/** The fake family (name 'fake', outside the real union on purpose: it must never be mistaken for one). */
export function fakeFamily(opts: FakeFamilyOptions = {}): EnvFamily<FakeTask> {
  const wrongEvery = opts.expertWrongEvery ?? 0;
  return {
    name: 'fake' as TaskBase['family'],
    generateTask(seed, index, split) {
      const rng = new Rng((seed * 1_000_003 + index * 7919 + (split === 'train' ? 0 : 104_729)) >>> 0);
      const op = rng.next() < 0.5 ? 'add' : 'mul';
      return { family: 'fake' as TaskBase['family'], id: `fake-${split}-${seed}-${index}`, category: op, a: rng.int(1, 50), b: rng.int(1, 50), op, index };
    },
    createEnv(limits, weights) {
      const definedWeights = Object.fromEntries(Object.entries(weights ?? {}).filter(([, v]) => v !== undefined)) as Record<string, number>;
      return new FakeEnv({ maxTurns: 4, maxToolOutputChars: 2000, ...limits }, { ...FAKE_WEIGHTS, ...definedWeights }, opts.reportSuccess ?? true);
    },
    expertPolicy(task, seed) {
      const rng = new Rng(seed);
      const wrong = wrongEvery > 0 && task.index % wrongEvery === 0;
      return async (messages) => {
        const turn = messages.filter((m) => m.role === 'assistant').length;
        if (turn === 0) {
          const call = formatToolCalls([{ name: 'calculate', arguments: { a: task.a, b: task.b, op: task.op } }]);
          return rng.next() < 0.5 ? `Let me compute that.\n${call}` : call;
        }
        const value = answerOf(task) + (wrong ? 1 : 0);
        return `${rng.pick(['The answer is', 'It comes to', 'Result:'])} ${value}.`;
      };
    },
    defaultWeights: FAKE_WEIGHTS,
  };
}
