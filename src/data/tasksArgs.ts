// Flags of `npm run tasks`, parsed and checked with messages that say what to type instead.
import { parseArgs } from 'node:util';
import { isSplit, SPLITS, type Split } from '../envs/splits';
import { TASK_FAMILY_NAMES, TASK_SETS, taskSet, type TaskSet } from '../envs/taskSets';
import { flagCheckers } from '../util/flagValues';

export const TASKS_USAGE = [
  'usage: npm run tasks -- --family F [--level L] --split train|validation|test --n N [--seed S] --out FILE.jsonl',
  '  --family   function-calling, service or coding; required',
  '  --level    the task set of the family (default: its first):',
  ...TASK_SETS.map((s) => `               ${s.family} ${s.level}: ${s.description}${s.splits.length < SPLITS.length ? ` (splits: ${s.splits.join(', ')})` : ''}`),
  '  --split    train, validation or test; required',
  '  --n        tasks to write (indices 0 … n−1); required',
  '  --seed     run seed (integer ≥ 0); default 1',
  '  --out      output JSONL path (one task per line: messages, tools, expected answer); required',
].join('\n');

export interface TasksArgs {
  set: TaskSet;
  split: Split;
  n: number;
  seed: number;
  out: string;
  help: boolean;
}

/** A flag mistake; the CLI prints the message and the usage and exits with status 2. */
export class TasksArgsError extends Error {
  override name = 'TasksArgsError';
}

/** The largest --n accepted (a task line is up to a few KB; service and coding lines are the longest). */
export const MAX_TASKS = 100_000;

const check = flagCheckers(TasksArgsError);
const integer = (flag: string, text: string | undefined, min: number, max: number) => (text === undefined ? undefined : check.integer(flag, text, { min, max }));

/** Parses and checks argv (without node and the script path). Throws TasksArgsError on mistakes. */
export function parseTasksArgs(argv: readonly string[]): TasksArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        family: { type: 'string' },
        level: { type: 'string' },
        split: { type: 'string' },
        n: { type: 'string' },
        seed: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new TasksArgsError(e instanceof Error ? e.message : String(e));
  }
  const help = values.help === true;
  const str = (k: string) => values[k] as string | undefined;
  if (help) return { set: TASK_SETS[0], split: 'test', n: 0, seed: 1, out: '', help };
  const family = str('family');
  if (family === undefined) throw new TasksArgsError(`--family is required: one of ${TASK_FAMILY_NAMES.join(', ')}`);
  let set: TaskSet;
  try {
    set = taskSet(family, str('level'));
  } catch (e) {
    throw new TasksArgsError(e instanceof Error ? e.message : String(e));
  }
  const split = str('split');
  if (split === undefined) throw new TasksArgsError('--split is required: train, validation or test');
  if (!isSplit(split)) {
    const hint = split === 'heldout' ? " ('heldout' is now validation — for choosing settings — or test — for the reported figure)" : '';
    throw new TasksArgsError(`--split "${split}" is unknown; use train, validation or test${hint}`);
  }
  if (!set.splits.includes(split)) throw new TasksArgsError(`${set.family} level ${set.level} has no ${split} split; use ${set.splits.join(' or ')}`);
  const n = integer('n', str('n'), 1, MAX_TASKS);
  if (n === undefined) throw new TasksArgsError('--n is required: how many tasks to write (e.g. --n 200)');
  const out = str('out');
  if (out === undefined || out.trim() === '') throw new TasksArgsError('--out is required: the JSONL file to write (e.g. --out tasks.jsonl)');
  return { set, split, n, seed: integer('seed', str('seed'), 0, 0xffffffff) ?? 1, out, help };
}
