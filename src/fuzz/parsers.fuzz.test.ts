// Property-based fuzzing of every parser that reads model output or user files: seeded, FUZZ_RUNS
// cases per target. Properties: never throws (or throws only the parser's own clear error), the
// result respects its invariants, and the work grows linearly with the input.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PIPELINE } from '../app/pipelineDraft';
import { encodePipeline, readShareLink, toBase64Url } from '../app/shareLink';
import { validatePipelineConfig } from '../pipeline/config';
import { BfclFormatError, bfclTasks, parseBfclAnswers, parseBfclQuestions, parseJsonLines } from '../envs/functionCalling/bfclLoader';
import { parsePredictions } from '../envs/functionCalling/bfclEval';
import { scoreCalls } from '../envs/functionCalling/scoring';
import { hfConfigJson, readHfConfig } from '../model/hfConfig';
import { readSafetensors, writeSafetensors } from '../model/safetensors';
import { formatToolCalls, parseToolCalls } from '../tokenizer/toolCalls';
import { jsonDepth, MAX_JSON_DEPTH } from '../util/limits';
import { anyJson, attempt, fuzzParams, nestedJsonText, reply, soup } from './arbitraries';
import { timeRatio } from './scaling';

const FIXTURES = join(import.meta.dirname, '../envs/functionCalling/fixtures');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const QUESTIONS = fixture('bfcl_questions.jsonl').trim().split('\n');
const ANSWERS = fixture('bfcl_possible_answers.jsonl').trim().split('\n');
const PREDICTIONS = fixture('predictions_gold.jsonl').trim().split('\n');
const TASKS = bfclTasks(parseBfclQuestions(QUESTIONS.join('\n'), 'q'), parseBfclAnswers(ANSWERS.join('\n'), 'a'));

/** Replaces one value somewhere in a JSON value by `replacement` (the path picked by `pick` ∈ [0, 1)). */
function mutateJson(value: unknown, replacement: unknown, pick: number): unknown {
  const copy = structuredClone(value) as unknown;
  let node = copy;
  let p = pick;
  for (let depth = 0; depth < 8; depth++) {
    if (node === null || typeof node !== 'object') break;
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = keys[Math.floor(p * keys.length)];
    p = (p * keys.length) % 1;
    const child = (node as Record<string, unknown>)[key];
    if (child === null || typeof child !== 'object' || p < 0.3) {
      (node as Record<string, unknown>)[key] = replacement;
      return copy;
    }
    node = child;
  }
  return replacement;
}

/** JSON lines: fixture lines with one value replaced, soup lines, deep lines. */
const jsonLines = (lines: string[]) =>
  fc.array(
    fc.oneof(
      { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...lines), anyJson(), fc.double({ min: 0, max: 0.999, noNaN: true })).map(([line, v, p]) => JSON.stringify(mutateJson(JSON.parse(line), v, p))) },
      { weight: 1, arbitrary: soup() },
      { weight: 1, arbitrary: fc.integer({ min: MAX_JSON_DEPTH - 2, max: 4 * MAX_JSON_DEPTH }).map(nestedJsonText) }, // 100 000 deep: deepInput.test.ts
      { weight: 2, arbitrary: fc.constantFrom(...lines) },
    ),
    { maxLength: 5 },
  ).map((ls) => ls.join('\n'));

describe('fuzz: tool-call parser', () => {
  it('never throws; calls have a name and object arguments within the depth limit; format → parse gives the calls back', () => {
    fc.assert(
      fc.property(reply(['get_weather', 'submit', 'find_user_id_by_email']), (text) => {
        const parsed = parseToolCalls(text);
        for (const call of parsed.calls) {
          expect(typeof call.name).toBe('string');
          expect(call.arguments !== null && typeof call.arguments === 'object' && !Array.isArray(call.arguments)).toBe(true);
          expect(jsonDepth(call.arguments)).toBeLessThanOrEqual(MAX_JSON_DEPTH);
        }
        for (const e of parsed.errors) expect(e.message.length).toBeGreaterThan(0);
        if (parsed.calls.length > 0) {
          const again = parseToolCalls(formatToolCalls(parsed.calls));
          expect(again.errors).toEqual([]);
          expect(JSON.stringify(again.calls)).toBe(JSON.stringify(parsed.calls));
        }
      }),
      fuzzParams(1),
    );
  });

  it('takes time linear in the reply length, whatever it repeats', () => {
    const units = ['<tool_call>', '<tool_call>{"name": "f", "arguments": {"a": [1, 2]}}</tool_call>', '<tool_call>{"name": "f", "arguments": {"a": ', `<tool_call>{"name": "f", "arguments": {"a": ${nestedJsonText(70)}}}</tool_call>`];
    for (const unit of units) {
      const { ratio, linear } = timeRatio((n) => unit.repeat(n), parseToolCalls, 600);
      expect(linear, `${unit.slice(0, 30)}: 16× input took ${ratio.toFixed(1)}×`).toBe(true);
    }
  });
});

