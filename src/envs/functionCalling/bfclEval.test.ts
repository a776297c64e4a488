import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { evaluateBfcl, formatReport, parsePredictions, type Prediction } from './bfclEval';
import { bfclTasks, parseBfclAnswers, parseBfclQuestions } from './bfclLoader';
import { runEvalBfcl } from './evalBfclCli';
import type { FunctionCallingTask } from './types';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const ROOT = join(import.meta.dirname, '..', '..', '..');
const read = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const tasks = bfclTasks(parseBfclQuestions(read('bfcl_questions.jsonl'), 'q'), parseBfclAnswers(read('bfcl_possible_answers.jsonl'), 'a'));
const gold = parsePredictions(read('predictions_gold.jsonl'), 'gold');

function accuracy(predictions: Prediction[], subset: FunctionCallingTask[] = tasks) {
  const ids = new Set(subset.map((t) => t.id));
  return evaluateBfcl(subset, predictions.filter((p) => ids.has(p.id))).overall;
}

type Mutation = (p: Prediction, task: FunctionCallingTask) => Prediction | null;

function firstParam(p: Prediction): string | undefined {
  return Object.keys(p.calls[0]?.arguments ?? {})[0];
}

/** Each mutation breaks exactly one BFCL rule on the first call; null when it does not apply. */
const MUTATIONS: Record<string, Mutation> = {
  'wrong value': (p) => {
    const key = firstParam(p);
    if (key === undefined) return null;
    const v = p.calls[0].arguments[key];
    const wrong = typeof v === 'number' ? v + 101 : typeof v === 'string' ? `${v} nowhere` : typeof v === 'boolean' ? !v : Array.isArray(v) ? [...v, v[0]] : { ...(v as object), zz: 1 };
    return { ...p, calls: [{ ...p.calls[0], arguments: { ...p.calls[0].arguments, [key]: wrong } }, ...p.calls.slice(1)] };
  },
  'missing required': (p, task) => {
    const required = task.tools.find((t) => t.function.name === p.calls[0]?.name)?.function.parameters.required ?? [];
    if (required.length === 0) return null;
    const args = { ...p.calls[0].arguments };
    delete args[required[0]];
    return { ...p, calls: [{ ...p.calls[0], arguments: args }, ...p.calls.slice(1)] };
  },
  'extra parameter': (p) =>
    p.calls.length === 0 ? null : { ...p, calls: [{ ...p.calls[0], arguments: { ...p.calls[0].arguments, not_a_parameter: 1 } }, ...p.calls.slice(1)] },
  'wrong function': (p) => (p.calls.length === 0 ? null : { ...p, calls: [{ ...p.calls[0], name: `${p.calls[0].name}_v2` }, ...p.calls.slice(1)] }),
  'call on irrelevance': (p, task) => (task.check !== 'irrelevance' ? null : { ...p, calls: [{ name: task.tools[0].function.name, arguments: {} }] }),
};

describe('eval-bfcl scoring on hand-written fixtures', () => {
  it('gold predictions score 100% in every category', () => {
    const report = evaluateBfcl(tasks, gold);
    expect(report.overall).toEqual({ correct: 16, total: 16 });
    for (const [, tally] of report.perCategory) expect(tally.correct).toBe(tally.total);
    expect(formatReport(report).at(-1)).toBe('accuracy: 16/16');
  });

  it('hand-mutated predictions score 0%', () => {
    const report = evaluateBfcl(tasks, parsePredictions(read('predictions_mutated.jsonl'), 'mutated'));
    expect(report.overall).toEqual({ correct: 0, total: 16 });
  });

  for (const [name, mutate] of Object.entries(MUTATIONS)) {
    it(`mutation "${name}" scores 0% on every item it applies to`, () => {
      const mutated: Prediction[] = [];
      const affected: FunctionCallingTask[] = [];
      for (const task of tasks) {
        const p = gold.find((g) => g.id === task.id);
        const m = p && mutate(p, task);
        if (m) {
          mutated.push(m);
          affected.push(task);
        }
      }
      expect(affected.length).toBeGreaterThanOrEqual(3);
      expect(accuracy(mutated, affected)).toEqual({ correct: 0, total: affected.length });
    });
  }

  it('a missing prediction counts as wrong, an unknown id is an error', () => {
    const report = evaluateBfcl(tasks, gold.slice(1));
    expect(report.overall.correct).toBe(15);
    expect(report.missing).toEqual([gold[0].id]);
    expect(() => evaluateBfcl(tasks, [...gold, { id: 'simple_999', calls: [] }], 'p.jsonl')).toThrow(/p\.jsonl has 1 id\(s\) not in the question files \("simple_999"\)/);
  });

  it('predictions file errors name the line', () => {
    expect(() => parsePredictions('{"id": "a_1", "calls": []}\n{"id": "a_2", "calls": {}}', 'p.jsonl')).toThrow(/p\.jsonl:2: "calls" must be a list/);
    expect(() => parsePredictions('{"id": "a_1", "calls": [{"arguments": {}}]}', 'p.jsonl')).toThrow(/p\.jsonl:1 calls\[0\]: must be/);
    expect(parsePredictions('{"id": "a_1", "calls": [{"name": "f", "arguments": "{\\"x\\": 1}"}]}', 'p')[0].calls[0].arguments).toEqual({ x: 1 });
  });
});

