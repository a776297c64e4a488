// Deep and degenerate input through the function-calling path: the environment's step (never
// throws), the tool-call renderer, and the eval-bfcl command (clear errors, no stack traces).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatToolCalls, parseToolCalls, pythonStyleJson } from '../../tokenizer/toolCalls';
import { MAX_JSON_DEPTH } from '../../util/limits';
import { FunctionCallingEnv } from './environment';
import { runEvalBfcl } from './evalBfclCli';
import { functionCallingFamily } from './family';

const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const nested = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
};

describe('function-calling env.step on deep arguments', () => {
  it('answers a 5 000-deep argument array on every task kind with an error observation, never a rejection', async () => {
    for (let i = 0; i < 24; i++) {
      const task = functionCallingFamily.generateTask(4, i, i % 3 === 0 ? 'test' : 'train');
      const env = new FunctionCallingEnv();
      env.reset(task);
      const name = task.tools[0].function.name;
      const param = Object.keys(task.tools[0].function.parameters.properties ?? {})[0] ?? 'x';
      const step = await env.step(`<tool_call>{"name": "${name}", "arguments": {"${param}": ${deepArray(5000)}}}</tool_call>`);
      expect(step.info?.error, task.id).toBeUndefined();
      expect(String(step.info?.parseErrors)).toContain(`nested more than ${MAX_JSON_DEPTH} levels deep`);
      expect(step.reward.total).toBeGreaterThanOrEqual(0);
      expect(step.reward.total).toBeLessThanOrEqual(1);
      expect(step.reward.components.format).toBe(0);
    }
  });

  it('accepts arguments up to the depth limit and scores them', async () => {
    const task = functionCallingFamily.generateTask(4, 1, 'train');
    const env = new FunctionCallingEnv();
    env.reset(task);
    const name = task.tools[0].function.name;
    const step = await env.step(`<tool_call>{"name": "${name}", "arguments": {"x": ${JSON.stringify(nested(MAX_JSON_DEPTH - 1))}}}</tool_call>`);
    expect(step.info?.parseErrors).toEqual([]);
    expect(step.info?.error).toBeUndefined();
  });

  it('its catch path does not throw again when the reward fails too', async () => {
    const task = functionCallingFamily.generateTask(4, 2, 'train');
    const env = new FunctionCallingEnv();
    env.reset(task);
    Object.defineProperty(task, 'tools', { get: () => { throw new RangeError('Maximum call stack size exceeded'); } });
    const step = await env.step(`<tool_call>{"name": "f", "arguments": {}}</tool_call>`);
    expect(step.done).toBe(true);
    expect(step.info?.error).toContain('internal environment error');
    expect(step.reward.total).toBe(0);
  });
});

describe('formatToolCalls', () => {
  it('renders every call the parser accepts, back to the same call', () => {
    const args = { a: nested(MAX_JSON_DEPTH - 1), b: 'x</tool_call>y' };
    const text = formatToolCalls([{ name: 'f', arguments: args }]);
    const back = parseToolCalls(text);
    expect(back.errors).toEqual([]);
    expect(back.calls[0].arguments).toEqual(args);
  });

  it('renders a 20 000-deep value without overflowing the stack', () => {
    const value = JSON.parse(deepArray(20_000)) as unknown;
    const text = pythonStyleJson(value);
    expect(text).toBe(deepArray(20_000));
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(() => pythonStyleJson(cyclic)).toThrow(/a cycle/);
  });
});

