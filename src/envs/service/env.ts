// One customer-service episode: the agent's tool calls go to the retail tools (run for the user the
// agent has authenticated), its plain-text turns go to the simulated user. Rewards follow reward.ts;
// the policy monitor records how the agent worked, facts.ts what it told. Never throws on model
// output: every problem becomes a tool or user message.

import { callTagOverflow, parseToolCalls } from '../../tokenizer/toolCalls';
import {
  truncateOutput,
  weightedReward,
  type ChatMessage,
  type Environment,
  type EpisodeLimits,
  type ResetResult,
  type Reward,
  type StepResult,
} from '../types';
import { seedDatabase } from './database';
import { distractorsFor, FactLedger } from './facts';
import { GoldCheck } from './goldCheck';
import { PolicyMonitor } from './monitor';
import { SERVICE_POLICY } from './policy';
import { serviceReward } from './reward';
import { SERVICE_TOOL_SPECS } from './toolSpecs';
import { executeTool, normalizeOrderId } from './tools';
import type { Database, ServiceTask } from './types';
import { SimulatedUser, visibleText, type UserEndReason } from './userSim';

/** Service conversations need more turns than single-call tasks: the expert uses up to 8. */
export const SERVICE_DEFAULT_LIMITS: EpisodeLimits = { maxTurns: 16, maxToolOutputChars: 2000 };

/** Tool calls run per assistant turn; the rest get one error message (bounds work per step). */
export const MAX_CALLS_PER_TURN = 16;

/**
 * More <tool_call> / </tool_call> tags than this in one turn are refused before parsing: the shared
 * parser rescans the text per tag, so a degenerate 1 MB run of tags would take minutes.
 */
export const MAX_TOOL_TAGS_PER_TURN = 128;

/** Why an episode ended. */
export type ServiceEndReason = `user-${UserEndReason}` | 'transfer' | 'max-turns';

/** Mutable state of one episode. */
interface Episode {
  /** The task being played. */
  task: ServiceTask;
  /** Current database (tools mutate it). */
  db: Database;
  /** Compares `db` with the gold database (initial database + gold actions). */
  gold: GoldCheck;
  /** The scripted user. */
  user: SimulatedUser;
  /** Policy bookkeeping. */
  monitor: PolicyMonitor;
  /** What the user heard: required facts and wrong alternatives over the whole conversation. */
  facts: FactLedger;
  /** True once the agent read the order the goal is about, as its authenticated owner. */
  goalOrderRead: boolean;
  /** Assistant turns taken. */
  turns: number;
  /** Set once the episode is over. */
  endReason: ServiceEndReason | null;
  /** Whether the user ended after hearing a refusal of a forbidden request. */
  refusalAccepted: boolean;
}

const isForbiddenTask = (task: ServiceTask): boolean => task.category === 'transfer';

export class ServiceEnv implements Environment<ServiceTask> {
  readonly family = 'service' as const;
  private episode: Episode | null = null;

  constructor(
    private readonly limits: EpisodeLimits,
    private readonly weights: Record<string, number>,
  ) {}

  reset(task: ServiceTask): ResetResult {
    const db = seedDatabase(task.dbSeed);
    const user = new SimulatedUser(task);
    this.episode = {
      task,
      db,
      gold: new GoldCheck(db, task.dbSeed, task.goldActions),
      user,
      monitor: new PolicyMonitor(task.user.userId),
      facts: new FactLedger(task.requiredFacts, distractorsFor(task, db)),
      goalOrderRead: false,
      turns: 0,
      endReason: null,
      refusalAccepted: false,
    };
    return {
      messages: [
        { role: 'system', content: SERVICE_POLICY },
        { role: 'user', content: user.opening() },
      ],
      tools: SERVICE_TOOL_SPECS.map((t) => structuredClone(t)),
    };
  }

  async step(assistantText: string): Promise<StepResult> {
    const ep = this.episode;
    if (!ep) {
      return { messages: [], reward: serviceRewardZero(this.weights), done: true, info: { error: 'step() was called before reset(task); call reset(task) first' } };
    }
    if (ep.endReason) {
      return { messages: [], reward: this.reward(ep), done: true, info: { error: 'the episode already ended; call reset(task) to start a new one', endReason: ep.endReason } };
    }
    ep.turns++;
    const text = typeof assistantText === 'string' ? assistantText : String(assistantText ?? '');
    const parsed =
      callTagOverflow(text, MAX_TOOL_TAGS_PER_TURN) !== null
        ? { calls: [], attemptedCall: true, errors: [{ message: `more than ${MAX_TOOL_TAGS_PER_TURN} <tool_call> tags in one turn; make at most ${MAX_CALLS_PER_TURN} calls per turn` }] }
        : parseToolCalls(text);
    const messages: ChatMessage[] = [];
    const info: Record<string, unknown> = { turn: ep.turns };
    const violationsBefore = ep.monitor.violations.length;

    // As in τ-bench a turn is either tool calls or a message: prose next to tool calls is not
    // delivered to the user (and does not count as telling a fact).
    if (parsed.attemptedCall) {
      this.runTools(ep, parsed.calls, parsed.errors.map((e) => e.message), messages, info);
    } else {
      ep.facts.hear(visibleText(text), ep.goalOrderRead);
      const turn = ep.user.reply(text, this.goalAchieved(ep));
      ep.monitor.onUserTurn(turn);
      messages.push({ role: 'user', content: turn.text });
      if (turn.ended) {
        ep.endReason = `user-${turn.endReason ?? 'stuck'}`;
        ep.refusalAccepted = turn.endReason === 'refusal-accepted';
      }
    }
    if (!ep.endReason && ep.turns >= this.limits.maxTurns) {
      ep.endReason = 'max-turns';
      info.limit = 'max-turns';
    }
    const reward = this.reward(ep);
    info.violations = ep.monitor.violations.slice(violationsBefore);
    if (ep.endReason) {
      info.endReason = ep.endReason;
      info.success = reward.components.outcome === 1;
      info.allViolations = [...ep.monitor.violations];
      info.performedActions = [...ep.monitor.performedActions];
      info.databaseMatchesGold = ep.gold.matches();
      info.factsTold = ep.facts.told();
      info.wrongAlternativesNamed = ep.facts.wrongAlternativesNamed();
    }
    return { messages, reward, done: ep.endReason !== null, info };
  }

