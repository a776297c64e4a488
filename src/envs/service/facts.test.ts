import { describe, expect, it } from 'vitest';
import { FactLedger, MAX_DISTRACTORS_NAMED, normalizeForFacts } from './facts';

const WRONG = ['pending', 'delivered', 'cancelled', 'return requested', 'exchange requested'];

describe('FactLedger (facts and wrong alternatives over the whole conversation)', () => {
  it('counts a fact stated after the lookup, normalised ("$", thousands commas, case)', () => {
    const total = new FactLedger(['1234.50'], []);
    total.hear('The total is $1,234.50.', true);
    expect(total.told()).toEqual([true]);
    const status = new FactLedger(['processed'], WRONG);
    status.hear('Your order is PROCESSED.', true);
    expect(status.told()).toEqual([true]);
  });

  it('does not count a fact stated before the agent looked it up (a guess), even if later messages are clean', () => {
    const l = new FactLedger(['processed'], WRONG);
    l.hear('Your order is processed.', false);
    l.hear('Anything else?', true);
    expect(l.told()).toEqual([false]);
  });

  it(`judges wrong alternatives over every message: more than ${MAX_DISTRACTORS_NAMED} voids all facts, however they are spread`, () => {
    const spread = new FactLedger(['processed'], WRONG);
    spread.hear('Is it pending or processed?', true);
    expect(spread.told()).toEqual([true]); // one wrong alternative so far is tolerated
    spread.hear('Or maybe delivered or cancelled.', true);
    expect(spread.told()).toEqual([false]);
    expect(spread.wrongAlternativesNamed()).toBe(3);
    const repeated = new FactLedger(['processed'], WRONG);
    for (let i = 0; i < 5; i++) repeated.hear('It is processed, not pending.', true);
    expect(repeated.told()).toEqual([true]); // the same wrong alternative named again is still one
  });

  it('normalises like the facts are written', () => {
    expect(normalizeForFacts('$1,234.50  Total')).toBe('1234.50 total');
  });
});
