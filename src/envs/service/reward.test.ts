import { describe, expect, it } from 'vitest';
import { serviceReward, SERVICE_DEFAULT_WEIGHTS, toolCallsScore } from './reward';
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

  it('takes 0.5 of policy per violation, floored at 0', () => {
    expect(serviceReward({ ...base, violations: 1 }, SERVICE_DEFAULT_WEIGHTS).components.policy).toBe(0.5);
    expect(serviceReward({ ...base, violations: 5 }, SERVICE_DEFAULT_WEIGHTS).components.policy).toBe(0);
  });
});
