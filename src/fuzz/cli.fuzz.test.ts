// Property-based fuzzing of the command-line parsers (synth, learn, debug-state, eval-bfcl): any argv
// gives parsed flags or the command's own clear error, never a crash.
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DebugStateError, parseDebugStateArgs } from '../../scripts/lib/debugStateIO';
import { parseLearnArgs } from '../../scripts/lib/learnArgs';
import { parseSynthArgs, SynthArgsError } from '../data/synthArgs';
import { runEvalBfcl } from '../envs/functionCalling/evalBfclCli';
import { MAX_SYNTH_CONVERSATIONS } from '../util/limits';
import { attempt, fuzzParams, soup } from './arbitraries';

const FIXTURES = join(import.meta.dirname, '../envs/functionCalling/fixtures');

/** Values a person (or a script) might pass: numbers of every size, words, paths, soup. */
const value = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom('0', '-1', '1e9', '1e308', 'Infinity', 'NaN', '2.5', '', ' ', '--', '1000000000', '99999999999999999999', 'all', 'nano', 'coding=1e308,service=1'),
  fc.constantFrom('function-calling', 'service', 'coding', 'tiny', 'small', 'json-string', 'object', 'opengles', 'swiftshader'),
  fc.tuple(fc.constantFrom('function-calling', 'service', 'coding', 'x'), fc.oneof(fc.double().map(String), fc.constantFrom('1', '0', '1e308'))).map(([f, v]) => `${f}=${v}`),
  fc.string({ maxLength: 10 }),
  soup(),
);

/** argv built from `flags` and values, with repeats, `--flag=value` forms and strays. */
const argv = (flags: readonly string[]) =>
  fc.array(fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...flags), value).map(([f, v]) => [f, v]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...flags), value).map(([f, v]) => [`${f}=${v}`]) },
    { weight: 1, arbitrary: fc.constantFrom(...flags).map((f) => [f]) },
    { weight: 1, arbitrary: value.map((v) => [v]) },
  ), { maxLength: 7 }).map((parts) => parts.flat());

describe('fuzz: command-line parsers', () => {
  it('synth: flags within bounds or SynthArgsError', () => {
    const flags = ['--family', '--n', '--seed', '--out', '--mix', '--max-attempts', '--arguments-as', '--help', '-h', '--bogus'];
    fc.assert(fc.property(argv(flags), (a) => {
      const args = attempt(() => parseSynthArgs(a), SynthArgsError);
      if (args === undefined || args.help) return;
      expect(args.n).toBeGreaterThanOrEqual(1);
      expect(args.n).toBeLessThanOrEqual(MAX_SYNTH_CONVERSATIONS);
      expect(args.shares.every((s) => Number.isFinite(s) && s > 0)).toBe(true);
      expect(args.families.length).toBe(args.shares.length);
    }), fuzzParams(11));
  });

  it('learn: flags or an Error that names the flag', () => {
    const flags = ['--family', '--preset', '--steps', '--sft-steps', '--tasks-per-step', '--group', '--lr', '--kl', '--no-component-credit', '--eval-every', '--min-lr-ratio', '--eval-n', '--seed', '--out', '--save', '--load-sft', '--async', '--skip-before', '--help'];
    // Most argvs name the one family with a recipe, so the flag values get checked (not just the missing --family).
    const learnArgv = fc.tuple(fc.boolean(), argv(flags)).map(([family, rest]) => (family ? ['--family', 'function-calling', ...rest] : rest));
    fc.assert(fc.property(learnArgv, (a) => {
      const args = attempt(() => parseLearnArgs(a), Error);
      if (args === undefined) return;
      for (const key of ['steps', 'sftSteps', 'tasksPerStep', 'group', 'evalN', 'evalEvery', 'seed', 'asyncK'] as const) {
        if (args[key] !== undefined) expect(Number.isSafeInteger(args[key]), `${key} = ${args[key]} from ${JSON.stringify(a)}`).toBe(true);
      }
      for (const key of ['lr', 'kl', 'minLrRatio'] as const) if (args[key] !== undefined) expect(Number.isFinite(args[key])).toBe(true);
    }), fuzzParams(12));
  });

  it('debug-state: flags or DebugStateError with exit code 2', () => {
    const flags = ['--model', '--batch', '--out', '--adapter', '--bogus'];
    fc.assert(fc.property(argv(flags), (a) => {
      let exitCode = 0;
      const args = attempt(() => {
        try {
          return parseDebugStateArgs(a);
        } catch (e) {
          if (e instanceof DebugStateError) exitCode = e.exitCode;
          throw e;
        }
      }, DebugStateError);
      if (args === undefined) expect(exitCode).toBe(2);
      else expect(['swiftshader', 'opengles']).toContain(args.adapter);
    }), fuzzParams(13));
  });

  it('eval-bfcl: exit code 0 or 1 with a message, never an exception', () => {
    const files = fc.constantFrom(join(FIXTURES, 'bfcl_questions.jsonl'), join(FIXTURES, 'bfcl_possible_answers.jsonl'), join(FIXTURES, 'predictions_gold.jsonl'), join(FIXTURES, 'predictions_mutated.jsonl'), FIXTURES, '/nonexistent/x.jsonl');
    const evalArgv = fc.array(fc.oneof(
      fc.tuple(fc.constantFrom('--questions', '--answers', '--predictions'), files).map(([f, v]) => [f, v]),
      fc.constantFrom(['--verbose'], ['--help'], ['--bogus'], ['--predictions']),
    ), { maxLength: 6 }).map((p) => p.flat());
    fc.assert(fc.property(evalArgv, (a) => {
      const err: string[] = [];
      const code = runEvalBfcl(a, { out: () => undefined, err: (l) => err.push(l) });
      expect([0, 1]).toContain(code);
      if (code === 1) expect(err.join('\n')).toMatch(/^eval-bfcl: ./);
    }), fuzzParams(14));
  });
});