describe('fuzz: safetensors reader', () => {
  const header = fc.dictionary(
    fc.oneof(fc.constantFrom('w', '__metadata__', 'model.norm.weight'), fc.string({ maxLength: 5 })),
    fc.oneof(
      fc.record({ dtype: fc.constantFrom('F32', 'F16', 'BF16', 'I32', 'I64', 'U8', 'F64', 'x'), shape: fc.array(fc.oneof(fc.nat(6), fc.integer({ min: -2, max: 2 ** 40 })), { maxLength: 4 }), data_offsets: fc.tuple(fc.integer({ min: -4, max: 200 }), fc.integer({ min: -4, max: 200 })) }),
      anyJson(),
    ),
    { maxKeys: 4 },
  );
  const file = fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    fc.tuple(header, fc.integer({ min: -3, max: 3 }), fc.uint8Array({ maxLength: 160 })).map(([h, skew, data]) => {
      const json = new TextEncoder().encode(JSON.stringify(h));
      const bytes = new Uint8Array(8 + json.length + data.length);
      new DataView(bytes.buffer).setBigUint64(0, BigInt(Math.max(0, json.length + skew)), true);
      bytes.set(json, 8);
      bytes.set(data, 8 + json.length);
      return bytes;
    }),
    fc.tuple(fc.nat(5), fc.uint8Array({ minLength: 1, maxLength: 8 })).map(([n, junk]) => {
      const good = writeSafetensors({ w: { shape: [n], data: new Float32Array(n).fill(1.5) } });
      const at = good.length > 8 ? 8 + (junk[0] % (good.length - 8)) : 0;
      const bad = good.slice();
      bad.set(junk.slice(0, bad.length - at), at);
      return bad;
    }),
  );

  it('reads a file or says why it cannot; tensors it returns match their shapes', () => {
    fc.assert(
      fc.property(file, (bytes) => {
        const tensors = attempt(() => readSafetensors(bytes));
        for (const [, t] of tensors ?? []) expect(t.data.length).toBe(t.shape.reduce((a, b) => a * b, 1));
      }),
      fuzzParams(2),
    );
  });
});

describe('fuzz: HF config reader', () => {
  const base = JSON.parse(hfConfigJson({ vocabSize: 259, hiddenSize: 16, intermediateSize: 24, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 8, rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 32, tieWordEmbeddings: true, tokenizer: 'byte' })) as Record<string, unknown>;
  const input = fc.oneof(
    fc.tuple(fc.constantFrom(...Object.keys(base)), anyJson()).map(([k, v]) => JSON.stringify({ ...base, [k]: v })),
    fc.tuple(anyJson(), fc.double({ min: 0, max: 0.999, noNaN: true })).map(([v, p]) => mutateJson(base, v, p)),
    soup(),
    anyJson(),
  );
  it('returns a valid config or an error that names the problem', () => {
    fc.assert(
      fc.property(input, (raw) => {
        const read = attempt(() => readHfConfig(raw));
        if (read === undefined) return;
        expect(Number.isInteger(read.cfg.hiddenSize)).toBe(true);
        expect(read.cfg.numHeads % read.cfg.numKvHeads).toBe(0);
      }),
      fuzzParams(3),
    );
  });
});