describe('eval-bfcl on bad files', () => {
  const FIXTURES = join(import.meta.dirname, 'fixtures');
  const dir = mkdtempSync(join(tmpdir(), 'bfcl-bad-'));
  const questions = join(FIXTURES, 'bfcl_questions.jsonl');
  const answers = join(FIXTURES, 'bfcl_possible_answers.jsonl');
  const gold = join(FIXTURES, 'predictions_gold.jsonl');
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const run = (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = runEvalBfcl(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err: err.join('\n') };
  };

  it('refuses deep predictions, a 100 000-deep items schema and deep answers, naming file and line', () => {
    const deepPrediction = file('deep-pred.jsonl', `{"id": "simple_0", "calls": [{"name": "calculate_triangle_area", "arguments": {"base": ${deepArray(5000)}}}]}\n`);
    const p = run(['--questions', questions, '--answers', answers, '--predictions', deepPrediction]);
    expect(p.code).toBe(1);
    expect(p.err).toMatch(/deep-pred\.jsonl:1: the line is nested more than 64 levels deep/);
    const schema = `{"type": "array", "items": ${'{"type": "array", "items": '.repeat(100_000)}{"type": "integer"}${'}'.repeat(100_000)}}`;
    const deepQuestions = file('deep-q.jsonl', `{"id": "simple_0", "question": "x", "function": [{"name": "f", "parameters": {"type": "dict", "properties": {"a": ${schema}}}}]}\n`);
    expect(run(['--questions', deepQuestions, '--answers', answers, '--predictions', gold]).err).toMatch(/deep-q\.jsonl:1: the line is nested more than 64 levels deep/);
    const deepAnswers = file('deep-a.jsonl', `{"id": "simple_0", "ground_truth": [{"calculate_triangle_area": {"base": [${deepArray(5000)}]}}]}\n`);
    expect(run(['--questions', questions, '--answers', deepAnswers, '--predictions', gold]).err).toMatch(/deep-a\.jsonl:1: the line is nested more than 64 levels deep/);
  });

  it('refuses an empty questions file instead of printing accuracy 0/0', () => {
    const r = run(['--questions', file('empty.jsonl', '\n\n'), '--answers', answers, '--predictions', file('none.jsonl', '')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/empty\.jsonl holds no questions/);
    expect(r.out).toEqual([]);
  });

  it('refuses a flag given twice and the same file twice', () => {
    const twice = run(['--questions', questions, '--answers', answers, '--predictions', gold, '--predictions', gold]);
    expect(twice.code).toBe(1);
    expect(twice.err).toMatch(/--predictions is given twice/);
    const sameAnswers = run(['--questions', questions, '--answers', answers, '--answers', join(FIXTURES, '..', 'fixtures', 'bfcl_possible_answers.jsonl'), '--predictions', gold]);
    expect(sameAnswers.err).toMatch(/--answers is given the same file twice/);
    const copy = file('answers-copy.jsonl', readFileSync(answers, 'utf8'));
    expect(run(['--questions', questions, '--answers', answers, '--answers', copy, '--predictions', gold]).err).toMatch(/has a possible answer in both/);
    expect(run(['--questions', questions, '--questions', questions, '--answers', answers, '--predictions', gold]).err).toMatch(/--questions is given the same file twice/);
  });

  it('reads files that start with a UTF-8 byte-order mark', () => {
    const bom = (name: string, path: string) => file(name, `\uFEFF${readFileSync(path, 'utf8')}`);
    const r = run(['--questions', bom('q-bom.jsonl', questions), '--answers', bom('a-bom.jsonl', answers), '--predictions', bom('p-bom.jsonl', gold)]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out.at(-1)).toMatch(/^accuracy: (\d+)\/\1$/);
  });
});

describe('the BFCL checker called directly', () => {
  it('answers a call or an answer nested past the limit with an error, not a stack overflow', async () => {
    const { checkCall } = await import('./bfclChecker');
    const fn = { name: 'f', description: '', parameters: { type: 'object' as const, properties: { a: { type: 'array' as const } }, required: [] } };
    const deep = JSON.parse(deepArray(5000)) as unknown;
    const call = checkCall(fn, { name: 'f', arguments: { a: deep } }, { f: { a: [[1]] } });
    expect(call).toMatchObject({ valid: false, paramsCorrect: 0 });
    expect(call.error).toContain(`nested more than ${MAX_JSON_DEPTH} levels deep`);
    expect(checkCall(fn, { name: 'f', arguments: { a: [1] } }, { f: { a: [deep] } }).error).toContain('nested more than');
  });
});
