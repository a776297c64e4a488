// The scripted simulated user. It knows its goal and identity, reads each text turn of the agent,
// and answers what it is asked (identity, order, items, reason, payment, address), says "yes" only
// to a confirmation of the action it wants, and ends with ###STOP### when its goal is met, when a
// forbidden request is refused, or when the conversation is clearly stuck. Deterministic per task.

import { Rng } from '../../util/rng';
import type { ServiceGoal, ServiceTask, WriteToolName } from './types';
import * as say from './userText';

/** The action a confirmation refers to: which write tool on which order. */
export interface ConfirmedAction {
  /** Write tool the user agreed to. */
  tool: WriteToolName;
  /** Order the user agreed to act on. */
  orderId: string;
}

/** Why the user ended the conversation. */
export type UserEndReason = 'goal-achieved' | 'refusal-accepted' | 'stuck';

/** One reply of the simulated user. */
export interface UserTurn {
  /** What the user says. */
  text: string;
  /** True when the user ended the conversation (text holds STOP_MARKER). */
  ended: boolean;
  /** Set when ended. */
  endReason?: UserEndReason;
  /** True when this reply gave the user's credentials (email, or name and zip). */
  disclosedIdentity: boolean;
  /**
   * False when the user found nothing to act on in the agent's text (no question it could answer, no
   * confirmation request, no refusal, no answer that met its goal) and fell back to restating its
   * request, asking whether the agent is there, or giving up: a 'user-confused' fault.
   */
  understood: boolean;
  /** Set when this reply is an explicit yes to the action it names. */
  confirmed?: ConfirmedAction;
}

/** Turns the user tolerates before giving up (unanswerable turns, declined confirmations, refusals). */
export const PATIENCE = { unhelpful: 3, declined: 2, refusals: 2 };

const FORBIDDEN_KINDS = new Set<ServiceGoal['kind']>(['forbidden_cancel', 'forbidden_address', 'forbidden_exchange', 'out_of_scope']);

