// Reward components of the service family, each in [0, 1]. A component pays only for a step toward
// the task: the "nothing went wrong" parts (policy; tool_calls and info where the task has no
// writes or no facts) pay only once the agent made PROGRESS, i.e. did at least part of the task's
// own step:
//   - a task with gold writes: at least one performed write equals a gold action;
//   - an information task: at least one required fact counts as told (facts.ts: looked up first,
//     and not drowned in wrong alternatives over the whole conversation);
//   - a forbidden request: it was resolved (below).
// So an agent that does nothing (or only says "ok") scores 0 on every component.
//
//   outcome        1 when the final database equals the gold database (hash of canonical JSON),
//                  every required fact was told, no policy rule was broken, and progress was made;
//                  for forbidden requests also resolved: the user was authenticated, the order the
//                  request is about was read, and the request was refused (the user accepted) or
//                  transferred. success = outcome.
//   tool_calls     gold write actions performed with exactly the right arguments, divided by
//                  max(#gold, #performed), so extra writes cost too; with no gold writes, 1 iff
//                  progress and no write was performed.
//   authentication 1 when the task's user was authenticated before the first access to anyone's
//                  data (monitor.ts); doing nothing never authenticates.
//   policy         1 − 0.5 · #violations, floored at 0 (rules in monitor.ts), when progress; else 0.
//   info           fraction of required facts told; with no facts to tell, 1 iff progress.
// Default weights (sum 1): outcome 0.5, tool_calls 0.2, authentication 0.1, policy 0.1, info 0.1.

import { weightedReward, type Reward } from '../types';
import { canonicalJson } from './canonical';
import type { WriteAction } from './types';

export const SERVICE_DEFAULT_WEIGHTS: Readonly<Record<string, number>> = {
  outcome: 0.5,
  tool_calls: 0.2,
  authentication: 0.1,
  policy: 0.1,
  info: 0.1,
};

/** Policy score lost per violation. */
export const POLICY_PENALTY = 0.5;

/** Everything the reward needs from one episode. */
export interface RewardInputs {
  /** Whether the current database equals the initial one after replaying the gold actions (by hash). */
  databaseMatchesGold: boolean;
  /** Gold write actions. */
  goldActions: WriteAction[];
  /** Successful write actions of the agent (canonical arguments). */
  performedActions: WriteAction[];
  /** Required facts and whether each counts as told (FactLedger.told()). */
  factsTold: boolean[];
  /** Monitor's authentication score (0 or 1). */
  authentication: number;
  /** Number of policy violations. */
  violations: number;
  /** Forbidden-request tasks: whether the request was resolved (see the header); undefined otherwise. */
  forbiddenResolved?: boolean;
}

const actionKey = (a: WriteAction): string => `${a.name}:${canonicalJson(a.arguments)}`;

/** Gold actions matched one-to-one by performed actions (arguments compared as canonical JSON). */
export function matchedGoldActions(gold: WriteAction[], performed: WriteAction[]): number {
  const remaining = performed.map(actionKey);
  let matched = 0;
  for (const g of gold) {
    const i = remaining.indexOf(actionKey(g));
    if (i !== -1) {
      matched++;
      remaining.splice(i, 1);
    }
  }
  return matched;
}

/** Gold actions matched ÷ max(#gold, #performed); with no gold actions, 1 iff none performed (the caller gates that on progress). */
export function toolCallsScore(gold: WriteAction[], performed: WriteAction[]): number {
  if (gold.length === 0) return performed.length === 0 ? 1 : 0;
  return matchedGoldActions(gold, performed) / Math.max(gold.length, performed.length);
}

/** Whether the agent did at least part of the task's own step (see the header). */
export function madeProgress(r: RewardInputs): boolean {
  if (r.forbiddenResolved === true) return true;
  if (r.goldActions.length > 0 && matchedGoldActions(r.goldActions, r.performedActions) > 0) return true;
  return r.factsTold.some(Boolean);
}

export function serviceReward(r: RewardInputs, weights: Record<string, number>): Reward {
  const progress = madeProgress(r);
  const factsShare = r.factsTold.length === 0 ? 1 : r.factsTold.filter(Boolean).length / r.factsTold.length;
  const outcome = progress && r.databaseMatchesGold && factsShare === 1 && r.violations === 0 && (r.forbiddenResolved ?? true);
  const toolCalls = r.goldActions.length > 0 || progress ? toolCallsScore(r.goldActions, r.performedActions) : 0;
  const components = {
    outcome: outcome ? 1 : 0,
    tool_calls: toolCalls,
    authentication: r.authentication,
    policy: progress ? Math.max(0, 1 - POLICY_PENALTY * r.violations) : 0,
    info: r.factsTold.length === 0 ? (progress ? 1 : 0) : factsShare,
  };
  return weightedReward(components, weights);
}
