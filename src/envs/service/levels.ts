// Difficulty levels of the customer-service family (the curriculum): the same database, tools,
// simulated user, reward and splits, with fewer kinds of request, a shorter written policy and
// fewer tools at the smaller levels, so an episode is short enough to train on a CPU adapter.
//   status  look up a status: the user asks where an order is; authenticate by email, read the
//           order's status (get_order_status), tell it. 4 expert turns, ~430 trimmed-Qwen3 tokens.
//   write   one write with confirmation: cancel a pending order or change its address; confirm the
//           details, act, report. 6 expert turns.
//   multi-step  a return or an exchange of delivered items: authenticate, read the order (and, for an
//           exchange, the product's variants), confirm items and payment method, act, report. The
//           user knows the order id and pays or is refunded with the order's original payment method
//           (its id is in get_order_details), so no account read is needed. 6–7 expert turns.
//   retail  the full τ-bench-style task set: seven categories (writes, returns, exchanges, item
//           swaps, information, forbidden requests), 11 tools, the whole policy. Up to 8 turns.
// Every level draws its users, products, ids and user phrasings from the same per-split pools
// (database.ts, catalog.ts, userText.ts), so no level's validation or test content is in any
// level's training data (src/eval/splitDisjointness.test.ts audits all levels together).
import { MULTI_STEP_POLICY, SERVICE_POLICY, STATUS_POLICY, WRITE_POLICY } from './policy';
import { ORDER_STATUS_TOOL, SERVICE_TOOL_SPECS } from './toolSpecs';
import type { ServiceCategory } from './types';
import type { ToolSpec } from '../types';

export const SERVICE_LEVELS = ['status', 'write', 'multi-step', 'retail'] as const;
export type ServiceLevel = (typeof SERVICE_LEVELS)[number];

export interface ServiceLevelSpec {
  /** Task categories of the level, visited round-robin by task index. */
  categories: readonly ServiceCategory[];
  /** The written policy of the system message. */
  policy: string;
  /** The tools offered, in the order the agent sees them; other tools are refused as unknown. */
  tools: readonly ToolSpec[];
  /** Information tasks ask only this question (status level); otherwise status, total or items. */
  question?: 'status';
  /** The user always knows the order id (no search through the user's orders). */
  userKnowsOrderId: boolean;
  /** The user identifies by email only (one value to copy) rather than email or name + zip. */
  emailOnly: boolean;
  /** Returns and exchanges use the order's original payment method (no account read to find another). */
  originalPaymentOnly?: boolean;
}

const byName = (names: readonly string[]): ToolSpec[] =>
  names.map((n) => {
    const t = n === ORDER_STATUS_TOOL.function.name ? ORDER_STATUS_TOOL : SERVICE_TOOL_SPECS.find((s) => s.function.name === n);
    if (!t) throw new Error(`service level names an unknown tool: ${n}`);
    return t;
  });

export const SERVICE_LEVEL_SPECS: Readonly<Record<ServiceLevel, ServiceLevelSpec>> = {
  status: {
    categories: ['info'], policy: STATUS_POLICY, tools: byName(['find_user_id_by_email', 'get_order_status']),
    question: 'status', userKnowsOrderId: true, emailOnly: true,
  },
  write: {
    categories: ['cancel', 'modify_address'], policy: WRITE_POLICY,
    tools: byName(['find_user_id_by_email', 'find_user_id_by_name_zip', 'get_order_details', 'cancel_pending_order', 'modify_pending_order_address']),
    userKnowsOrderId: true, emailOnly: false,
  },
  'multi-step': {
    categories: ['return', 'exchange'], policy: MULTI_STEP_POLICY,
    tools: byName(['find_user_id_by_email', 'find_user_id_by_name_zip', 'get_user_details', 'get_order_details', 'get_product_details', 'return_delivered_order_items', 'exchange_delivered_order_items']),
    userKnowsOrderId: true, emailOnly: false, originalPaymentOnly: true,
  },
  retail: {
    categories: ['cancel', 'modify_address', 'modify_items', 'return', 'exchange', 'info', 'transfer'], policy: SERVICE_POLICY, tools: SERVICE_TOOL_SPECS,
    userKnowsOrderId: false, emailOnly: false,
  },
};

/** The level of a task (tasks without one, e.g. hand-built in tests, are retail). */
export function serviceLevelOf(task: { level?: ServiceLevel }): ServiceLevel {
  return task.level ?? 'retail';
}
