import { describe, expect, it } from 'vitest';
import { parseSynthArgs } from './synthArgs';

describe('parseSynthArgs', () => {
  it('parses the documented flags with defaults', () => {
    const a = parseSynthArgs(['--family', 'all', '--n', '5000', '--seed', '1', '--out', 'data.jsonl']);
    expect(a).toEqual({ families: ['function-calling', 'service', 'coding'], shares: [1, 1, 1], all: true, n: 5000, seed: 1, out: 'data.jsonl', maxAttempts: undefined, argumentsAs: 'object', help: false });
    const b = parseSynthArgs(['--family', 'service', '--n', '3', '--out', 'x.jsonl', '--arguments-as', 'json-string', '--max-attempts', '9']);
    expect(b).toMatchObject({ families: ['service'], all: false, seed: 1, maxAttempts: 9, argumentsAs: 'json-string' });
  });

  it('reads --mix shares and drops families with share 0', () => {
    const a = parseSynthArgs(['--n', '10', '--out', 'o', '--mix', 'function-calling=2, service=1,coding=0']);
    expect(a.families).toEqual(['function-calling', 'service']);
    expect(a.shares).toEqual([2, 1]);
  });

  it.each([
    [['--n', '10'], /--out is required/],
    [['--out', 'o'], /--n is required/],
    [['--n', '0', '--out', 'o'], /--n takes an integer ≥ 1, got '0'/],
    [['--n', '2.5', '--out', 'o'], /--n takes an integer/],
    [['--n', '10', '--out', 'o', '--seed', 'abc'], /--seed takes an integer ≥ 0, got 'abc'/],
    [['--n', '10', '--out', 'o', '--family', 'chess'], /--family "chess" is unknown; use all, function-calling, service, coding/],
    [['--n', '10', '--out', 'o', '--mix', 'service'], /--mix entry "service" is not family=share/],
    [['--n', '10', '--out', 'o', '--mix', 'service=0'], /gives no family a positive share/],
    [['--n', '10', '--out', 'o', '--family', 'service', '--mix', 'service=1'], /--mix only applies to --family all/],
    [['--n', '10', '--out', 'o', '--arguments-as', 'yaml'], /--arguments-as takes one of object, json-string, got 'yaml'/],
    [['--n', '10', '--out', 'o', '--bogus'], /Unknown option '--bogus'/],
    [['--n', '10', '--out', 'o', 'stray'], /positional/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseSynthArgs(argv)).toThrow(message);
  });

  it('--help needs no other flag', () => {
    expect(parseSynthArgs(['--help']).help).toBe(true);
  });
});
