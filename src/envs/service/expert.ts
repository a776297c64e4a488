// The expert agent: follows the policy step by step (ask → authenticate → look up → confirm → act →
// report) and reaches full reward. It reads the task's hidden solution for decisions, but only
// uses an id after the turn in which a real agent would have seen it, so its trajectories are
// faithful SFT data. At most 8 assistant turns.

import { Rng } from '../../util/rng';
import { formatToolCalls, type ToolCall } from '../../tokenizer/toolCalls';
import type { Policy } from '../types';
import { seedDatabase } from './database';
import { serviceLevelOf } from './levels';
import { orderTotal } from './tasks';
import type { Database, GoalItem, Order, ServiceGoal, ServiceTask } from './types';
import { describeAddress, describeOptions } from './userText';

/** One assistant turn of the script: plain text to the user, or tool calls. */
type ExpertTurn = string | ToolCall[];

const GREETINGS = ['Hello! I can help with that.', "Hi, I'd be glad to help.", 'Sure, I can help you with that.'];

function askIdentity(task: ServiceTask): string {
  return task.user.authVia === 'email'
    ? 'First, to verify your identity, could you tell me the email address on your account?'
    : 'First, to verify your identity, could you tell me your first name, last name and zip code?';
}

function askDetails(goal: ServiceGoal): string {
  const which = 'Which order is it (the order id)?';
  switch (goal.kind) {
    case 'cancel':
    case 'forbidden_cancel':
      return `${which} And what is the reason for the cancellation?`;
    case 'modify_address':
    case 'forbidden_address':
      return `${which} And what is the new address?`;
    case 'modify_items':
    case 'exchange':
      return `${which} Which items would you like to change, to which options, and which payment method should cover any price difference?`;
    case 'return':
      return `${which} Which items would you like to return, and which payment method should receive the refund?`;
    case 'forbidden_exchange':
      return `${which} Which item would you like to exchange, and for what?`;
    case 'info':
      return which;
    case 'out_of_scope':
      return '';
  }
}

function itemLine(item: GoalItem, withNew: boolean): string {
  const old = `item ${item.itemId} (${item.productName}, ${describeOptions(item.options)})`;
  return withNew ? `${old} → item ${item.newItemId} (${describeOptions(item.newOptions ?? {})})` : old;
}

function money(x: number): string {
  return `$${Math.abs(x).toFixed(2)}`;
}

function priceDifference(db: Database, order: Order, items: GoalItem[]): number {
  let diff = 0;
  for (const it of items) {
    const product = db.products[order.items.find((x) => x.item_id === it.itemId)!.product_id];
    diff += product.variants[it.newItemId!].price - order.items.find((x) => x.item_id === it.itemId)!.price;
  }
  return Math.round(diff * 100) / 100;
}

function differenceText(diff: number, methodId: string): string {
  if (diff === 0) return 'There is no price difference.';
  return diff > 0 ? `The price difference of ${money(diff)} will be charged to ${methodId}.` : `The price difference of ${money(diff)} will be refunded to ${methodId}.`;
}

const CONFIRM = 'Do you confirm (yes/no)?';

/** The confirmation request, the write call and the report for a write goal. */
function writeTurns(db: Database, task: ServiceTask, order: Order): ExpertTurn[] {
  const g = task.goal;
  const gold = task.goldActions[0];
  const id = order.order_id;
  switch (g.kind) {
    case 'cancel':
      return [
        `I will cancel order ${id} with the reason '${g.reason}'. The payment will be refunded to the original payment method. ${CONFIRM}`,
        [gold],
        `Order ${id} has been cancelled and the refund is on its way to the original payment method. Is there anything else I can help with?`,
      ];
    case 'modify_address':
      return [
        `I will change the shipping address of order ${id} to ${describeAddress(g.address)}. ${CONFIRM}`,
        [gold],
        `The shipping address of order ${id} is now ${describeAddress(g.address)}. Anything else I can help with?`,
      ];
    case 'modify_items': {
      const diff = priceDifference(db, order, g.items);
      return [
        `I will modify order ${id}: ${g.items.map((it) => itemLine(it, true)).join('; ')}. ${differenceText(diff, g.paymentMethodId)} ${CONFIRM}`,
        [gold],
        `Order ${id} has been updated with the new items. Anything else I can help with?`,
      ];
    }
    case 'exchange': {
      const diff = priceDifference(db, order, g.items);
      return [
        `I will exchange ${g.items.map((it) => itemLine(it, true)).join('; ')} from order ${id}. ${differenceText(diff, g.paymentMethodId)} ${CONFIRM}`,
        [gold],
        `The exchange for order ${id} has been requested; you will receive instructions for sending the items back. Anything else?`,
      ];
    }
    case 'return': {
      const refund = g.items.reduce((s, it) => s + order.items.find((x) => x.item_id === it.itemId)!.price, 0);
      return [
        `I will return ${g.items.map((it) => itemLine(it, false)).join('; ')} from order ${id}, with the refund of ${money(refund)} going to ${g.paymentMethodId}. ${CONFIRM}`,
        [gold],
        `The return for order ${id} has been requested; the refund will go to ${g.paymentMethodId} once the items arrive. Anything else?`,
      ];
    }
    default:
      return [];
  }
}