describe('fuzz: BFCL loader and checker', () => {
  it('question, answer and prediction files load or fail with BfclFormatError naming file:line', () => {
    fc.assert(
      fc.property(jsonLines(QUESTIONS), jsonLines(ANSWERS), jsonLines(PREDICTIONS), (q, a, p) => {
        const questions = attempt(() => parseBfclQuestions(q, 'q.jsonl'), BfclFormatError);
        for (const item of questions ?? []) expect(item.tools.every((t) => t.function.parameters.type === 'object')).toBe(true);
        attempt(() => parseBfclAnswers(a, 'a.jsonl'), BfclFormatError);
        const predictions = attempt(() => parsePredictions(p, 'p.jsonl'), BfclFormatError);
        for (const pr of predictions ?? []) for (const c of pr.calls) expect(jsonDepth(c.arguments)).toBeLessThanOrEqual(MAX_JSON_DEPTH);
      }),
      fuzzParams(4),
    );
  });

  it('the checker scores any calls for any item: never throws, components in [0, 1], valid iff exact_match', () => {
    const call = fc.record({ name: fc.oneof(fc.constantFrom(...TASKS.flatMap((t) => t.tools.map((x) => x.function.name))), fc.string({ maxLength: 6 })), arguments: fc.dictionary(fc.string({ maxLength: 8 }), anyJson(), { maxKeys: 4 }) });
    const gold = fc.constantFrom(...PREDICTIONS.map((l) => JSON.parse(l) as { id: string; calls: { name: string; arguments: Record<string, unknown> }[] }));
    const calls = fc.oneof(fc.array(call, { maxLength: 4 }), fc.tuple(gold, anyJson(), fc.double({ min: 0, max: 0.999, noNaN: true })).map(([g, v, p]) => [mutateJson(g.calls, v, p)].flat().filter((c): c is { name: string; arguments: Record<string, unknown> } => c !== null && typeof c === 'object' && typeof (c as { name?: unknown }).name === 'string' && (c as { arguments?: unknown }).arguments !== null && typeof (c as { arguments?: unknown }).arguments === 'object')));
    fc.assert(
      fc.property(fc.constantFrom(...TASKS), calls, (task, cs) => {
        const bounded = cs.filter((c) => jsonDepth(c.arguments) <= MAX_JSON_DEPTH); // what the parser and loader let through
        const verdict = scoreCalls(task, bounded);
        for (const v of Object.values(verdict.components)) {
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
        }
        expect(verdict.valid).toBe(verdict.components.exact_match === 1);
      }),
      fuzzParams(5),
    );
  });

  it('reads JSON lines in time linear in the file size', () => {
    const line = QUESTIONS[0];
    const { ratio, linear } = timeRatio((n) => Array.from({ length: n }, () => line).join('\n'), (text) => parseJsonLines(text, 'q'), 100);
    expect(linear, `16× lines took ${ratio.toFixed(1)}×`).toBe(true);
  });
});

describe('fuzz: share-link decoder', () => {
  const configish = fc.oneof(
    fc.tuple(fc.constantFrom(...Object.keys(DEFAULT_PIPELINE)), anyJson()).map(([k, v]) => ({ ...DEFAULT_PIPELINE, [k]: v })),
    fc.tuple(fc.constantFrom('preset', 'seed', 'sftSteps', 'rlSteps', 'tasksPerStep', 'groupSize', 'quick'), anyJson()).map(([k, v]) => ({ preset: 'nano', [k]: v })), // older links
    anyJson(),
  );
  const encoded = fc.oneof(configish.map((c) => toBase64Url(JSON.stringify(c) ?? 'null')), soup(), fc.string({ maxLength: 5000 }), fc.constant(encodePipeline(DEFAULT_PIPELINE)));
  const link = fc.tuple(encoded, fc.constantFrom('', '&autostart=1', '&autostart=yes&config=x', '&&'), fc.constantFrom('#pipeline=', '#config=', '#', '?pipeline=', '?config=', 'config=', '#other=1&pipeline=')).map(([e, tail, head]) => `${head}${e}${tail}`);
  it('never throws; returns none, ok with a valid config, or invalid with a reason', () => {
    fc.assert(
      fc.property(link, fc.oneof(fc.constant(''), link), (hash, search) => {
        const r = readShareLink(hash, search);
        expect(['none', 'ok', 'invalid']).toContain(r.kind);
        if (r.kind === 'ok') expect(validatePipelineConfig(r.config).ok).toBe(true);
        if (r.kind === 'invalid') expect(r.error).toMatch(/^This share link's pipeline cannot be used: .+/);
      }),
      fuzzParams(6),
    );
  });
});
