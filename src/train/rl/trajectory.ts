// The record one multi-turn RL episode leaves behind (verl's AgentLoopOutput, on token ids): what the
// rollout sampled, what the environment paid for it, and everything the trainer needs to score the
// same tokens again. Every per-token array is aligned to `ids` (length L).
import type { ChatMessage, Reward, TaskBase } from '../../envs/types';

/** Why an episode stopped (every reason but 'done' also sets truncated). */
export type TrajectoryEnd =
  /** The environment reported done. */
  | 'done'
  /** maxTurns assistant turns were taken and the environment still wanted more. */
  | 'max-turns'
  /** The sequence reached maxTotalTokens (or a turn hit maxNewTokensPerTurn) before the env was done. */
  | 'max-tokens'
  /** env.step threw (an environment bug; the interface forbids it). */
  | 'env-error';

export interface Trajectory {
  /** Task id (TaskBase.id): which task this episode played. */
  taskId: string;
  /** Task category (TaskBase.category), for per-category metrics. */
  category: string;
  /** Family that produced the task. */
  family: TaskBase['family'];
  /** Index of the task's group in its rollout batch; the G members of a group share it and are contiguous. */
  group: number;
  /** Sample index inside the group (0 … G−1). */
  sample: number;
  /** (L) token ids of the whole episode: prompt, every assistant turn, tool/user replies in between. */
  ids: number[];
  /** (L) 1 on tokens the policy sampled (they get gradient), 0 on prompt, tool, user and template tokens. */
  lossMask: number[];
  /** (L) behaviour log-prob of each sampled token under the weights that sampled it (temperature 1); 0 where lossMask is 0. */
  behaviourLogprobs: number[];
  /** (L) assistant turn (0-based) that produced each token; −1 where lossMask is 0. */
  turnIndex: number[];
  /** The environment's reward for the episode (components, weights, total); its last reported one when cut short. */
  reward: Reward;
  /** The environment's running total after each step, in turn order (per-turn credit, rewards.ts). */
  turnTotals: number[];
  /**
   * The environment's reward components after each step, in turn order (turn credit, grpo/credit.ts;
   * per-turn metrics): what each turn had earned so far. One entry per step that ran (a step that
   * threw leaves none).
   */
  turnComponents: Record<string, number>[];
  /** Steps that reported each fault (StepFault names from the env's info.faults): what went wrong along the way, even when the episode recovered. */
  faults: Record<string, number>;
  /** Solved by the family's own verdict (info.success of the last step; false unless end = 'done'). */
  success: boolean;
  /** Assistant turns taken. */
  turns: number;
  /** Policy-generated tokens over all turns (Σ lossMask): DAPO's response length L. */
  responseTokens: number;
  /** True when a limit cut the episode: a turn stopped at maxNewTokensPerTurn, or the episode ended before the env was done (end ≠ 'done'). */
  truncated: boolean;
  /** Why the episode stopped. */
  end: TrajectoryEnd;
  /** Trainer version of the weights that sampled every token (a rollout uses one version throughout). */
  policyVersion: number;
  /** The conversation as messages (opening, assistant texts, env replies), for viewers and debugging. */
  messages: ChatMessage[];
  /** What went wrong when end = 'env-error'. */
  error?: string;
  /**
   * Per reward component the environment could place (Reward.decidedAt), the index in `ids` of the
   * policy token that fixed it: tokens after it cannot change that component, so GRPO's component
   * credit leaves it out of their advantage. Absent components are credited to every token.
   */
  decidedAt?: Record<string, number>;
}

/** Checks the per-token arrays line up; throws naming the first inconsistency (tests, worker boundaries). */
export function checkTrajectory(t: Trajectory): void {
  const L = t.ids.length;
  for (const [name, arr] of [['lossMask', t.lossMask], ['behaviourLogprobs', t.behaviourLogprobs], ['turnIndex', t.turnIndex]] as const) {
    if (arr.length !== L) throw new Error(`trajectory ${t.taskId}#${t.sample}: ${name} has ${arr.length} entries for ${L} tokens`);
  }
  let policy = 0;
  for (let i = 0; i < L; i++) {
    const on = t.lossMask[i] !== 0;
    if (on) policy++;
    if (on !== t.turnIndex[i] >= 0) throw new Error(`trajectory ${t.taskId}#${t.sample}: token ${i} has lossMask ${t.lossMask[i]} but turnIndex ${t.turnIndex[i]}`);
    if (!on && t.behaviourLogprobs[i] !== 0) throw new Error(`trajectory ${t.taskId}#${t.sample}: token ${i} is not a policy token but has a behaviour log-prob`);
  }
  if (policy !== t.responseTokens) throw new Error(`trajectory ${t.taskId}#${t.sample}: responseTokens ${t.responseTokens} but ${policy} tokens have lossMask 1`);
  for (const [component, i] of Object.entries(t.decidedAt ?? {})) {
    if (!Number.isInteger(i) || i < 0 || i >= L || t.lossMask[i] === 0) throw new Error(`trajectory ${t.taskId}#${t.sample}: decidedAt.${component} = ${i} is not a policy token of its ${L} tokens`);
  }
}