function infoAnswer(task: ServiceTask, order: Order): string {
  const g = task.goal;
  if (g.kind !== 'info') return '';
  if (g.question === 'status') return `Order ${order.order_id} is currently ${order.status}.`;
  if (g.question === 'total') return `The total of order ${order.order_id} is $${orderTotal(order)}.`;
  return `Order ${order.order_id} contains: ${order.items.map((it) => it.name).join(', ')}.`;
}

function refusal(goal: ServiceGoal, order: Order | undefined): string {
  switch (goal.kind) {
    case 'forbidden_cancel':
      return `I'm sorry, but order ${order!.order_id} is ${order!.status}, and only pending orders can be cancelled, so I cannot cancel it.`;
    case 'forbidden_address':
      return `I'm sorry, but order ${order!.order_id} is ${order!.status}; only pending orders can get a new shipping address, so I cannot change it.`;
    case 'forbidden_exchange':
      return `I'm sorry, but items can only be exchanged for another variant of the same product, so I cannot exchange the ${goal.items[0].productName} for a ${goal.wantedProductName}.`;
    case 'out_of_scope':
      return goal.request === 'change_email'
        ? "I'm sorry, but I cannot change account details such as the email under our policy."
        : goal.request === 'price_match'
          ? "I'm sorry, but I cannot match prices from other stores under our policy."
          : "I'm sorry, but refunds can only go to the original payment method or a gift card, so I cannot send a refund to a new card.";
    default:
      return '';
  }
}

/** The full script of the expert for this task. */
export function expertScript(task: ServiceTask, seed: number): ExpertTurn[] {
  const rng = new Rng(seed ^ 0x5e41ce);
  const db = seedDatabase(task.dbSeed);
  const g = task.goal;
  const u = task.user;
  const order = 'orderId' in g ? db.orders[g.orderId] : undefined;
  const level = serviceLevelOf(task);
  const turns: ExpertTurn[] = [`${rng.pick(GREETINGS)} ${askIdentity(task)} ${askDetails(g)}`.trim()];
  turns.push([
    u.authVia === 'email'
      ? { name: 'find_user_id_by_email', arguments: { email: u.email } }
      : { name: 'find_user_id_by_name_zip', arguments: { first_name: u.firstName, last_name: u.lastName, zip: u.zip } },
  ]);
  if (level === 'status' && order) {
    // the status level's short read (levels.ts): the user gave the order id, no account details needed
    turns.push([{ name: 'get_order_status', arguments: { order_id: order.order_id } }], infoAnswer(task, order));
    return turns;
  }
  // the retail level reads the account first (its orders list); the write level's user gives the order id
  if (level === 'retail') turns.push([{ name: 'get_user_details', arguments: { user_id: u.userId } }]);
  if (order) {
    // Without an order id the agent must open each of the user's orders to find the one described.
    const toOpen = u.knowsOrderId ? [order.order_id] : db.users[u.userId].orders;
    turns.push(toOpen.map((id) => ({ name: 'get_order_details', arguments: { order_id: id } })));
  }
  if ((g.kind === 'modify_items' || g.kind === 'exchange') && order) {
    const products = [...new Set(g.items.map((it) => order.items.find((x) => x.item_id === it.itemId)!.product_id))];
    turns.push(products.map((id) => ({ name: 'get_product_details', arguments: { product_id: id } })));
  }
  if (task.category === 'transfer') {
    const summary = `User ${u.userId} asked for something the policy does not allow: ${refusal(g, order).replace(/^I'm sorry, but /, '')}`;
    turns.push(rng.next() < 0.5 ? refusal(g, order) : [{ name: 'transfer_to_human_agents', arguments: { summary } }]);
  } else if (g.kind === 'info') {
    turns.push(infoAnswer(task, order!));
  } else if (order) {
    turns.push(...writeTurns(db, task, order));
  }
  return turns;
}

/** Policy that plays the expert script; turn k of the script answers after k assistant messages. */
export function serviceExpertPolicy(task: ServiceTask, seed: number): Policy {
  const script = expertScript(task, seed);
  return async (messages) => {
    const turn = messages.filter((m) => m.role === 'assistant').length;
    const next = script[turn];
    if (next === undefined) return 'Thank you for contacting us. Have a great day!';
    return typeof next === 'string' ? next : formatToolCalls(next);
  };
}
