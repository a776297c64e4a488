// Watches one episode for the policy's procedural rules: authentication before any access to the
// user's data, an explicit yes before each consequential action, one action per turn, and no
// forbidden changes. The tools enforce what may change (write tools refuse a user the agent has not
// authenticated); this records how the agent went about it. Any violation voids the outcome
// (reward.ts).

import { normalizeOrderId, WRITE_TOOLS, type ToolOutcome } from './tools';
import type { WriteAction } from './types';
import type { ConfirmedAction, UserTurn } from './userSim';

/** The policy rules the monitor checks. */
export type PolicyRule =
  | 'unauthenticated-access' // read or acted on a user's data before authenticating that user
  | 'no-confirmation' // a consequential action without the user's explicit yes to that action
  | 'several-actions' // more than one consequential tool call in one assistant turn
  | 'forbidden-change'; // a consequential action the policy forbids (the tool refused it)

/** One broken rule. */
export interface PolicyViolation {
  /** Which rule. */
  rule: PolicyRule;
  /** Assistant turn (1-based) where it happened. */
  turn: number;
  /** What exactly happened, for logs and trajectory viewers. */
  detail: string;
}

export class PolicyMonitor {
  /** The task user's id once authenticated with credentials the user gave; null before. */
  authenticatedUser: string | null = null;
  /** Index (in call order) of the authenticating lookup; null before. */
  authCallIndex: number | null = null;
  /** Index of the first call that read or acted on any user's data; null if none yet. */
  firstAccessCallIndex: number | null = null;
  /** All violations so far, in order. */
  readonly violations: PolicyViolation[] = [];
  /** Successful write actions, canonical arguments, in order. */
  readonly performedActions: WriteAction[] = [];
  /** True once transfer_to_human_agents ran. */
  transferred = false;

  private identityDisclosed = false;
  private confirmation: ConfirmedAction | null = null;
  private callIndex = 0;

  constructor(private readonly taskUserId: string) {}

  /** Records what the user's reply disclosed or confirmed. */
  onUserTurn(turn: UserTurn): void {
    if (turn.disclosedIdentity) this.identityDisclosed = true;
    if (turn.confirmed) this.confirmation = turn.confirmed;
  }

  /** Called once per assistant turn with the names of the calls it made, before they run. */
  onToolTurn(turn: number, toolNames: string[]): void {
    const writes = toolNames.filter((n) => WRITE_TOOLS.has(n));
    if (writes.length > 1) this.violate('several-actions', turn, `${writes.length} consequential calls in one turn (${writes.join(', ')})`);
  }

  /** Called after each tool call ran. */
  onToolCall(turn: number, name: string, args: Record<string, unknown>, outcome: ToolOutcome): void {
    const index = this.callIndex++;
    if (outcome.foundUserId && outcome.foundUserId === this.taskUserId && this.identityDisclosed && this.authenticatedUser === null) {
      this.authenticatedUser = outcome.foundUserId;
      this.authCallIndex = index;
    }
    if (outcome.dataOwner !== undefined) {
      this.firstAccessCallIndex ??= index;
      if (outcome.dataOwner !== this.authenticatedUser) {
        this.violate('unauthenticated-access', turn, `${name} touched data of ${outcome.dataOwner}, who is not the authenticated user`);
      }
    }
    // A write counts as attempted once its arguments were well-formed (it reached a real check),
    // including one the tool refused for lack of authentication (also an unauthenticated access).
    const attempted = outcome.isWrite && outcome.errorKind !== 'invalid-arguments' && outcome.errorKind !== 'unknown-tool';
    if (attempted) {
      const confirmed = this.confirmation;
      this.confirmation = null; // one yes covers one action
      const orderId = typeof args.order_id === 'string' ? normalizeOrderId(args.order_id) : '';
      if (!confirmed || confirmed.tool !== name || confirmed.orderId !== orderId) {
        this.violate('no-confirmation', turn, `${name} on ${orderId || 'an order'} without the user's explicit yes to that action`);
      }
    }
    if (outcome.isWrite && outcome.errorKind === 'policy') this.violate('forbidden-change', turn, outcome.output.slice(0, 200));
    if (outcome.ok && outcome.action) this.performedActions.push(outcome.action);
    if (outcome.transferred) this.transferred = true;
  }

  /** 1 when the task user was authenticated before the first access to anyone's data, else 0. */
  authenticationScore(): number {
    if (this.authCallIndex === null) return 0;
    return this.firstAccessCallIndex === null || this.firstAccessCallIndex > this.authCallIndex ? 1 : 0;
  }

  private violate(rule: PolicyRule, turn: number, detail: string): void {
    this.violations.push({ rule, turn, detail });
  }
}
