import { afterAll, describe, expect, it } from 'vitest';
import { toSandboxTests } from './env';
import { generateCodingTask } from './generate';
import { codingLevelFamily } from './family';
import { CODING_LEVELS, LEVEL_TEMPLATE_SPLITS } from './levels';
import { TEMPLATES } from './templates/index';
import { closeNodeSandbox, runInNodeSandbox } from './sandbox/nodeSandbox';
import { ONE_LINER_DOMAINS, ONE_LINER_SPLITS } from './templates/oneLiners';
import { SPLITS } from '../splits';
import type { Environment, Policy, StepResult, TaskBase } from '../types';
import { Rng } from '../../util/rng';

afterAll(() => closeNodeSandbox());

describe('coding curriculum levels', () => {
  it('every level holds out whole templates: no validation or test template of any level is a train template of any level', () => {
    const train = new Set(CODING_LEVELS.flatMap((l) => LEVEL_TEMPLATE_SPLITS[l].train.map((t) => t.id)));
    for (const level of CODING_LEVELS) {
      const s = LEVEL_TEMPLATE_SPLITS[level];
      // parsing has one area's templates: one held out for validation, one for test
      expect(s.validation.length, level).toBeGreaterThanOrEqual(level === 'parsing' ? 1 : 2);
      expect(s.test.length, level).toBeGreaterThanOrEqual(level === 'parsing' ? 1 : 2);
      for (const t of [...s.validation, ...s.test]) expect(train.has(t.id), `${level}: ${t.id}`).toBe(false);
      for (const split of SPLITS) {
        const own = new Set(s[split].map((t) => t.id));
        for (let i = 0; i < 60; i++) expect(own.has(generateCodingTask(3, i, split, level).template)).toBe(true);
      }
    }
    expect(LEVEL_TEMPLATE_SPLITS.loops.train.every((t) => t.category === 'arrays' || t.category === 'maths')).toBe(true);
    const parsing = LEVEL_TEMPLATE_SPLITS.parsing;
    expect([...parsing.train, ...parsing.validation, ...parsing.test].every((t) => t.category === 'parsing')).toBe(true);
    expect(parsing.train.length + parsing.validation.length + parsing.test.length).toBe(TEMPLATES.filter((t) => t.category === 'parsing').length);
  });

  it('parsing: the expert solves every template of every split with full reward, in 2 turns or 4 after a buggy first try (sandboxed)', async () => {
    const family = codingLevelFamily('parsing');
    const failures: string[] = [];
    const seen = new Set<string>();
    for (const split of SPLITS) {
      const n = LEVEL_TEMPLATE_SPLITS.parsing[split].length * 2; // every template twice
      await Promise.all(Array.from({ length: n }, async (_, i) => {
        const task = family.generateTask(13, i, split);
        seen.add(task.template);
        const { last, turns } = await play(family.createEnv(), task, family.expertPolicy(task, i));
        if (!last.info.success || Math.abs(last.reward.total - 1) > 1e-9 || (turns !== 2 && turns !== 4)) failures.push(`${task.id}: ${turns} turns, ${JSON.stringify(last.reward.components)}`);
      }));
    }
    expect(failures).toEqual([]);
    expect(seen.size).toBe(6);
  });

  it('one-liners: test templates are pairs never trained, of operations trained alone and in train pairs in both positions', () => {
    const trainIds = new Set(ONE_LINER_SPLITS.train.map((t) => t.id));
    for (const d of ONE_LINER_DOMAINS) {
      for (const o of d.ops) {
        expect(trainIds.has(`one-liner:${d.category}:${o.id}`)).toBe(true);
        const pairs = ONE_LINER_SPLITS.train.map((t) => t.id.split(':')[2].split('+')).filter((p) => p.length === 2 && ONE_LINER_SPLITS.train.some((t) => t.category === d.category && t.id.endsWith(p.join('+'))));
        expect(pairs.some((p) => p[0] === o.id), `${d.category} ${o.id} first`).toBe(true);
        expect(pairs.some((p) => p[1] === o.id), `${d.category} ${o.id} second`).toBe(true);
      }
    }
    for (const t of [...ONE_LINER_SPLITS.validation, ...ONE_LINER_SPLITS.test]) expect(t.id.split(':')[2].split('+')).toHaveLength(2);
  });

  it('one-liners: references pass every test, the slip (last operation left out) fails a public example (sandboxed)', async () => {
    const templates = [...ONE_LINER_SPLITS.validation, ...ONE_LINER_SPLITS.test, ...ONE_LINER_SPLITS.train.filter((_, i) => i % 20 === 0)];
    const failures: string[] = [];
    for (let i = 0; i < templates.length; i += 6) {
      await Promise.all(templates.slice(i, i + 6).map(async (tpl, k) => {
        const split = ONE_LINER_SPLITS.train.includes(tpl) ? 'train' : ONE_LINER_SPLITS.validation.includes(tpl) ? 'validation' : 'test';
        const list = ONE_LINER_SPLITS[split];
        const task = generateCodingTask(11 + i + k, taskIndexOf(11 + i + k, list.indexOf(tpl), list.length), split, 'one-liners');
        expect(task.template).toBe(tpl.id);
        const all = toSandboxTests(task.entry, [...task.publicTests, ...task.hiddenTests]);
        const ref = await runInNodeSandbox(task.solution, all);
        if (ref.passed !== all.length) failures.push(`${task.id} reference: ${ref.tests.find((t) => t.status !== 'passed')?.message ?? ref.compileError}`);
        const bug = await runInNodeSandbox(task.buggySolution, toSandboxTests(task.entry, task.publicTests));
        if (bug.passed === bug.tests.length) failures.push(`${task.id} slip passes every public example`);
      }));
    }
    expect(failures).toEqual([]);
  });
});

/** Plays one episode to the end; the last step and the assistant turns taken. */
async function play<T extends TaskBase>(env: Environment<T>, task: T, policy: Policy): Promise<{ last: StepResult; turns: number }> {
  const { messages, tools } = env.reset(task);
  for (let turn = 1; turn <= 20; turn++) {
    const text = await policy(messages, tools);
    messages.push({ role: 'assistant', content: text });
    const r = await env.step(text);
    messages.push(...r.messages);
    if (r.done) return { last: r, turns: turn };
  }
  throw new Error(`${task.id}: no end after 20 turns`);
}

/** The task index whose template is the split's `position`-th (generate.ts visits templates round-robin from a seeded offset). */
function taskIndexOf(seed: number, position: number, n: number): number {
  return (((position - new Rng(seed).int(0, n - 1)) % n) + n) % n;
}
