import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BfclFormatError, bfclCategory, bfclSchemaToJsonSchema, bfclTasks, checkKindOf, parseBfclAnswers, parseBfclQuestions, parseJsonLines } from './bfclLoader';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const questionsText = readFileSync(join(FIXTURES, 'bfcl_questions.jsonl'), 'utf8');
const answersText = readFileSync(join(FIXTURES, 'bfcl_possible_answers.jsonl'), 'utf8');

describe('BFCL ids and categories', () => {
  it('takes the category from the id prefix, v3 live ids included', () => {
    expect(bfclCategory('simple_0')).toBe('simple');
    expect(bfclCategory('parallel_multiple_12')).toBe('parallel_multiple');
    expect(bfclCategory('live_simple_0-0-0')).toBe('live_simple');
    expect(bfclCategory('live_parallel_multiple_3-1-2')).toBe('live_parallel_multiple');
    expect(bfclCategory('simple_python_7')).toBe('simple_python');
    expect(bfclCategory('no-number')).toBeNull();
  });

  it('maps categories to checkers and refuses the ones the AST checker cannot score', () => {
    expect(checkKindOf('simple')).toBe('simple');
    expect(checkKindOf('simple_python')).toBe('simple');
    expect(checkKindOf('live_multiple')).toBe('multiple');
    expect(checkKindOf('parallel_multiple')).toBe('parallel');
    expect(checkKindOf('live_parallel')).toBe('parallel');
    expect(checkKindOf('irrelevance')).toBe('irrelevance');
    expect(checkKindOf('live_irrelevance')).toBe('irrelevance');
    expect(checkKindOf('live_relevance')).toBe('relevance');
    for (const c of ['multi_turn_base', 'simple_java', 'simple_javascript', 'exec_simple', 'memory_kv', 'web_search_base', 'sql']) expect(checkKindOf(c)).toBeNull();
  });
});

describe('BFCL question and answer files', () => {
  const questions = parseBfclQuestions(questionsText, 'bfcl_questions.jsonl');
  const answers = parseBfclAnswers(answersText, 'bfcl_possible_answers.jsonl');

  it('reads every fixture item with its category and checker', () => {
    expect(questions.map((q) => q.id)).toContain('live_simple_0-0-0');
    expect(questions.length).toBe(16);
    const byId = new Map(questions.map((q) => [q.id, q]));
    expect(byId.get('parallel_multiple_1')?.check).toBe('parallel');
    expect(byId.get('multiple_0')?.tools.length).toBe(3);
    expect(byId.get('irrelevance_0')?.check).toBe('irrelevance');
  });

  it('converts BFCL types to JSON schema', () => {
    const force = questions.find((q) => q.id === 'simple_2')?.tools[0].function.parameters;
    expect(force?.type).toBe('object');
    expect(force?.properties?.mass.type).toBe('number');
    const route = questions.find((q) => q.id === 'simple_5')?.tools[0].function.parameters.properties;
    expect(route?.stops).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(route?.avoid.items?.type).toBe('object');
    expect(bfclSchemaToJsonSchema({ type: 'any', description: 'x' }, 'here')).toEqual({ description: 'x' });
    expect(() => bfclSchemaToJsonSchema({ type: 'HashMap' }, 'f.p')).toThrow(/f\.p: unsupported type "HashMap"/);
  });

  it('keeps a leading system message as the system prompt', () => {
    const tasks = bfclTasks(questions, answers);
    const live = tasks.find((t) => t.id === 'live_simple_0-0-0');
    expect(live?.system).toBe('You are a home assistant.');
    expect(live?.question).toEqual([{ role: 'user', content: 'Set the thermostat to 21 degrees.' }]);
    expect(tasks.find((t) => t.id === 'irrelevance_1')?.groundTruth).toEqual([]);
  });

  it('accepts a plain-string question and a single function object (older files)', () => {
    const q = parseBfclQuestions('{"id": "simple_9", "question": "Hi", "function": {"name": "f", "parameters": {"type": "dict", "properties": {}, "required": []}}}', 'old.json');
    expect(q[0].messages).toEqual([{ role: 'user', content: 'Hi' }]);
    expect(q[0].tools[0].function.name).toBe('f');
  });

  it('says which file and line is broken', () => {
    expect(() => parseJsonLines('{"id": 1}\n\n{"id": oops}\n', 'q.jsonl')).toThrow(/q\.jsonl:3: not valid JSON/);
    expect(() => parseBfclQuestions('{"question": []}', 'q.jsonl')).toThrow(/q\.jsonl:1: expected an object with a string "id"/);
    expect(() => parseBfclQuestions('{"id": "multi_turn_base_0", "question": [], "function": []}', 'q.jsonl')).toThrow(/not AST-checkable/);
    expect(() => parseBfclAnswers('{"id": "simple_0", "ground_truth": [{"f": 1}]}', 'a.jsonl')).toThrow(/a\.jsonl:1: ground_truth\[0\]/);
    expect(() => parseBfclAnswers('{"id": "a_1", "ground_truth": []}\n{"id": "a_1", "ground_truth": []}', 'a.jsonl')).toThrow(/a\.jsonl:2: id "a_1" appears twice/);
  });

  it('fails clearly when an item needs a possible answer that is missing', () => {
    const without = new Map(answers);
    without.delete('simple_1');
    expect(() => bfclTasks(questions, without, 'answers.jsonl')).toThrow(BfclFormatError);
    expect(() => bfclTasks(questions, without, 'answers.jsonl')).toThrow(/no possible answer for id "simple_1" in answers\.jsonl/);
  });
});
