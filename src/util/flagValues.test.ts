import { describe, expect, it } from 'vitest';
import { flagCheckers, integerFlag, numberFlag, oneOfFlag, withUsage } from './flagValues';

describe('flag values', () => {
  it('integers: decimal digits within the range, the refusal names flag, range and value', () => {
    expect(integerFlag('n', '12')).toBe(12);
    expect(integerFlag('n', ' +7 ', { min: 1 })).toBe(7);
    expect(Object.is(integerFlag('seed', '-0', { min: 0 }), 0)).toBe(true);
    expect(integerFlag('seed', '-3')).toBe(-3);
    // Number() would take all of these as integers
    for (const text of ['', ' ', '1e3', '0x10', '1.0', '2.5', 'x', '9007199254740993']) expect(() => integerFlag('n', text), text).toThrow(`--n takes an integer, got '${text}'`);
    expect(() => integerFlag('steps', '0', { min: 1 })).toThrow("--steps takes an integer ≥ 1, got '0'");
    expect(() => integerFlag('tasks', '17', { min: 1, max: 16 })).toThrow("--tasks takes an integer from 1 to 16, got '17'");
    expect(() => integerFlag('k', '9', { max: 8 })).toThrow("--k takes an integer ≤ 8, got '9'");
  });

  it('numbers: finite, within the range; positive excludes 0', () => {
    expect(numberFlag('lr', '1e-3', { positive: true })).toBe(1e-3);
    expect(numberFlag('kl', '0', { min: 0, max: 100 })).toBe(0);
    expect(numberFlag('lambda', '-0.5')).toBe(-0.5);
    expect(() => numberFlag('lr', '0', { positive: true })).toThrow("--lr takes a positive number, got '0'");
    expect(() => numberFlag('lr', '101', { positive: true, max: 100 })).toThrow("--lr takes a positive number up to 100, got '101'");
    expect(() => numberFlag('kl', '-0.1', { min: 0, max: 100 })).toThrow("--kl takes a number ≥ 0 up to 100, got '-0.1'");
    for (const text of ['', 'Infinity', 'NaN', 'abc']) expect(() => numberFlag('t', text), text).toThrow(`--t takes a number, got '${text}'`);
  });

  it('words: one of the allowed, exactly', () => {
    expect(oneOfFlag('split', 'test', ['train', 'test'] as const)).toBe('test');
    expect(() => oneOfFlag('split', 'Test', ['train', 'test'])).toThrow("--split takes one of train, test, got 'Test'");
  });

  it('a parser\'s own error class', () => {
    class ArgsError extends Error {}
    const check = flagCheckers(ArgsError);
    expect(() => check.integer('n', 'x')).toThrow(ArgsError);
    expect(() => check.number('n', 'x')).toThrow(ArgsError);
    expect(() => check.oneOf('n', 'x', ['y'])).toThrow(ArgsError);
  });

  it('withUsage appends the usage to a refusal', () => {
    expect(withUsage('usage: x', () => integerFlag('n', '3'))).toBe(3);
    expect(() => withUsage('usage: x', () => integerFlag('n', 'y'))).toThrow("--n takes an integer, got 'y'\nusage: x");
  });
});