// Patterns run on lower-cased text with "email address" folded to "email". None has unbounded
// wildcards, so a 1 MB message costs one linear scan per pattern.
// The user answers only when asked: a question mark or a request phrase.
const IS_REQUEST = /\?|\b(please|could you|can you|would you|provide|tell me|share|need your|let me know|give me)\b/;
const ASKS_IDENTITY = /\b(e-?mail|zip|postal|postcode|your name|first name|last name|full name|identify yourself|verify your identity|authenticate)\b/;
const ASKS_EMAIL_ONLY = /\be-?mail\b/;
const ASKS_NAME_OR_ZIP = /\b(zip|postal|postcode|name)\b/;
// Not "order #…": agents name orders that way in statements, not only in questions.
const ASKS_ORDER = /\border (id|ids|number|numbers)\b|\b(which|what) order\b/;
const ASKS_ITEMS = /\b(which|what) (items?|products?|ones?|things?|colou?rs?|sizes?|options?|variants?|versions?)\b|\bitem ids?\b|\bwhat would you like to (return|exchange|swap|change)\b/;
const ASKS_REASON = /\breason\b|\bwhy\b/;
const ASKS_PAYMENT = /\bpayment\b|\bpay\b|\brefund\b|\bcard\b|\bpaypal\b|\bcharge[ds]?\b/;
const ASKS_ADDRESS = /\baddress\b/;
const ASKS_CONFIRM = /\bconfirm|\bproceed\b|\bshall i\b|\bshould i\b|\bdo you want me to\b|\bwould you like me to\b|\bgo ahead\b|\byes\/no\b|\(yes\b|\byes or no\b|\bis (that|this) correct\b/;
const ACTION_WORD = /\b(cancel|return|exchange|modify|change|swap|switch|replace|update|address|transfer)/;
const TRANSFER_WORD = /\btransfer|\bhuman\b/;
const REFUSAL = /\b(cannot|can't|can not|unable to|not able to|not possible|not allowed|not permitted|against (our |the )?policy|i'm afraid)\b/;

/** The write tool that would carry out a goal (null for information and out-of-scope requests). */
export function toolForGoal(goal: ServiceGoal): WriteToolName | null {
  switch (goal.kind) {
    case 'cancel':
    case 'forbidden_cancel':
      return 'cancel_pending_order';
    case 'modify_address':
    case 'forbidden_address':
      return 'modify_pending_order_address';
    case 'modify_items':
      return 'modify_pending_order_items';
    case 'return':
      return 'return_delivered_order_items';
    case 'exchange':
    case 'forbidden_exchange':
      return 'exchange_delivered_order_items';
    default:
      return null;
  }
}

const mentions = (text: string, id: string): boolean => text.includes(id.replace(/^#/, '').toLowerCase());

/** Whether a confirmation request names the goal's action with its key details (order id, ids, zip). */
export function confirmationMatchesGoal(lower: string, goal: ServiceGoal): boolean {
  switch (goal.kind) {
    case 'cancel':
    case 'forbidden_cancel':
      return /\bcancel/.test(lower) && mentions(lower, goal.orderId);
    case 'modify_address':
    case 'forbidden_address':
      return /\baddress\b/.test(lower) && mentions(lower, goal.orderId) && lower.includes(goal.address.zip);
    case 'modify_items':
      return /\b(modify|change|swap|switch|replace|exchange|update)/.test(lower) && mentions(lower, goal.orderId) && goal.items.every((it) => lower.includes(it.newItemId!));
    case 'exchange':
      return /\bexchange/.test(lower) && mentions(lower, goal.orderId) && goal.items.every((it) => lower.includes(it.newItemId!));
    case 'return':
      return /\breturn/.test(lower) && mentions(lower, goal.orderId) && goal.items.every((it) => lower.includes(it.itemId) || lower.includes(it.productName.toLowerCase()));
    case 'forbidden_exchange':
      return /\bexchange/.test(lower) && mentions(lower, goal.orderId);
    case 'out_of_scope':
      return true;
    case 'info':
      return false;
  }
}

/**
 * Removes <think>…</think> blocks: the user sees only what the agent says. An unclosed block hides
 * the rest; a leading "…</think>" (the template opened the block) hides what precedes it.
 * Linear in the text length (indexOf scans, no backtracking regex).
 */
export function visibleText(agentText: string): string {
  const OPEN = '<think>';
  const CLOSE = '</think>';
  let pos = 0;
  const firstClose = agentText.indexOf(CLOSE);
  const firstOpen = agentText.indexOf(OPEN);
  if (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen)) pos = firstClose + CLOSE.length;
  let out = '';
  for (;;) {
    const open = agentText.indexOf(OPEN, pos);
    if (open === -1) {
      out += agentText.slice(pos);
      break;
    }
    out += agentText.slice(pos, open);
    const close = agentText.indexOf(CLOSE, open + OPEN.length);
    if (close === -1) break;
    pos = close + CLOSE.length;
  }
  return out.trim();
}

export class SimulatedUser {
  private readonly voice: say.Voice;
  private readonly forbidden: boolean;
  private unhelpful = 0;
  private declined = 0;
  private refusals = 0;
  private ended = false;
  private identified = false;

  constructor(private readonly task: ServiceTask) {
    this.voice = new say.Voice(new Rng(task.userSeed), task.split ?? 'train');
    this.forbidden = FORBIDDEN_KINDS.has(task.goal.kind);
  }

  /** The opening message: the request, vaguely, without identity. */
  opening(): string {
    return say.openingMessage(this.task.goal, this.voice);
  }

  /**
   * Reply to one text turn of the agent. `goalAchieved` is the environment's judgement that the
   * database and the facts told already satisfy the goal (the user trusts the store's records).
   */
  reply(agentText: string, goalAchieved: boolean): UserTurn {
    if (this.ended) return { text: say.STOP_MARKER, ended: true, endReason: 'stuck', disclosedIdentity: false, understood: false };
    const lower = visibleText(agentText).toLowerCase().replace(/\be-?mail address(es)?\b/g, 'email');
    if (goalAchieved) return this.end(this.voice.pick(say.DONE), 'goal-achieved');
    const asking = IS_REQUEST.test(lower);
    const asksIdentity = asking && ASKS_IDENTITY.test(lower);
    // "I can't find that order, what is its id?" is a question, not a refusal; once the user has
    // identified, naming the email in a refusal ("I cannot change the email") is not a question.
    const refuses = REFUSAL.test(lower) && !(asksIdentity && !this.identified) && !(asking && ASKS_ORDER.test(lower));
    if (this.forbidden && refuses) return this.end(this.voice.pick(say.ACCEPT_REFUSAL), 'refusal-accepted');
    if (!(asksIdentity && !this.identified) && ASKS_CONFIRM.test(lower) && ACTION_WORD.test(lower)) return this.answerConfirmation(lower);
    if (refuses) {
      this.refusals++;
      if (this.refusals >= PATIENCE.refusals) return this.end(this.voice.pick(say.GIVE_UP), 'stuck');
      return this.say(`Are you sure? ${say.preciseGoal(this.task)}`);
    }
    const answers = asking ? this.answerQuestions(lower, asksIdentity) : [];
    if (answers.length > 0) {
      if (asksIdentity) this.identified = true;
      return { text: answers.join(' '), ended: false, disclosedIdentity: asksIdentity, understood: true };
    }
    this.unhelpful++;
    if (this.unhelpful >= PATIENCE.unhelpful) return this.end(this.voice.pick(say.GIVE_UP), 'stuck', false);
    if (lower.length === 0) return this.say('Hello? Are you still there?', false);
    return this.say(this.unhelpful === 1 ? say.vagueRestatement(this.task.goal, this.voice) : say.preciseGoal(this.task), false);
  }

  private answerConfirmation(lower: string): UserTurn {
    const tool = toolForGoal(this.task.goal);
    const aboutTransfer = TRANSFER_WORD.test(lower);
    if (aboutTransfer && this.forbidden) return this.say('Yes, please transfer me.');
    if (!aboutTransfer && confirmationMatchesGoal(lower, this.task.goal)) {
      const goal = this.task.goal;
      const confirmed = tool && 'orderId' in goal ? { tool, orderId: goal.orderId } : undefined;
      return { text: this.voice.pick(say.YES), ended: false, disclosedIdentity: false, confirmed, understood: true };
    }
    this.declined++;
    if (this.declined >= PATIENCE.declined) return this.end(this.voice.pick(say.GIVE_UP), 'stuck');
    const lead = aboutTransfer ? "No, I'd rather you handle it yourself." : "No, that's not what I want.";
    return this.say(`${lead} ${say.preciseGoal(this.task)}`);
  }

  private answerQuestions(lower: string, asksIdentity: boolean): string[] {
    const goal = this.task.goal;
    const answers: string[] = [];
    if (asksIdentity) {
      const emailOnly = ASKS_EMAIL_ONLY.test(lower) && !ASKS_NAME_OR_ZIP.test(lower);
      answers.push(say.identityAnswer(this.task, emailOnly, this.voice));
    }
    if ('orderId' in goal && ASKS_ORDER.test(lower)) answers.push(say.orderIdAnswer(this.task, goal.orderId, this.voice));
    if (ASKS_ITEMS.test(lower)) {
      const items = say.itemsAnswer(goal, this.voice);
      if (items) answers.push(items);
    }
    if ((goal.kind === 'cancel' || goal.kind === 'forbidden_cancel') && ASKS_REASON.test(lower)) answers.push(say.reasonAnswer(goal.reason, this.voice));
    if ((goal.kind === 'modify_items' || goal.kind === 'exchange' || goal.kind === 'return') && ASKS_PAYMENT.test(lower)) answers.push(say.paymentAnswer(this.task, this.voice));
    if ((goal.kind === 'modify_address' || goal.kind === 'forbidden_address') && ASKS_ADDRESS.test(lower)) answers.push(say.addressAnswer(goal.address, this.voice));
    return answers;
  }

  private say(text: string, understood = true): UserTurn {
    return { text, ended: false, disclosedIdentity: false, understood };
  }

  private end(text: string, endReason: UserEndReason, understood = true): UserTurn {
    this.ended = true;
    return { text, ended: true, endReason, disclosedIdentity: false, understood };
  }
}
