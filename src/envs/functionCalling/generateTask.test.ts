import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import { validateCall } from './argumentValidation';
import { checkCall } from './bfclChecker';
import { CATALOGUE } from './catalogue';
import { generateFunctionCallingTask, toolsUnrelatedTo } from './generateTask';
import { generateRoutingTask } from './routingTask';
import { GENERATED_CATEGORIES } from './types';
import { SPLITS } from '../splits';
import { TRAIN_TOOLS, UNSEEN_TOOL_NAMES } from './catalogue/toolSplits';

describe('task generators', () => {
  it('same seed, index and split → the same task; other inputs → other tasks', () => {
    for (let i = 0; i < 50; i++) {
      expect(generateFunctionCallingTask(5, i, 'train')).toEqual(generateFunctionCallingTask(5, i, 'train'));
      expect(generateRoutingTask(5, i, 'test')).toEqual(generateRoutingTask(5, i, 'test'));
    }
    const train = Array.from({ length: 50 }, (_, i) => generateFunctionCallingTask(5, i, 'train').question[0].content);
    const heldout = Array.from({ length: 50 }, (_, i) => generateFunctionCallingTask(5, i, 'test').question[0].content);
    const otherSeed = Array.from({ length: 50 }, (_, i) => generateFunctionCallingTask(6, i, 'train').question[0].content);
    expect(train.filter((t, i) => t === heldout[i]).length).toBeLessThan(3);
    expect(train.filter((t, i) => t === otherSeed[i]).length).toBeLessThan(3);
  });

  it('the catalogue has ≥ 20 functions over many domains with every parameter type, enums and defaults', () => {
    expect(CATALOGUE.length).toBeGreaterThanOrEqual(20);
    expect(new Set(CATALOGUE.map((f) => f.tool.function.name)).size).toBe(CATALOGUE.length);
    expect(new Set(CATALOGUE.map((f) => f.domain)).size).toBeGreaterThanOrEqual(8);
    const params = CATALOGUE.flatMap((f) => Object.values(f.tool.function.parameters.properties ?? {}));
    for (const type of ['string', 'integer', 'number', 'boolean', 'array'] as const) expect(params.some((p) => p.type === type)).toBe(true);
    expect(params.filter((p) => p.enum !== undefined).length).toBeGreaterThanOrEqual(10);
    expect(params.filter((p) => p.default !== undefined).length).toBeGreaterThanOrEqual(15);
  });

  it('every sampled scenario is self-consistent: schema-valid, accepted by the checker, simulatable', () => {
    const rng = new Rng(17);
    for (const fn of CATALOGUE) {
      const requests = new Set<string>();
      for (let k = 0; k < 60; k++) {
        const s = fn.sample(rng, SPLITS[k % 3]);
        requests.add(s.request.replace(/[\d.]+/g, '#'));
        const call = { name: fn.tool.function.name, arguments: s.args };
        expect(validateCall([fn.tool], call).errors, `${fn.tool.function.name}: ${s.request}`).toEqual([]);
        expect(checkCall(fn.tool.function, call, { [call.name]: s.answer }).valid, s.request).toBe(true);
        // Required parameters are always stated; every answered parameter exists in the schema.
        for (const p of fn.tool.function.parameters.required ?? []) expect(s.answer[p]).not.toContain('');
        for (const p of Object.keys(s.answer)) expect(fn.tool.function.parameters.properties).toHaveProperty(p);
        expect(s.request).toMatch(/^[A-Z]/); // starts with a common word: safe to lower-case when joined
        expect(() => JSON.stringify(fn.simulate(s.args, new Rng(k)))).not.toThrow();
      }
      expect(requests.size, `${fn.tool.function.name} wording varies`).toBeGreaterThanOrEqual(3);
    }
  });

  it('categories have the promised shape', () => {
    for (let i = 0; i < 100; i++) {
      for (const category of GENERATED_CATEGORIES) {
        const t = generateFunctionCallingTask(8, i, 'train', { category });
        const offered = t.tools.map((x) => x.function.name);
        const expected = t.groundTruth.map((g) => Object.keys(g)[0]);
        for (const name of expected) expect(offered).toContain(name);
        if (category === 'simple') expect([offered.length, expected.length]).toEqual([1, 1]);
        if (category === 'multiple') {
          expect(expected).toHaveLength(1);
          expect(offered.length).toBeGreaterThanOrEqual(3);
        }
        if (category === 'parallel') {
          expect(expected.length).toBeGreaterThanOrEqual(2);
          expect(new Set(expected).size).toBe(1);
        }
        if (category === 'parallel_multiple') {
          expect(expected.length).toBeGreaterThanOrEqual(2);
          expect(expected.length).toBeLessThanOrEqual(4);
          expect(new Set(expected).size).toBeGreaterThanOrEqual(2);
        }
        if (category === 'irrelevance') {
          expect(t.groundTruth).toEqual([]);
          expect(offered.length).toBeGreaterThanOrEqual(1);
        }
        expect(t.check).toBe(category === 'parallel_multiple' ? 'parallel' : category);
      }
    }
  });

  it('irrelevance tool sets never include an API of the requested domain', () => {
    const rng = new Rng(9);
    for (const wanted of CATALOGUE) {
      for (let k = 0; k < 30; k++) {
        const offered = toolsUnrelatedTo(rng, wanted);
        expect(offered.length).toBeGreaterThanOrEqual(1);
        for (const f of offered) expect(f.domain).not.toBe(wanted.domain);
      }
    }
  });

  it('unseen-tools sets ask only for held-out functions; seen-tools tasks never offer one; no train split', () => {
    const heldOut = new Set([...UNSEEN_TOOL_NAMES.validation, ...UNSEEN_TOOL_NAMES.test]);
    expect(TRAIN_TOOLS.length + heldOut.size).toBe(CATALOGUE.length);
    for (let i = 0; i < 300; i++) {
      for (const split of SPLITS) {
        const t = generateFunctionCallingTask(4, i, split);
        for (const tool of t.tools) expect(heldOut.has(tool.function.name), `${split} task offers ${tool.function.name}`).toBe(false);
      }
      for (const split of ['validation', 'test'] as const) {
        const t = generateFunctionCallingTask(4, i, split, { tools: 'unseen' });
        const other = split === 'test' ? UNSEEN_TOOL_NAMES.validation : UNSEEN_TOOL_NAMES.test;
        for (const tool of t.tools) expect(other.includes(tool.function.name), `${split} unseen task offers ${tool.function.name}`).toBe(false);
        for (const call of t.groundTruth) expect(UNSEEN_TOOL_NAMES[split]).toContain(Object.keys(call)[0]);
        if (t.category === 'irrelevance') expect(t.tools.some((x) => UNSEEN_TOOL_NAMES[split].includes(x.function.name))).toBe(true);
      }
    }
    expect(() => generateFunctionCallingTask(4, 0, 'train', { tools: 'unseen' })).toThrow(/unseen-tools set has no train split/);
  });
});
