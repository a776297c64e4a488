// Reward components of the service family, each in [0, 1]:
//   outcome        1 when the final database equals the gold database (hash of canonical JSON) and
//                  every required fact was told; for forbidden requests also the user was
//                  authenticated and the request was refused or transferred. success = outcome.
//   tool_calls     gold write actions performed with exactly the right arguments, divided by
//                  max(#gold, #performed) so extra writes cost too; with no gold writes, 1 iff none.
//   authentication 1 when the user was authenticated before the first access to anyone's data.
//   policy         1 − 0.5 · #violations, floored at 0 (see monitor.ts for the rules).
//   info           fraction of required facts told to the user (1 when there are none).
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
  /** Required facts and whether each was told. */
  factsTold: boolean[];
  /** Monitor's authentication score (0 or 1). */
  authentication: number;
  /** Number of policy violations. */
  violations: number;
  /** Forbidden-request tasks: whether the agent refused or transferred after authenticating; undefined otherwise. */
  forbiddenResolved?: boolean;
}

const actionKey = (a: WriteAction): string => `${a.name}:${canonicalJson(a.arguments)}`;

/** Fraction of gold actions matched one-to-one by performed actions, over max(#gold, #performed). */
export function toolCallsScore(gold: WriteAction[], performed: WriteAction[]): number {
  if (gold.length === 0) return performed.length === 0 ? 1 : 0;
  const remaining = performed.map(actionKey);
  let matched = 0;
  for (const g of gold) {
    const i = remaining.indexOf(actionKey(g));
    if (i !== -1) {
      matched++;
      remaining.splice(i, 1);
    }
  }
  return matched / Math.max(gold.length, performed.length);
}

export function serviceReward(r: RewardInputs, weights: Record<string, number>): Reward {
  const info = r.factsTold.length === 0 ? 1 : r.factsTold.filter(Boolean).length / r.factsTold.length;
  const outcome = r.databaseMatchesGold && info === 1 && (r.forbiddenResolved ?? true) ? 1 : 0;
  const components = {
    outcome,
    tool_calls: toolCallsScore(r.goldActions, r.performedActions),
    authentication: r.authentication,
    policy: Math.max(0, 1 - POLICY_PENALTY * r.violations),
    info,
  };
  return weightedReward(components, weights);
}
