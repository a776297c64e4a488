import { describe, expect, it } from 'vitest';
import { madeProgress, serviceReward, SERVICE_DEFAULT_WEIGHTS, toolCallsScore, type RewardInputs } from './reward';
import type { WriteAction } from './types';

const cancel = (id: string): WriteAction => ({ name: 'cancel_pending_order', arguments: { order_id: id, reason: 'no longer needed' } });

describe('toolCallsScore', () => {
  it('matches gold actions one-to-one, ignoring key order, and charges extra writes', () => {
    expect(toolCallsScore([cancel('#W1')], [{ name: 'cancel_pending_order', arguments: { reason: 'no longer needed', order_id: '#W1' } }])).toBe(1);
    expect(toolCallsScore([cancel('#W1')], [cancel('#W2')])).toBe(0);
    expect(toolCallsScore([cancel('#W1')], [cancel('#W1'), cancel('#W2')])).toBe(0.5);
    expect(toolCallsScore([cancel('#W1'), cancel('#W2')], [cancel('#W1')])).toBe(0.5);
    expect(toolCallsScore([cancel('#W1')], [cancel('#W1'), cancel('#W1')])).toBe(0.5);
    expect(toolCallsScore([], [])).toBe(1);
    expect(toolCallsScore([], [cancel('#W1')])).toBe(0);
  });
});

describe('serviceReward', () => {
  const base = { goldActions: [cancel('#W1')], performedActions: [cancel('#W1')], factsTold: [], authentication: 1, violations: 0, databaseMatchesGold: true };

  it('gives 1 for a clean solve, and needs every fact and (for forbidden requests) a resolution for the outcome', () => {
    expect(serviceReward(base, SERVICE_DEFAULT_WEIGHTS).total).toBeCloseTo(1, 12);
    const halfFacts = serviceReward({ ...base, factsTold: [true, false] }, SERVICE_DEFAULT_WEIGHTS);
    expect(halfFacts.components).toMatchObject({ info: 0.5, outcome: 0 });
    expect(serviceReward({ ...base, forbiddenResolved: false }, SERVICE_DEFAULT_WEIGHTS).components.outcome).toBe(0);
    expect(serviceReward({ ...base, databaseMatchesGold: false }, SERVICE_DEFAULT_WEIGHTS).components.outcome).toBe(0);
  });

  it('takes 0.5 of policy per violation, floored at 0, and any violation voids the outcome', () => {
    expect(serviceReward({ ...base, violations: 1 }, SERVICE_DEFAULT_WEIGHTS).components).toMatchObject({ policy: 0.5, outcome: 0 });
    expect(serviceReward({ ...base, violations: 5 }, SERVICE_DEFAULT_WEIGHTS).components).toMatchObject({ policy: 0, outcome: 0 });
  });

  // What an agent that does nothing leaves behind, per kind of task: database untouched, no writes, no facts, no login.
  const idle = (over: Partial<RewardInputs>): RewardInputs => ({ goldActions: [], performedActions: [], factsTold: [], authentication: 0, violations: 0, databaseMatchesGold: true, ...over });
  const zero = { outcome: 0, tool_calls: 0, authentication: 0, policy: 0, info: 0 };

  it('pays nothing without progress: "no violation", "no extra write" and "no fact to tell" count only once the agent acted', () => {
    const writeTask = idle({ goldActions: [cancel('#W1')], databaseMatchesGold: false });
    const infoTask = idle({ factsTold: [false] });
    const forbiddenTask = idle({ forbiddenResolved: false });
    for (const r of [writeTask, infoTask, forbiddenTask, idle({})]) {
      expect(madeProgress(r)).toBe(false);
      expect(serviceReward(r, SERVICE_DEFAULT_WEIGHTS)).toMatchObject({ components: zero, total: 0 });
    }
    // a wrong write is not progress either (and costs tool_calls)
    expect(serviceReward({ ...writeTask, performedActions: [cancel('#W2')], authentication: 1 }, SERVICE_DEFAULT_WEIGHTS).components).toEqual({ ...zero, authentication: 1 });
  });

  it('once progress is made, the guard components pay', () => {
    expect(serviceReward(idle({ factsTold: [true], authentication: 1 }), SERVICE_DEFAULT_WEIGHTS).components).toEqual({ outcome: 1, tool_calls: 1, authentication: 1, policy: 1, info: 1 });
    expect(serviceReward(idle({ forbiddenResolved: true, authentication: 1, violations: 1 }), SERVICE_DEFAULT_WEIGHTS).components).toEqual({ outcome: 0, tool_calls: 1, authentication: 1, policy: 0.5, info: 1 });
    // half the facts: progress, info 0.5, no outcome
    expect(serviceReward(idle({ factsTold: [true, false], authentication: 1 }), SERVICE_DEFAULT_WEIGHTS).components).toEqual({ outcome: 0, tool_calls: 1, authentication: 1, policy: 1, info: 0.5 });
  });
});
