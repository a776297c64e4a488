import { afterAll, describe, expect, it } from 'vitest';
import { generateCodingTask } from './generate';
import { closeNodeSandbox, runInNodeSandbox } from './sandbox/nodeSandbox';
import { HELD_OUT_TEMPLATE_IDS, TEMPLATE_SPLITS, TEMPLATES } from './templates/index';
import { SPLITS } from '../splits';
import { toSandboxTests } from './env';
import type { CodingTask } from './types';

afterAll(() => closeNodeSandbox());

/** `perTemplate` tasks of every template of every split, grouped by template id (generation is round-robin over a split's templates). */
function tasksByTemplate(perTemplate: number, seed: number): Map<string, CodingTask[]> {
  const groups = new Map<string, CodingTask[]>();
  for (const split of SPLITS) {
    for (let i = 0; i < TEMPLATE_SPLITS[split].length * perTemplate; i++) {
      const task = generateCodingTask(seed, i, split);
      groups.set(task.template, [...(groups.get(task.template) ?? []), task]);
    }
  }
  return groups;
}

describe('coding templates', () => {
  it('has at least 25 distinct templates over five areas', () => {
    const ids = TEMPLATES.map((t) => t.id);
    expect(ids.length).toBeGreaterThanOrEqual(25);
    expect(new Set(ids).size).toBe(ids.length);
    const perCategory = new Map<string, number>();
    for (const t of TEMPLATES) perCategory.set(t.category, (perCategory.get(t.category) ?? 0) + 1);
    expect([...perCategory.keys()].sort()).toEqual(['arrays', 'data-structures', 'maths', 'parsing', 'strings']);
    for (const n of perCategory.values()) expect(n).toBeGreaterThanOrEqual(5);
  });

  it('generates the same task from the same (seed, index, split), and other tasks otherwise', () => {
    const a = generateCodingTask(42, 17, 'train');
    expect(JSON.stringify(generateCodingTask(42, 17, 'train'))).toBe(JSON.stringify(a));
    expect(generateCodingTask(42, 17, 'test').id).not.toBe(a.id);
    expect(JSON.stringify(generateCodingTask(42, 17, 'test').hiddenTests)).not.toBe(JSON.stringify(a.hiddenTests));
    expect(JSON.stringify(generateCodingTask(43, 17, 'train'))).not.toBe(JSON.stringify(a));
  });

  it('holds out whole templates: one per area for validation, one per area for test', () => {
    const areas = (ids: readonly string[]) => ids.map((id) => TEMPLATES.find((t) => t.id === id)!.category).sort();
    expect(areas(HELD_OUT_TEMPLATE_IDS.validation)).toEqual(['arrays', 'data-structures', 'maths', 'parsing', 'strings']);
    expect(areas(HELD_OUT_TEMPLATE_IDS.test)).toEqual(['arrays', 'data-structures', 'maths', 'parsing', 'strings']);
    expect(TEMPLATE_SPLITS.train.length + TEMPLATE_SPLITS.validation.length + TEMPLATE_SPLITS.test.length).toBe(TEMPLATES.length);
    for (const split of SPLITS) {
      const own = new Set(TEMPLATE_SPLITS[split].map((t) => t.id));
      for (let i = 0; i < 200; i++) expect(own.has(generateCodingTask(5, i, split).template)).toBe(true);
    }
  });

  it('visits every train template evenly and makes well-sized test sets', () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < TEMPLATE_SPLITS.train.length * 4; i++) {
      const task = generateCodingTask(9, i, 'train');
      seen.set(task.template, (seen.get(task.template) ?? 0) + 1);
      expect(task.publicTests.length).toBeGreaterThanOrEqual(3);
      expect(task.hiddenTests.length).toBeGreaterThanOrEqual(8);
      expect(task.signature).toMatch(new RegExp(`^function ${task.entry}\\(`));
    }
    expect(seen.size).toBe(TEMPLATE_SPLITS.train.length);
    expect([...seen.values()].every((n) => n === 4)).toBe(true);
  });

  it('varies wording or constants with the seed in every template', () => {
    const groups = tasksByTemplate(8, 3);
    for (const t of TEMPLATES) {
      const tasks = groups.get(t.id) ?? [];
      expect(tasks.length, t.id).toBe(8);
      const variants = new Set(tasks.map((task) => `${task.entry}|${task.statement}|${task.solution}`));
      expect(variants.size, t.id).toBeGreaterThan(1);
    }
  });

  it('generates thousands of tasks without a template error', () => {
    for (let i = 0; i < 2000; i++) generateCodingTask(1000 + (i % 13), i, SPLITS[i % 3]);
  });

  it('reference solutions pass every test and buggy attempts fail a public example (sandboxed)', async () => {
    const tasks = [...tasksByTemplate(3, 77).values()].flat();
    expect(tasks.length).toBe(TEMPLATES.length * 3);
    const failures: string[] = [];
    for (let i = 0; i < tasks.length; i += 4) {
      await Promise.all(tasks.slice(i, i + 4).map(async (task) => {
        const all = toSandboxTests(task.entry, [...task.publicTests, ...task.hiddenTests]);
        const ref = await runInNodeSandbox(task.solution, all);
        if (ref.passed !== all.length) failures.push(`${task.id} reference: ${ref.tests.find((t) => t.status !== 'passed')?.message ?? ref.compileError}`);
        const bug = await runInNodeSandbox(task.buggySolution, toSandboxTests(task.entry, task.publicTests));
        if (!bug.compiled) failures.push(`${task.id} buggy does not load: ${bug.compileError}`);
        if (bug.passed === bug.tests.length) failures.push(`${task.id} buggy passes every public example`);
      }));
    }
    expect(failures).toEqual([]);
  });
});