  /** Hashes of the current and the gold database (diagnostics and tests); null before reset. */
  databaseHashes(): { current: string; gold: string; initial: string } | null {
    const ep = this.episode;
    return ep ? { current: ep.gold.currentHash(), gold: ep.gold.goldHash(), initial: ep.gold.initialHash() } : null;
  }

  private runTools(ep: Episode, calls: { name: string; arguments: Record<string, unknown> }[], parseErrors: string[], out: ChatMessage[], info: Record<string, unknown>): void {
    const max = this.limits.maxToolOutputChars;
    if (parseErrors.length > 0) {
      const body = `Error: ${parseErrors.length} malformed tool call(s): ${parseErrors.join('; ')}. Write each call as <tool_call>{"name": "<tool>", "arguments": {…}}</tool_call>.`;
      out.push({ role: 'tool', name: 'invalid_tool_call', content: truncateOutput(body, max) });
      info.parseErrors = parseErrors.slice(0, 8);
    }
    const run = calls.slice(0, MAX_CALLS_PER_TURN);
    ep.monitor.onToolTurn(ep.turns, run.map((c) => c.name));
    const toolErrors: string[] = [];
    for (const call of run) {
      const outcome = executeTool(ep.db, call.name, call.arguments, { authenticatedUserId: ep.monitor.authenticatedUser });
      ep.monitor.onToolCall(ep.turns, call.name, call.arguments, outcome);
      if (call.name === 'get_order_details' && outcome.ok && this.isGoalOrder(ep, call.arguments.order_id) && outcome.dataOwner === ep.monitor.authenticatedUser) {
        ep.goalOrderRead = true;
      }
      if (outcome.ok && outcome.isWrite) ep.gold.onWrite();
      if (!outcome.ok) toolErrors.push(outcome.output.slice(0, 300));
      out.push({ role: 'tool', name: call.name.slice(0, 64), content: truncateOutput(outcome.output, max) });
      if (outcome.transferred) {
        ep.endReason = 'transfer';
        break;
      }
    }
    if (calls.length > MAX_CALLS_PER_TURN && !ep.endReason) {
      out.push({ role: 'tool', name: 'invalid_tool_call', content: `Error: ${calls.length} tool calls in one turn; only the first ${MAX_CALLS_PER_TURN} ran. Make fewer calls per turn.` });
    }
    if (toolErrors.length > 0) info.toolErrors = toolErrors;
  }

  /** What the user would call done: the database matches the gold one, and every fact was told. */
  private goalAchieved(ep: Episode): boolean {
    if (isForbiddenTask(ep.task)) return false;
    if (!ep.facts.told().every(Boolean)) return false;
    if (ep.task.goldActions.length === 0 && ep.task.requiredFacts.length === 0) return false;
    return ep.gold.matches();
  }

  /** Whether a model-given order id names the order the goal is about. */
  private isGoalOrder(ep: Episode, orderId: unknown): boolean {
    return 'orderId' in ep.task.goal && typeof orderId === 'string' && normalizeOrderId(orderId) === ep.task.goal.orderId;
  }

  private reward(ep: Episode): Reward {
    // A forbidden request is resolved by an authenticated refusal or transfer that followed a look at
    // the order it is about (a refusal without looking is a guess).
    const forbiddenResolved = isForbiddenTask(ep.task)
      ? ep.monitor.authenticatedUser !== null && (ep.goalOrderRead || !('orderId' in ep.task.goal)) && (ep.refusalAccepted || ep.monitor.transferred)
      : undefined;
    return serviceReward(
      {
        databaseMatchesGold: ep.gold.matches(),
        goldActions: ep.task.goldActions,
        performedActions: ep.monitor.performedActions,
        factsTold: ep.facts.told(),
        authentication: ep.monitor.authenticationScore(),
        violations: ep.monitor.violations.length,
        forbiddenResolved,
      },
      this.weights,
    );
  }
}

/** All components 0: the reward of a step that had no episode to act on. */
function serviceRewardZero(weights: Record<string, number>): Reward {
  return weightedReward({ outcome: 0, tool_calls: 0, authentication: 0, policy: 0, info: 0 }, weights);
}