const run = promisify(execFile);
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const SCRIPT = join(ROOT, 'scripts', 'eval-bfcl.ts');
const Q = join(FIXTURES, 'bfcl_questions.jsonl');
const A = join(FIXTURES, 'bfcl_possible_answers.jsonl');

function cli(args: string[]): { code: number; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const code = runEvalBfcl(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('eval-bfcl command', () => {
  it('runs as a child process: prints `accuracy: X/Y` last, exits 1 with file:line on bad JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eval-bfcl-'));
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"id": "simple_0", "calls": []}\n{"id": "simple_1", "calls": [}\n');
    const [goldRun, failure] = await Promise.all([
      run(TSX, [SCRIPT, '--questions', Q, '--answers', A, '--predictions', join(FIXTURES, 'predictions_gold.jsonl')], { cwd: ROOT }),
      run(TSX, [SCRIPT, '--questions', Q, '--answers', A, '--predictions', bad], { cwd: ROOT }).then(
        () => null,
        (e: { code?: number; stderr?: string }) => e,
      ),
    ]);
    const lines = goldRun.stdout.trim().split('\n');
    expect(lines).toContain('simple: 6/6 (100.0%)');
    expect(lines).toContain('live_irrelevance: 1/1 (100.0%)');
    expect(lines.at(-1)).toBe('accuracy: 16/16');
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/bad\.jsonl:2: not valid JSON/);
  });

  it('reports per category, --verbose explains failures, repeated --questions files combine', () => {
    const r = cli(['--questions', Q, '--answers', A, '--predictions', join(FIXTURES, 'predictions_mutated.jsonl'), '--verbose']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('wrong simple_2: expected call 1 (physics.calculate_force): Missing required parameter: \'mass\'.');
    expect(r.out.at(-1)).toBe('accuracy: 0/16');
    const dir = mkdtempSync(join(tmpdir(), 'eval-bfcl-'));
    const lines = readFileSync(Q, 'utf8').trim().split('\n');
    writeFileSync(join(dir, 'q1.jsonl'), lines.slice(0, 8).join('\n'));
    writeFileSync(join(dir, 'q2.jsonl'), lines.slice(8).join('\n'));
    const split = cli(['--questions', join(dir, 'q1.jsonl'), '--questions=' + join(dir, 'q2.jsonl'), '--answers', A, '--predictions', join(FIXTURES, 'predictions_gold.jsonl')]);
    expect(split.out.at(-1)).toBe('accuracy: 16/16');
  });

  it('fails with clear messages on missing files, bad JSON, unknown ids and bad flags', () => {
    const dir = mkdtempSync(join(tmpdir(), 'eval-bfcl-'));
    const missing = cli(['--questions', join(dir, 'nope.jsonl'), '--answers', A, '--predictions', join(FIXTURES, 'predictions_gold.jsonl')]);
    expect(missing.code).toBe(1);
    expect(missing.err[0]).toMatch(/questions file not found: .*nope\.jsonl/);
    const badQuestions = join(dir, 'q.jsonl');
    writeFileSync(badQuestions, '{"id": "simple_0", "question": "x", "function": []}\n{"id": "simple_1", oops}\n');
    expect(cli(['--questions', badQuestions, '--predictions', join(FIXTURES, 'predictions_gold.jsonl')]).err[0]).toMatch(/q\.jsonl:2: not valid JSON/);
    const stray = join(dir, 'stray.jsonl');
    writeFileSync(stray, '{"id": "simple_12345", "calls": []}\n');
    const unknown = cli(['--questions', Q, '--answers', A, '--predictions', stray]);
    expect(unknown.code).toBe(1);
    expect(unknown.err[0]).toMatch(/not in the question files \("simple_12345"\)/);
    expect(cli(['--questions', Q, '--predictions', stray]).err[0]).toMatch(/no possible answer for id "simple_0" in any answers file/);
    expect(cli(['--questions', Q]).err[0]).toMatch(/missing --predictions/);
    expect(cli(['--bogus']).err[0]).toMatch(/unknown argument "--bogus"/);
    expect(cli(['--questions']).err[0]).toMatch(/--questions needs a file path/);
    const partial = join(dir, 'partial.jsonl');
    writeFileSync(partial, readFileSync(join(FIXTURES, 'predictions_gold.jsonl'), 'utf8').split('\n').slice(1).join('\n'));
    const warned = cli(['--questions', Q, '--answers', A, '--predictions', partial]);
    expect(warned.err[0]).toMatch(/warning: 1 item\(s\) have no prediction/);
    expect(warned.out.at(-1)).toBe('accuracy: 15/16');
  });
});
