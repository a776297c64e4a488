// `npm run tasks`: flag checks, the records (the agent's opening exactly, the expected answer), and the script as a user runs it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { TASK_SETS, taskSet } from '../envs/taskSets';
import { exportTasks, tasksJsonl } from './taskExport';
import { parseTasksArgs } from './tasksArgs';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'tasks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run tasks', () => {
  it('parses the flags and says what to type instead on mistakes', () => {
    const a = parseTasksArgs(['--family', 'function-calling', '--level', 'route8', '--split', 'validation', '--n', '5', '--seed', '3', '--out', 'x.jsonl']);
    expect([a.set.level, a.split, a.n, a.seed, a.out]).toEqual(['route8', 'validation', 5, 3, 'x.jsonl']);
    expect(parseTasksArgs(['--family', 'coding', '--split', 'test', '--n', '1', '--out', 'x']).seed).toBe(1);
    const bad: [string[], RegExp][] = [
      [['--split', 'test', '--n', '1', '--out', 'x'], /--family is required/],
      [['--family', 'chess', '--split', 'test', '--n', '1', '--out', 'x'], /unknown family "chess"; use one of function-calling, service, coding/],
      [['--family', 'service', '--level', 'route8', '--split', 'test', '--n', '1', '--out', 'x'], /family service has no level "route8"; use one of retail/],
      [['--family', 'coding', '--split', 'heldout', '--n', '1', '--out', 'x'], /--split "heldout" is unknown.*validation.*test/],
      [['--family', 'coding', '--n', '1', '--out', 'x'], /--split is required/],
      [['--family', 'function-calling', '--level', 'bfcl-unseen-tools', '--split', 'train', '--n', '1', '--out', 'x'], /has no train split; use validation or test/],
      [['--family', 'coding', '--split', 'test', '--n', '0', '--out', 'x'], /--n takes an integer from 1 to 100000, got '0'/],
      [['--family', 'coding', '--split', 'test', '--n', '2.5', '--out', 'x'], /--n takes an integer/],
      [['--family', 'coding', '--split', 'test', '--out', 'x'], /--n is required/],
      [['--family', 'coding', '--split', 'test', '--n', '1'], /--out is required/],
      [['--family', 'coding', '--split', 'test', '--n', '1', '--out', 'x', '--seed=-1'], /--seed takes an integer from 0/],
      [['--family', 'coding', '--bogus', '1'], /Unknown option '--bogus'/],
    ];
    for (const [argv, message] of bad) expect(() => parseTasksArgs(argv), argv.join(' ')).toThrow(message);
  });

  it('writes each task as the agent sees it (the environment\'s opening) with the expected answer, for every task set', () => {
    for (const set of TASK_SETS) {
      const split = set.splits.at(-1)!;
      const records = exportTasks(set, split, 3, 7);
      const lines = tasksJsonl(records).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toHaveLength(3);
      lines.forEach((line, i) => {
        const task = set.envFamily.generateTask(7, i, split);
        const opening = set.envFamily.createEnv().reset(task);
        expect(line).toMatchObject({ id: task.id, family: set.family, level: set.level, split, seed: 7, index: i, category: task.category });
        expect(line.messages).toEqual(opening.messages.map((m) => ({ role: m.role, content: m.content })));
        expect(line.tools).toEqual(opening.tools);
        expect(Object.keys(line.expected as object).length).toBeGreaterThan(0);
      });
    }
    const [fc] = exportTasks(taskSet('function-calling', 'route4'), 'test', 1, 1);
    expect(fc.expected).toMatchObject({ check: 'simple', calls: [{ name: expect.any(String), arguments: expect.any(Object) }] });
    expect(() => exportTasks(taskSet('function-calling', 'bfcl-unseen-tools'), 'train', 1, 1)).toThrow(/has no train split/);
  });

  it('runs as a script: writes the file and reports; exits 2 with the usage on a bad flag', async () => {
    const out = join(dir, 'tasks.jsonl');
    const { stdout } = await run(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/tasks.ts', '--family', 'service', '--split', 'test', '--n', '4', '--seed', '2', '--out', out], { cwd: ROOT, timeout: 60_000 });
    expect(stdout).toMatch(/wrote 4 service\/retail test tasks \(seed 2\)/);
    expect(readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => (JSON.parse(l) as { split: string }).split)).toEqual(['test', 'test', 'test', 'test']);
    const bad = await run(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/tasks.ts', '--family', 'service', '--split', 'heldout', '--n', '4', '--out', out], { cwd: ROOT, timeout: 60_000 }).catch((e: { code: number; stderr: string }) => e);
    expect('code' in bad && bad.code).toBe(2);
    expect('stderr' in bad && bad.stderr).toMatch(/tasks: --split "heldout" is unknown[\s\S]*usage: npm run tasks/);
  });
});
