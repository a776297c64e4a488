import { describe, expect, it } from 'vitest';
import { generateServiceTask } from './tasks';
import type { ServiceTask } from './types';
import { SimulatedUser, visibleText } from './userSim';
import { describeOptions, STOP_MARKER } from './userText';

function findTask(pred: (t: ServiceTask) => boolean): ServiceTask {
  for (let i = 0; i < 700; i++) {
    const t = generateServiceTask(5, i, 'train');
    if (pred(t)) return t;
  }
  throw new Error('no generated task fits the test; widen the search');
}

const orderIdOf = (t: ServiceTask): string => ('orderId' in t.goal ? t.goal.orderId : '');

describe('SimulatedUser opening', () => {
  it('states the request without any identity or order id, and varies its wording', () => {
    const openings = new Set<string>();
    for (let i = 0; i < 70; i++) {
      const t = generateServiceTask(9, i, 'train');
      const text = new SimulatedUser(t).opening();
      openings.add(text);
      for (const secret of [t.user.email, t.user.zip, t.user.userId, `${t.user.firstName} ${t.user.lastName}`, orderIdOf(t).slice(1)]) {
        if (secret) expect(text).not.toContain(secret);
      }
    }
    expect(openings.size).toBeGreaterThan(10);
  });
});

describe('SimulatedUser answers', () => {
  it('gives its email when asked to identify', () => {
    const t = findTask((x) => x.user.authVia === 'email');
    const r = new SimulatedUser(t).reply('Could you please tell me the email address on your account?', false);
    expect(r.text).toContain(t.user.email);
    expect(r.disclosedIdentity).toBe(true);
  });

  it('gives name and zip instead of an email it does not remember', () => {
    const t = findTask((x) => x.user.authVia === 'name_zip');
    const asked = new SimulatedUser(t).reply('What is your email?', false);
    expect(asked.text).toMatch(/don't remember/);
    expect(asked.text).toContain(`${t.user.firstName} ${t.user.lastName}`);
    expect(asked.text).toContain(t.user.zip);
    const plain = new SimulatedUser(t).reply('Please tell me your first name, last name and zip code.', false);
    expect(plain.text).not.toMatch(/don't remember/);
    expect(plain.text).toContain(t.user.zip);
  });

  it('gives the order id it knows, or describes the order by a product when it does not', () => {
    const knows = findTask((x) => x.category === 'cancel' && x.user.knowsOrderId);
    expect(new SimulatedUser(knows).reply('Which order is it?', false).text).toContain(orderIdOf(knows));
    const forgot = findTask((x) => x.category === 'cancel' && !x.user.knowsOrderId);
    const r = new SimulatedUser(forgot).reply('What is the order id?', false).text;
    expect(r).toContain(forgot.user.orderHint);
    expect(r).not.toContain(orderIdOf(forgot));
  });

  it('answers several questions in one reply (identity, order, reason)', () => {
    const t = findTask((x) => x.goal.kind === 'cancel' && x.user.knowsOrderId && x.user.authVia === 'email');
    const r = new SimulatedUser(t).reply('Please share your email, the order id, and the reason for cancelling.', false);
    expect(r.text).toContain(t.user.email);
    expect(r.text).toContain(orderIdOf(t));
    expect(r.text).toMatch(/need it|mistake/);
  });

  it('describes the items, the wanted variant and the payment method for an exchange', () => {
    const t = findTask((x) => x.goal.kind === 'exchange');
    if (t.goal.kind !== 'exchange') throw new Error('unreachable');
    const r = new SimulatedUser(t).reply('Which items would you like to exchange, and which payment method should I use?', false).text;
    expect(r).toContain(t.goal.items[0].productName);
    expect(r).toContain(describeOptions(t.goal.items[0].newOptions!));
    expect(r).toContain(t.user.paymentDescription);
  });

  it('does not answer statements, and ignores <think> blocks', () => {
    const t = findTask((x) => x.user.authVia === 'email');
    const user = new SimulatedUser(t);
    expect(user.reply('We keep your email on file.', false).text).not.toContain(t.user.email);
    expect(user.reply('<think>I should ask: what is your email?</think>Okay.', false).text).not.toContain(t.user.email);
  });
});

describe('SimulatedUser confirmations', () => {
  const cancel = () => findTask((x) => x.goal.kind === 'cancel');

  it('says yes only to the action it wants, on its order', () => {
    const t = cancel();
    const id = orderIdOf(t);
    const yes = new SimulatedUser(t).reply(`I will cancel order ${id}. Do you confirm (yes/no)?`, false);
    expect(yes.text).toMatch(/^Yes/);
    expect(yes.confirmed).toEqual({ tool: 'cancel_pending_order', orderId: id });
    const wrongOrder = new SimulatedUser(t).reply('I will cancel order #W0000001. Do you confirm (yes/no)?', false);
    expect(wrongOrder.text).toMatch(/^No/);
    expect(wrongOrder.confirmed).toBeUndefined();
    const wrongAction = new SimulatedUser(t).reply(`I will return all items of order ${id}. Shall I proceed?`, false);
    expect(wrongAction.text).toMatch(/^No/);
  });

  it('requires the new item ids in an exchange confirmation', () => {
    const t = findTask((x) => x.goal.kind === 'exchange');
    if (t.goal.kind !== 'exchange') throw new Error('unreachable');
    const id = t.goal.orderId;
    expect(new SimulatedUser(t).reply(`I will exchange items in order ${id}. Do you confirm?`, false).text).toMatch(/^No/);
    const ids = t.goal.items.map((it) => it.newItemId).join(', ');
    expect(new SimulatedUser(t).reply(`I will exchange items in order ${id} for ${ids}. Do you confirm?`, false).text).toMatch(/^Yes/);
  });

  it('gives up after declining two wrong confirmations', () => {
    const user = new SimulatedUser(cancel());
    expect(user.reply('I will cancel order #W0000001. Do you confirm?', false).ended).toBe(false);
    const r = user.reply('I will cancel order #W0000002. Do you confirm?', false);
    expect(r).toMatchObject({ ended: true, endReason: 'stuck' });
    expect(r.text).toContain(STOP_MARKER);
  });
});

describe('SimulatedUser endings', () => {
  it('ends with ###STOP### once the goal is achieved', () => {
    const r = new SimulatedUser(findTask((x) => x.category === 'return')).reply('Your return has been requested.', true);
    expect(r).toMatchObject({ ended: true, endReason: 'goal-achieved' });
    expect(r.text).toContain(STOP_MARKER);
  });

  it('accepts a refusal of a forbidden request, but insists (then gives up) on an allowed one', () => {
    const forbidden = findTask((x) => x.category === 'transfer');
    expect(new SimulatedUser(forbidden).reply("I'm sorry, but I cannot do that under our policy.", false)).toMatchObject({ ended: true, endReason: 'refusal-accepted' });
    const allowed = new SimulatedUser(findTask((x) => x.category === 'cancel'));
    const first = allowed.reply("I'm sorry, but I cannot do that.", false);
    expect(first.ended).toBe(false);
    expect(first.text).toMatch(/^Are you sure\?/);
    expect(allowed.reply('Unfortunately that is not possible.', false)).toMatchObject({ ended: true, endReason: 'stuck' });
  });

  it('gives up after three turns it cannot answer', () => {
    const user = new SimulatedUser(findTask((x) => x.category === 'info'));
    expect(user.reply('The weather is nice.', false).ended).toBe(false);
    expect(user.reply('', false).text).toMatch(/still there/);
    expect(user.reply('Lorem ipsum.', false)).toMatchObject({ ended: true, endReason: 'stuck' });
  });

  it('is deterministic for a task: the same conversation gives the same replies', () => {
    const t = findTask((x) => x.category === 'modify_items');
    const script = ['Hello!', 'What is your email? Which order?', 'Which items, and which payment method?', 'I will modify it. Do you confirm?'];
    const run = () => {
      const u = new SimulatedUser(t);
      return [u.opening(), ...script.map((s) => u.reply(s, false).text)];
    };
    expect(run()).toEqual(run());
  });
});

describe('visibleText', () => {
  it('hides thinking: closed blocks, a leading close tag, an unclosed block', () => {
    expect(visibleText('<think>plan</think> Hello <think>more</think>there')).toBe('Hello there');
    expect(visibleText('reasoning here</think>\n\nHello')).toBe('Hello');
    expect(visibleText('Hello <think>never closed')).toBe('Hello');
  });

  it('is linear: 1 MB of open tags takes milliseconds, not minutes', () => {
    const start = performance.now();
    expect(visibleText('x<think>'.repeat(125_000))).toBe('x');
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
