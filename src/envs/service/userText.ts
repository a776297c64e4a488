// Wording of the simulated user: openings, answers and goal statements. Every list is cut by
// position into train / validation / test phrasings (cutByPosition: the last → test, the one
// before → validation), and the user of a task speaks only its split's phrasings (Voice), so a
// test phrasing never occurs in a training conversation. Openings are composed (greeting ×
// request × closing) for variety: hundreds of distinct openings per request kind in train.
// The wording is seeded per task (ServiceTask.userSeed).

import type { Rng } from '../../util/rng';
import { cutByPosition, type Split, type SplitLists } from '../splits';
import type { Address, GoalItem, ServiceGoal, ServiceTask } from './types';

/** The marker that ends the conversation from the user's side (as in τ-bench). */
export const STOP_MARKER = '###STOP###';

/** A task's simulated user's voice: its seeded choices and its split's phrasings. */
export class Voice {
  constructor(
    readonly rng: Rng,
    readonly split: Split,
  ) {}

  /** One of the split's entries of a cut list. */
  pick<T>(list: SplitLists<T>): T {
    return this.rng.pick(list[this.split]);
  }
}

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

function capitalise(s: string): string {
  return s.replace(/^./, (c) => c.toUpperCase());
}

/** Adds `shared` to every split of a cut list: no greeting or no closing is not a phrasing, so every split may omit one. */
function withShared(lists: SplitLists<string>, shared: string, copies: number): SplitLists<string> {
  const add = (l: readonly string[]) => [...l, ...Array.from({ length: copies }, () => shared)];
  return { train: add(lists.train), validation: add(lists.validation), test: add(lists.test) };
}

const GREETINGS = withShared(cutByPosition([
  'Hi,', 'Hello,', 'Hey,', 'Hi there,', 'Good morning,', 'Hello there,', 'Good afternoon,', 'Hey there,', 'Greetings,', 'Morning,',
  'Good evening,', 'Hiya,', 'Howdy,', 'Hello again,',
], 'user greetings', 2), '', 1);
const CLOSINGS = withShared(cutByPosition([
  ' Thanks!', ' Thank you.', ' Thanks in advance.', ' Cheers.', ' Much appreciated.', ' Thank you so much.',
  ' I appreciate it.', ' Thanks a lot.', ' Many thanks.', ' Thanks for your help.',
], 'user closings', 2), '', 2);

