// Wording of the simulated user: openings, answers and goal statements, each with a few templates
// so trajectories do not all read alike. Every function takes the Rng that picks the template.

import type { Rng } from '../../util/rng';
import type { Address, GoalItem, ServiceGoal, ServiceTask } from './types';

/** The marker that ends the conversation from the user's side (as in τ-bench). */
export const STOP_MARKER = '###STOP###';

/** "color: red, size: M". */
export function describeOptions(options: Record<string, string>): string {
  return Object.entries(options)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
}

/** "12 Oak Street, Suite 100, Austin, TX 78701, USA". */
export function describeAddress(a: Address): string {
  return `${a.address1}${a.address2 ? `, ${a.address2}` : ''}, ${a.city}, ${a.state} ${a.zip}, ${a.country}`;
}

function itemPhrase(item: GoalItem): string {
  return `the ${item.productName} (${describeOptions(item.options)})`;
}

function joinPhrases(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** How the user refers to the order: by id when known, else by a product only that order has. */
function orderRef(task: ServiceTask, orderId: string): string {
  return task.user.knowsOrderId ? `order ${orderId}` : `my order with the ${task.user.orderHint}`;
}

const OPENINGS: Record<string, readonly string[]> = {
  cancel: ["Hi, I'd like to cancel an order.", 'Hello, I need to cancel one of my orders.', 'Hi there! Can you help me cancel an order I placed?'],
  address: [
    'Hi, I need to change the shipping address of one of my orders.',
    'Hello, I moved recently and want to update the delivery address on an order.',
    'Hi! Can you change where one of my orders is being shipped?',
  ],
  modify_items: [
    "Hi, I'd like to change an item in an order I haven't received yet.",
    'Hello, I picked the wrong option for something I ordered and want to switch it before it ships.',
    'Hi, can I swap an item in my order for a different version?',
  ],
  return: ['Hi, I want to return some items I received.', "Hello, I'd like to send back something from a delivered order.", 'Hi there, I need to make a return.'],
  exchange: ["Hi, I'd like to exchange an item I received.", "Hello, something I got doesn't suit me and I want to exchange it.", 'Hi, can I exchange an item from a delivered order?'],
  status: ["Hi, I'd like to know the status of one of my orders.", 'Hello, where is my order? Can you check its status?'],
  total: ['Hi, how much did I pay for one of my orders?', 'Hello, can you tell me the total of one of my orders?'],
  items: ['Hi, I forgot what I ordered. Can you tell me what is in one of my orders?', 'Hello, which items are in one of my orders?'],
  change_email: ['Hi, I want to change the email on my account.', "Hello, I'd like to update my account's email."],
  price_match: ['Hi, I saw a lower price elsewhere for something I bought. Can you match it and refund the difference?'],
  refund_new_card: ["Hi, I'd like a refund for my last purchase sent to a new credit card I just got."],
};

function openingKey(goal: ServiceGoal): string {
  switch (goal.kind) {
    case 'cancel':
    case 'forbidden_cancel':
      return 'cancel';
    case 'modify_address':
    case 'forbidden_address':
      return 'address';
    case 'forbidden_exchange':
    case 'exchange':
      return 'exchange';
    case 'info':
      return goal.question;
    case 'out_of_scope':
      return goal.request;
    default:
      return goal.kind;
  }
}

/** First user message: the request, vaguely, with no identity and no order id. */
export function openingMessage(goal: ServiceGoal, rng: Rng): string {
  return rng.pick(OPENINGS[openingKey(goal)]);
}

/** The request restated without details (first fallback). */
export function vagueRestatement(goal: ServiceGoal, rng: Rng): string {
  return `${rng.pick(['As I said, ', 'Like I mentioned, ', 'Sorry if I was unclear. '])}${openingMessage(goal, rng).replace(/^(Hi|Hello)[^,!]*[,!]\s*/, '')}`;
}

const REASON_TEXT: Record<string, readonly string[]> = {
  'no longer needed': ['I no longer need it.', "I just don't need it anymore."],
  'ordered by mistake': ['I ordered it by mistake.', "It was a mistake, I didn't mean to order it."],
};

export function reasonAnswer(reason: string, rng: Rng): string {
  return rng.pick(REASON_TEXT[reason]);
}

/** The whole goal with every detail (second fallback, or after declining a wrong confirmation). */
export function preciseGoal(task: ServiceTask): string {
  const g = task.goal;
  switch (g.kind) {
    case 'cancel':
    case 'forbidden_cancel':
      return `I want to cancel ${orderRef(task, g.orderId)}; ${g.reason === 'no longer needed' ? 'I no longer need it' : 'I ordered it by mistake'}.`;
    case 'modify_address':
    case 'forbidden_address':
      return `I want ${orderRef(task, g.orderId)} shipped to ${describeAddress(g.address)}.`;
    case 'modify_items':
      return `In ${orderRef(task, g.orderId)}, I want to switch ${swapPhrases(g.items)}, paying any difference with ${task.user.paymentDescription}.`;
    case 'exchange':
      return `I want to exchange ${swapPhrases(g.items, 'for')} from ${orderRef(task, g.orderId)}, using ${task.user.paymentDescription} for any difference.`;
    case 'return':
      return `I want to return ${joinPhrases(g.items.map(itemPhrase))} from ${orderRef(task, g.orderId)}, with the refund to ${task.user.paymentDescription}.`;
    case 'forbidden_exchange':
      return `I want to exchange ${itemPhrase(g.items[0])} from ${orderRef(task, g.orderId)} for a ${g.wantedProductName}.`;
    case 'info':
      return g.question === 'status'
        ? `What is the status of ${orderRef(task, g.orderId)}?`
        : g.question === 'total'
          ? `What was the total of ${orderRef(task, g.orderId)}?`
          : `Which items are in ${orderRef(task, g.orderId)}?`;
    case 'out_of_scope':
      return OPENINGS[g.request][0].replace(/^Hi, /, '');
  }
}

/** "the T-Shirt (color: red, size: M) to color: green, size: XL and …" ("for" with exchanges). */
function swapPhrases(items: GoalItem[], preposition: 'to' | 'for' = 'to'): string {
  return joinPhrases(items.map((it) => `${itemPhrase(it)} ${preposition} ${describeOptions(it.newOptions ?? {})}`));
}

/** Answer to "which items?" for the goals that involve items; '' when the goal has none. */
export function itemsAnswer(goal: ServiceGoal, rng: Rng): string {
  switch (goal.kind) {
    case 'modify_items':
      return `${rng.pick(["I'd like to change ", 'I want to switch '])}${swapPhrases(goal.items)}.`;
    case 'exchange':
      return `${rng.pick(["I'd like to exchange ", 'I want to exchange '])}${swapPhrases(goal.items, 'for')}.`;
    case 'return':
      return `${rng.pick(['I want to return ', "It's "])}${joinPhrases(goal.items.map(itemPhrase))}.`;
    case 'forbidden_exchange':
      return `I want to exchange ${itemPhrase(goal.items[0])} for a ${goal.wantedProductName}.`;
    default:
      return '';
  }
}

export function identityAnswer(task: ServiceTask, askedEmailOnly: boolean, rng: Rng): string {
  const u = task.user;
  if (u.authVia === 'email') return rng.pick([`My email is ${u.email}.`, `Sure, it's ${u.email}.`, `You can find me under ${u.email}.`]);
  const nameZip = rng.pick([`my name is ${u.firstName} ${u.lastName} and my zip code is ${u.zip}.`, `I'm ${u.firstName} ${u.lastName}, zip code ${u.zip}.`]);
  return askedEmailOnly ? `I don't remember which email I used, but ${nameZip}` : nameZip.replace(/^./, (c) => c.toUpperCase());
}

export function orderIdAnswer(task: ServiceTask, orderId: string, rng: Rng): string {
  if (task.user.knowsOrderId) return rng.pick([`The order id is ${orderId}.`, `It's order ${orderId}.`]);
  return rng.pick([
    `I don't have the order id at hand, but it's the order with the ${task.user.orderHint}.`,
    `I'm not sure of the number; it's the one with the ${task.user.orderHint} in it.`,
  ]);
}

export function paymentAnswer(task: ServiceTask, rng: Rng): string {
  const p = task.user.paymentDescription;
  return rng.pick([`Please use ${p}.`, `${p.replace(/^./, (c) => c.toUpperCase())}, please.`]);
}

export function addressAnswer(address: Address, rng: Rng): string {
  return rng.pick([`The new address is ${describeAddress(address)}.`, `Please ship it to ${describeAddress(address)}.`]);
}

export const YES = ['Yes, please go ahead.', "Yes, that's correct. Please proceed.", 'Yes.'] as const;
export const DONE = [`Great, thank you for your help! ${STOP_MARKER}`, `Perfect, that's all I needed. Thanks! ${STOP_MARKER}`] as const;
export const ACCEPT_REFUSAL = [`I see. That's a pity, but thanks for explaining. ${STOP_MARKER}`, `Okay, I understand. Thank you. ${STOP_MARKER}`] as const;
export const GIVE_UP = [`I don't think we're getting anywhere. I'll try again later. ${STOP_MARKER}`, `This isn't working; I'll contact you another time. ${STOP_MARKER}`] as const;
