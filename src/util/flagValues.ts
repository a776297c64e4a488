// Checked values of command-line flags, shared by every CLI's parser (scripts/lib/*Args.ts,
// src/data/*Args.ts): one syntax for integers and numbers, one wording for a refusal —
// "--flag takes <what it takes>, got '<what was given>'" — so the same mistake reads the same in
// every command. A parser with its own error class (SynthArgsError, …) binds the checkers to it.

/** The largest count a run-size flag takes (steps, examples, tasks): a run of more is a typo, not a plan. */
export const MAX_COUNT = 10_000_000;

/** An error class a parser throws for flag mistakes (its CLI prints the message and the usage). */
export type FlagErrorClass = new (message: string) => Error;

export interface IntegerRange {
  /** Smallest value taken (default: any safe integer). */
  min?: number;
  /** Largest value taken (default: the largest safe integer; a given max is named in the refusal). */
  max?: number;
}

export interface NumberRange {
  /** Smallest value taken (inclusive). */
  min?: number;
  /** Largest value taken (inclusive). */
  max?: number;
  /** Take only values > 0 (then `min` is not used). */
  positive?: boolean;
}

export interface FlagCheckers {
  /** A whole number in decimal digits (optional sign, surrounding spaces), a safe integer within the range. */
  integer(flag: string, text: string, range?: IntegerRange): number;
  /** A finite decimal number (not empty) within the range. */
  number(flag: string, text: string, range?: NumberRange): number;
  /** One of the allowed words, exactly. */
  oneOf<T extends string>(flag: string, text: string, allowed: readonly T[]): T;
}

// digits only: Number() alone would also take '', '0x10', '1e3' and '1.0' as integers
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

function integerWanted({ min, max }: IntegerRange): string {
  if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
  if (min !== undefined) return `an integer ≥ ${min}`;
  if (max !== undefined) return `an integer ≤ ${max}`;
  return 'an integer';
}

function numberWanted({ min, max, positive }: NumberRange): string {
  const lower = positive ? 'a positive number' : min !== undefined ? `a number ≥ ${min}` : 'a number';
  return max === undefined ? lower : `${lower} up to ${max}`;
}

/** The checkers, throwing `Err` (default Error) with a message that names the flag, what it takes and what it got. */
export function flagCheckers(Err: FlagErrorClass = Error): FlagCheckers {
  const refuse = (flag: string, wanted: string, text: string) => new Err(`--${flag} takes ${wanted}, got '${text}'`);
  return {
    integer(flag, text, range = {}) {
      const n = Number(text);
      const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = range;
      if (!INTEGER_TEXT.test(text) || !Number.isSafeInteger(n) || n < min || n > max) throw refuse(flag, integerWanted(range), text);
      return n + 0; // '-0' → 0
    },
    number(flag, text, range = {}) {
      const x = Number(text);
      const { min = -Infinity, max = Infinity, positive = false } = range;
      if (text.trim() === '' || !Number.isFinite(x) || (positive ? x <= 0 : x < min) || x > max) throw refuse(flag, numberWanted(range), text);
      return x;
    },
    oneOf(flag, text, allowed) {
      if (!(allowed as readonly string[]).includes(text)) throw refuse(flag, `one of ${allowed.join(', ')}`, text);
      return text as (typeof allowed)[number];
    },
  };
}

/** Runs a check; a refusal gets the command's usage appended (a plain Error). */
export function withUsage<T>(usage: string, check: () => T): T {
  try {
    return check();
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${usage}`);
  }
}

/** The checkers throwing plain Errors. */
export const { integer: integerFlag, number: numberFlag, oneOf: oneOfFlag } = flagCheckers();