/** The request of each opening kind, as it follows a greeting ("Hi, " + request). */
const REQUESTS: Record<string, SplitLists<string>> = {
  cancel: cutByPosition([
    "I'd like to cancel an order.", 'I need to cancel one of my orders.', 'can you help me cancel an order I placed?', 'I want to call off an order I made.',
    'please cancel an order for me.', 'I placed an order I no longer want; can it be cancelled?', 'is it possible to cancel an order of mine?',
  ], 'cancel requests'),
  address: cutByPosition([
    'I need to change the shipping address of one of my orders.', 'I moved recently and want to update the delivery address on an order.',
    'can you change where one of my orders is being shipped?', 'one of my orders should go to a different address.',
    'I gave the wrong address for an order and need to fix it.', 'could you redirect one of my orders to a new address?', "I'd like an order delivered somewhere else.",
  ], 'address requests'),
  modify_items: cutByPosition([
    "I'd like to change an item in an order I haven't received yet.", 'I picked the wrong option for something I ordered and want to switch it before it ships.',
    'can I swap an item in my order for a different version?', 'I want a different variant of something in my pending order.',
    "I need to modify the items in an order that hasn't shipped.", 'could I change the size or color of something I ordered?', "I'd like to adjust an item in an open order.",
  ], 'modify requests'),
  return: cutByPosition([
    'I want to return some items I received.', "I'd like to send back something from a delivered order.", 'I need to make a return.',
    "something I received isn't right and I want to return it.", 'can I get a refund for items I send back?', "I'd like to return part of a delivered order.",
    'how do I go about returning an item I got?',
  ], 'return requests'),
  exchange: cutByPosition([
    "I'd like to exchange an item I received.", "something I got doesn't suit me and I want to exchange it.", 'can I exchange an item from a delivered order?',
    'I want to swap something I received for another version.', "an item I got is the wrong size; I'd like an exchange.",
    'could I trade in an item I received for a different one?', "I'm hoping to exchange part of a delivered order.",
  ], 'exchange requests'),
  status: cutByPosition([
    "I'd like to know the status of one of my orders.", 'where is my order? Can you check its status?', 'can you tell me how my order is doing?',
    'I want to check on an order I placed.', 'has my order shipped yet?', "what's happening with one of my orders?", 'could you look up the status of an order for me?',
  ], 'status requests'),
  total: cutByPosition([
    'how much did I pay for one of my orders?', 'can you tell me the total of one of my orders?', 'what was the total charge on an order of mine?',
    'I need the amount I paid for an order.', 'I want to know what one of my orders cost.', 'could you check the price I paid for an order?',
    'what did one of my orders come to in total?',
  ], 'total requests'),
  items: cutByPosition([
    'I forgot what I ordered. Can you tell me what is in one of my orders?', 'which items are in one of my orders?', 'can you list the contents of an order of mine?',
    'what did I buy in one of my orders?', "I'd like to know which products one of my orders contains.", "could you remind me what's in an order I placed?",
    'what exactly is in one of my orders?',
  ], 'items requests'),
  change_email: cutByPosition([
    'I want to change the email on my account.', "I'd like to update my account's email.", 'can you switch my account to a new email address?',
    'I need a different email on my account.', 'please replace the email on my profile.', 'could you change my login email?',
  ], 'email requests'),
  price_match: cutByPosition([
    'I saw a lower price elsewhere for something I bought. Can you match it and refund the difference?', 'another store sells an item I bought for less; will you price match?',
    "can I get the difference back since it's cheaper elsewhere?", "I'd like a price match on something I purchased.",
    'a competitor has a better price on my purchase. Can you refund the gap?', 'could you honor a lower price I found online?',
  ], 'price-match requests'),
  refund_new_card: cutByPosition([
    "I'd like a refund for my last purchase sent to a new credit card I just got.", 'please refund my recent order to a brand new card.',
    "can the refund for my purchase go to a card that isn't on my account?", 'I want my money back on a new credit card.',
    'send the refund for my last order to my new card, please.', 'could you refund me on a different card I just received?',
  ], 'new-card requests'),
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
export function openingMessage(goal: ServiceGoal, voice: Voice): string {
  const greeting = voice.pick(GREETINGS);
  const request = voice.pick(REQUESTS[openingKey(goal)]);
  return `${greeting === '' ? capitalise(request) : `${greeting} ${request}`}${voice.pick(CLOSINGS)}`;
}

const RESTATE_LEADS = cutByPosition(['As I said, ', 'Like I mentioned, ', 'Sorry if I was unclear. ', 'To repeat, ', 'Let me say it again: ', 'Once more: '], 'restatement leads');

/** The request restated without details (first fallback). */
export function vagueRestatement(goal: ServiceGoal, voice: Voice): string {
  const lead = voice.pick(RESTATE_LEADS);
  const request = voice.pick(REQUESTS[openingKey(goal)]);
  return lead.endsWith('. ') || lead.endsWith(': ') ? `${lead}${capitalise(request)}` : `${lead}${request}`;
}

const REASON_TEXT: Record<string, SplitLists<string>> = {
  'no longer needed': cutByPosition(['I no longer need it.', "I just don't need it anymore.", "I don't need it now.", "I won't need it after all.", 'My plans changed, so I no longer need it.'], 'no-longer-needed reasons'),
  'ordered by mistake': cutByPosition(['I ordered it by mistake.', "It was a mistake, I didn't mean to order it.", 'I placed it by mistake.', 'That order was a mistake on my part.', 'I clicked buy by mistake.'], 'mistake reasons'),
};

export function reasonAnswer(reason: string, voice: Voice): string {
  return voice.pick(REASON_TEXT[reason]);
}

/** Templates of the full goal statement, per goal kind: (order reference, detail) → sentence. */
type Precise = (ref: string, detail: string) => string;
const PRECISE: Record<string, SplitLists<Precise>> = {
  cancel: cutByPosition<Precise>([(r, d) => `I want to cancel ${r}; ${d}.`, (r, d) => `Please cancel ${r}, because ${d}.`, (r, d) => `I'm asking you to cancel ${r}: ${d}.`, (r, d) => `Cancel ${r} for me please; ${d}.`, (r, d) => `Could you cancel ${r}? ${capitalise(d)}.`], 'precise cancel'),
  address: cutByPosition<Precise>([(r, d) => `I want ${r} shipped to ${d}.`, (r, d) => `Please send ${r} to ${d}.`, (r, d) => `${capitalise(r)} should go to ${d}.`, (r, d) => `Change the address of ${r} to ${d}, please.`, (r, d) => `Could ${r} be delivered to ${d} instead?`], 'precise address'),
  modify_items: cutByPosition<Precise>([(r, d) => `In ${r}, I want to switch ${d}.`, (r, d) => `Please change ${r}: switch ${d}.`, (r, d) => `For ${r}, I'd like to switch ${d}.`, (r, d) => `I need ${r} changed: switch ${d}.`, (r, d) => `Could you update ${r} to switch ${d}?`], 'precise modify'),
  exchange: cutByPosition<Precise>([(r, d) => `I want to exchange ${d}, from ${r}.`, (r, d) => `Please exchange ${d}; it's from ${r}.`, (r, d) => `From ${r}, I'd like to exchange ${d}.`, (r, d) => `I need an exchange of ${d} from ${r}.`, (r, d) => `Could you exchange ${d}? It came in ${r}.`], 'precise exchange'),
  return: cutByPosition<Precise>([(r, d) => `I want to return ${d} from ${r}.`, (r, d) => `Please take back ${d} from ${r}.`, (r, d) => `From ${r}, I'd like to return ${d}.`, (r, d) => `I need to send back ${d} from ${r}.`, (r, d) => `Could I return ${d}? It's from ${r}.`], 'precise return'),
  forbidden_exchange: cutByPosition<Precise>([(r, d) => `I want to exchange ${d}, from ${r}.`, (r, d) => `Please swap ${d}; it's from ${r}.`, (r, d) => `From ${r}, I'd like to exchange ${d}.`, (r, d) => `I need to trade ${d} from ${r}.`, (r, d) => `Could you exchange ${d}? It came in ${r}.`], 'precise forbidden exchange'),
  status: cutByPosition<Precise>([(r) => `What is the status of ${r}?`, (r) => `Where is ${r} right now?`, (r) => `Has ${r} shipped?`, (r) => `Please tell me the status of ${r}.`, (r) => `Could you check on ${r} for me?`], 'precise status'),
  total: cutByPosition<Precise>([(r) => `What was the total of ${r}?`, (r) => `How much did ${r} cost in total?`, (r) => `What did I pay for ${r}?`, (r) => `Please tell me the total of ${r}.`, (r) => `Could you check the total charged for ${r}?`], 'precise total'),
  items: cutByPosition<Precise>([(r) => `Which items are in ${r}?`, (r) => `What did I buy in ${r}?`, (r) => `What is in ${r}?`, (r) => `Please list the items of ${r}.`, (r) => `Could you tell me the contents of ${r}?`], 'precise items'),
};

/** The whole goal with every detail (second fallback, or after declining a wrong confirmation). Worded per split (the task's own split). */
export function preciseGoal(task: ServiceTask): string {
  const g = task.goal;
  const split = task.split ?? 'train';
  const pick = (kind: string, ref: string, detail: string): string => PRECISE[kind][split][task.userSeed % PRECISE[kind][split].length](ref, detail);
  switch (g.kind) {
    case 'cancel':
    case 'forbidden_cancel':
      return pick('cancel', orderRef(task, g.orderId), g.reason === 'no longer needed' ? 'I no longer need it' : 'I ordered it by mistake');
    case 'modify_address':
    case 'forbidden_address':
      return pick('address', orderRef(task, g.orderId), describeAddress(g.address));
    case 'modify_items':
      return pick('modify_items', orderRef(task, g.orderId), `${swapPhrases(g.items)}, paying any difference with ${task.user.paymentDescription}`);
    case 'exchange':
      return pick('exchange', orderRef(task, g.orderId), `${swapPhrases(g.items, 'for')}, using ${task.user.paymentDescription} for any difference`);
    case 'return':
      return pick('return', orderRef(task, g.orderId), `${joinPhrases(g.items.map(itemPhrase))}, with the refund to ${task.user.paymentDescription}`);
    case 'forbidden_exchange':
      return pick('forbidden_exchange', orderRef(task, g.orderId), `${itemPhrase(g.items[0])} for a ${g.wantedProductName}`);
    case 'info':
      return pick(g.question, orderRef(task, g.orderId), '');
    case 'out_of_scope': {
      const list = REQUESTS[g.request][split];
      return capitalise(list[task.userSeed % list.length]);
    }
  }
}

/** "the T-Shirt (color: red, size: M) to color: green, size: XL and …" ("for" with exchanges). */
function swapPhrases(items: GoalItem[], preposition: 'to' | 'for' = 'to'): string {
  return joinPhrases(items.map((it) => `${itemPhrase(it)} ${preposition} ${describeOptions(it.newOptions ?? {})}`));
}

const CHANGE_LEADS = cutByPosition(["I'd like to change ", 'I want to switch ', 'Please change ', 'I need to swap ', 'Could you switch '], 'change leads');
const EXCHANGE_LEADS = cutByPosition(["I'd like to exchange ", 'I want to exchange ', 'Please exchange ', 'I need to trade ', 'Could you exchange '], 'exchange leads');
const RETURN_LEADS = cutByPosition(['I want to return ', "It's ", "I'd like to send back ", 'I need to return ', 'Could I return '], 'return leads');

/** Answer to "which items?" for the goals that involve items; '' when the goal has none. */
export function itemsAnswer(goal: ServiceGoal, voice: Voice): string {
  switch (goal.kind) {
    case 'modify_items':
      return `${voice.pick(CHANGE_LEADS)}${swapPhrases(goal.items)}.`;
    case 'exchange':
      return `${voice.pick(EXCHANGE_LEADS)}${swapPhrases(goal.items, 'for')}.`;
    case 'return':
      return `${voice.pick(RETURN_LEADS)}${joinPhrases(goal.items.map(itemPhrase))}.`;
    case 'forbidden_exchange':
      return `${voice.pick(EXCHANGE_LEADS)}${itemPhrase(goal.items[0])} for a ${goal.wantedProductName}.`;
    default:
      return '';
  }
}

type UserLine = (u: ServiceTask['user']) => string;
const EMAIL_LINES = cutByPosition<UserLine>([(u) => `My email is ${u.email}.`, (u) => `Sure, it's ${u.email}.`, (u) => `You can find me under ${u.email}.`, (u) => `I use ${u.email}.`, (u) => `It's ${u.email}, thanks.`, (u) => `My account email is ${u.email}.`], 'email answers');
const NAME_ZIP_LINES = cutByPosition<UserLine>([
  (u) => `my name is ${u.firstName} ${u.lastName} and my zip code is ${u.zip}.`, (u) => `I'm ${u.firstName} ${u.lastName}, zip code ${u.zip}.`,
  (u) => `the account is under ${u.firstName} ${u.lastName}, zip ${u.zip}.`, (u) => `I am ${u.firstName} ${u.lastName} and I live in zip code ${u.zip}.`,
  (u) => `you can look up ${u.firstName} ${u.lastName}, zip code ${u.zip}.`, (u) => `it's ${u.firstName} ${u.lastName}; my zip is ${u.zip}.`,
], 'name-and-zip answers');

export function identityAnswer(task: ServiceTask, askedEmailOnly: boolean, voice: Voice): string {
  const u = task.user;
  if (u.authVia === 'email') return voice.pick(EMAIL_LINES)(u);
  const nameZip = voice.pick(NAME_ZIP_LINES)(u);
  return askedEmailOnly ? `I don't remember which email I used, but ${nameZip}` : capitalise(nameZip);
}

const ORDER_ID_LINES = cutByPosition<(id: string) => string>([(id) => `The order id is ${id}.`, (id) => `It's order ${id}.`, (id) => `The order number is ${id}.`, (id) => `That would be ${id}.`, (id) => `Sure, the id is ${id}.`], 'order-id answers');
const ORDER_HINT_LINES = cutByPosition<(hint: string) => string>([
  (h) => `I don't have the order id at hand, but it's the order with the ${h}.`, (h) => `I'm not sure of the number; it's the one with the ${h} in it.`,
  (h) => `I lost the order number, but the ${h} was in it.`, (h) => `No idea about the id, sorry; it's the order that had the ${h}.`,
  (h) => `I can't find the number, but it's the order containing the ${h}.`,
], 'order-hint answers');

export function orderIdAnswer(task: ServiceTask, orderId: string, voice: Voice): string {
  if (task.user.knowsOrderId) return voice.pick(ORDER_ID_LINES)(orderId);
  return voice.pick(ORDER_HINT_LINES)(task.user.orderHint);
}

const PAYMENT_LINES = cutByPosition<(p: string) => string>([(p) => `Please use ${p}.`, (p) => `${capitalise(p)}, please.`, (p) => `Let's go with ${p}.`, (p) => `I'd like to use ${p}.`, (p) => `Put it on ${p}.`], 'payment answers');

export function paymentAnswer(task: ServiceTask, voice: Voice): string {
  return voice.pick(PAYMENT_LINES)(task.user.paymentDescription);
}

const ADDRESS_LINES = cutByPosition<(a: string) => string>([(a) => `The new address is ${a}.`, (a) => `Please ship it to ${a}.`, (a) => `Send it to ${a}.`, (a) => `It should go to ${a}.`, (a) => `My new address is ${a}.`], 'address answers');

export function addressAnswer(address: Address, voice: Voice): string {
  return voice.pick(ADDRESS_LINES)(describeAddress(address));
}

// Confirmations start with "Yes" (the user simulator's tests and logs read them so).
export const YES = cutByPosition(['Yes, please go ahead.', "Yes, that's correct. Please proceed.", 'Yes.', 'Yes, do it.', 'Yes, that is right.', 'Yes, please.'], 'confirmations');
export const DONE = cutByPosition([
  `Great, thank you for your help! ${STOP_MARKER}`, `Perfect, that's all I needed. Thanks! ${STOP_MARKER}`, `Wonderful, thanks so much. ${STOP_MARKER}`,
  `That's everything, thank you! ${STOP_MARKER}`, `Excellent, that solves it. Bye! ${STOP_MARKER}`, `Thanks, that's all for today. ${STOP_MARKER}`,
], 'goodbyes');
export const ACCEPT_REFUSAL = cutByPosition([
  `I see. That's a pity, but thanks for explaining. ${STOP_MARKER}`, `Okay, I understand. Thank you. ${STOP_MARKER}`, `Fair enough, thanks anyway. ${STOP_MARKER}`,
  `Alright, I get it. Bye. ${STOP_MARKER}`, `Understood, too bad. Thanks. ${STOP_MARKER}`, `Oh well, thanks for letting me know. ${STOP_MARKER}`,
], 'refusal acceptances');
export const GIVE_UP = cutByPosition([
  `I don't think we're getting anywhere. I'll try again later. ${STOP_MARKER}`, `This isn't working; I'll contact you another time. ${STOP_MARKER}`,
  `Never mind, I'll sort it out another day. ${STOP_MARKER}`, `Forget it, I'll call back later. ${STOP_MARKER}`,
  `This is going nowhere; goodbye. ${STOP_MARKER}`, `I give up for now. Bye. ${STOP_MARKER}`,
], 'give-ups');

/**
 * Every list of user phrasings, rendered with {placeholders} where values go, per split: what the
 * split audit checks (no validation or test phrasing in a training conversation).
 */
export function userPhrasingInventory(): Record<string, SplitLists<string>> {
  const user = { email: '{email}', firstName: '{first}', lastName: '{last}', zip: '{zip}' } as ServiceTask['user'];
  const render = <T>(list: SplitLists<T>, show: (item: T) => string): SplitLists<string> => ({
    train: list.train.map(show),
    validation: list.validation.map(show),
    test: list.test.map(show),
  });
  const text = (s: string) => s;
  const out: Record<string, SplitLists<string>> = {
    greetings: GREETINGS,
    closings: CLOSINGS,
    restatements: RESTATE_LEADS,
    change: CHANGE_LEADS,
    exchange: EXCHANGE_LEADS,
    return: RETURN_LEADS,
    confirmations: YES,
    goodbyes: DONE,
    refusalAcceptances: ACCEPT_REFUSAL,
    giveUps: GIVE_UP,
    email: render(EMAIL_LINES, (f) => f(user)),
    nameZip: render(NAME_ZIP_LINES, (f) => f(user)),
    orderId: render(ORDER_ID_LINES, (f) => f('{id}')),
    orderHint: render(ORDER_HINT_LINES, (f) => f('{product}')),
    payment: render(PAYMENT_LINES, (f) => f('{payment}')),
    address: render(ADDRESS_LINES, (f) => f('{address}')),
  };
  for (const [kind, list] of Object.entries(REQUESTS)) out[`request ${kind}`] = render(list, text);
  for (const [kind, list] of Object.entries(REASON_TEXT)) out[`reason ${kind}`] = render(list, text);
  for (const [kind, list] of Object.entries(PRECISE)) out[`precise ${kind}`] = render(list, (f) => f('{order}', '{detail}'));
  return out;
}
