import { describe, expect, it } from 'vitest';
import { ByteTokenizer, encodePrompt, formatToolCalls, withCompactTools } from '../../tokenizer';
import { SPLITS } from '../splits';
import { canonicalCall } from './expertPolicy';
import { ROUTING_FAMILIES } from './family';
import { ROUTING_VALUE_POOLS, ROUTING_VALUES, type RoutingValueType } from './routingPools';
import { compactToolSignatures, generateRoutingTask, MULTI_CALL_SHARE, ROUTING_LEVEL_TOOLS, ROUTING_LEVELS, ROUTING_TOOLS, type RoutingLevel } from './routingTask';
import { ROUTING_JOINERS, ROUTING_TEMPLATES } from './routingTemplates';

const TYPES = Object.keys(ROUTING_VALUE_POOLS) as RoutingValueType[];

/** The best rule that sees only the value's type (the argument's name): the majority tool per type, over n test tasks of seed 3. */
function bestValueTypeRule(level: RoutingLevel, n: number): number {
  const byType = new Map<string, Map<string, number>>();
  for (let i = 0; i < n; i++) {
    const t = generateRoutingTask(3, i, 'test', level);
    const [name] = Object.keys(t.groundTruth[0]);
    const param = Object.keys(t.groundTruth[0][name])[0];
    const counts = byType.get(param) ?? new Map<string, number>();
    counts.set(name, (counts.get(name) ?? 0) + 1);
    byType.set(param, counts);
  }
  return [...byType.values()].reduce((s, counts) => s + Math.max(...counts.values()), 0) / n;
}

describe('routing task sets', () => {
  it('are deterministic per (level, seed, index, split) and reject unknown splits and levels', () => {
    for (const level of ROUTING_LEVELS) {
      for (let i = 0; i < 20; i++) expect(generateRoutingTask(5, i, 'test', level)).toEqual(generateRoutingTask(5, i, 'test', level));
    }
    expect(() => generateRoutingTask(1, 0, 'heldout' as never)).toThrow(/unknown split "heldout".*'validation' for tuning/);
    expect(() => generateRoutingTask(1, 0, 'train', 'route5' as never)).toThrow(/unknown level "route5"; use one of route4, route8, route8-multi, route4b/);
  });

  it('value pools: ≥ 100 per type, pairwise disjoint types, cut 70/15/15 into disjoint splits', () => {
    const all = new Map<string, RoutingValueType>();
    for (const type of TYPES) {
      const pool = ROUTING_VALUE_POOLS[type];
      expect(pool.length, type).toBeGreaterThanOrEqual(100);
      for (const v of pool) {
        expect(all.get(v.toLowerCase()), `${v} is both ${all.get(v.toLowerCase())} and ${type}`).toBeUndefined();
        all.set(v.toLowerCase(), type);
        expect(v.length, v).toBeLessThanOrEqual(12);
      }
      const parts = ROUTING_VALUES[type];
      expect(parts.train.length + parts.validation.length + parts.test.length).toBe(pool.length);
      expect(parts.test.length / pool.length).toBeCloseTo(0.15, 1);
      expect(parts.validation.length / pool.length).toBeCloseTo(0.15, 1);
      const train = new Set(parts.train);
      for (const v of [...parts.validation, ...parts.test]) expect(train.has(v), v).toBe(false);
      for (const v of parts.test) expect(parts.validation.includes(v), v).toBe(false);
    }
  });

  it('phrasings: ≥ 6 train, ≥ 6 validation, ≥ 2 test per tool, all different', () => {
    for (const tool of ROUTING_LEVEL_TOOLS.route8) {
      const t = ROUTING_TEMPLATES[tool.tool.function.name];
      expect(t.train.length).toBeGreaterThanOrEqual(6);
      expect(t.validation.length).toBeGreaterThanOrEqual(6);
      expect(t.test.length).toBeGreaterThanOrEqual(2);
      const every = [...t.train, ...t.validation, ...t.test];
      expect(new Set(every).size).toBe(every.length);
      for (const s of every) expect(s.split('{x}')).toHaveLength(2);
    }
    const joiners = [...ROUTING_JOINERS.train, ...ROUTING_JOINERS.validation, ...ROUTING_JOINERS.test];
    expect(new Set(joiners).size).toBe(joiners.length);
  });

  it('every task: the level\'s tools, the value in the request, the expert solves it (whole call)', async () => {
    for (const level of ROUTING_LEVELS) {
      const family = ROUTING_FAMILIES[level];
      for (const split of SPLITS) {
        for (let i = 0; i < 40; i++) {
          const t = family.generateTask(2, i, split);
          expect(t.tools.map((x) => x.function.name)).toEqual(ROUTING_LEVEL_TOOLS[level].map((r) => r.tool.function.name));
          for (const call of t.groundTruth) for (const [value] of Object.values(Object.values(call)[0]) as string[][]) expect(t.question[0].content).toContain(value);
          const env = family.createEnv();
          const { messages, tools } = env.reset(t);
          const step = await env.step(await family.expertPolicy(t, i)(messages, tools));
          expect([step.done, step.info.success, step.reward.components.exact_match]).toEqual([true, true, 1]);
        }
      }
    }
  });

  it('records the phrasings a request was written from: one per call, from the split\'s own list', () => {
    for (const level of ROUTING_LEVELS) {
      for (const split of SPLITS) {
        for (let i = 0; i < 60; i++) {
          const t = generateRoutingTask(4, i, split, level);
          expect(t.phrasings, t.id).toHaveLength(t.groundTruth.length);
          t.groundTruth.forEach((call, j) => {
            const [name] = Object.keys(call);
            const [value] = Object.values(call[name])[0] as string[];
            const phrasing = t.phrasings![j];
            expect(ROUTING_TEMPLATES[name][split], `${t.id}: ${phrasing}`).toContain(phrasing);
            // the request holds the phrasing with the call's value in it (a joined request drops a first '?')
            expect(t.question[0].content, t.id).toContain(phrasing.replace('{x}', value).replace(/\?$/, ''));
          });
        }
      }
    }
  });

  it('route4b: none of route4\'s tools, all of them route8\'s; a value-type rule reaches ~75 % as on route4', () => {
    const names = (level: 'route4' | 'route4b' | 'route8') => ROUTING_LEVEL_TOOLS[level].map((r) => r.tool.function.name);
    expect(names('route4b').filter((x) => names('route4').includes(x))).toEqual([]);
    expect(names('route4b').every((x) => names('route8').includes(x))).toBe(true);
    const best = bestValueTypeRule('route4b', 2000);
    expect(best).toBeGreaterThan(0.7);
    expect(best).toBeLessThan(0.8);
  });

  it('route8: no value-type rule beats ~50 %; route8-multi asks for two different tools in ~35 % of requests', () => {
    const n = 2000;
    const best = bestValueTypeRule('route8', n);
    expect(best).toBeLessThan(0.55);
    let multi = 0;
    for (let i = 0; i < n; i++) {
      const t = generateRoutingTask(3, i, 'train', 'route8-multi');
      if (t.groundTruth.length === 1) continue;
      multi++;
      expect([t.category, t.check]).toEqual(['route_multi', 'parallel']);
      expect(new Set(t.groundTruth.map((g) => Object.keys(g)[0])).size).toBe(2);
    }
    expect(multi / n).toBeCloseTo(MULTI_CALL_SHARE, 1);
  });

  it('fits a nano context: byte tokens per prompt (compact tools) and per call, measured and printed', () => {
    const tok = new ByteTokenizer();
    const limits = { route4: { prompt: 230, call: 64 }, route8: { prompt: 270, call: 64 }, 'route8-multi': { prompt: 310, call: 124 }, route4b: { prompt: 230, call: 64 } };
    for (const level of ROUTING_LEVELS) {
      const family = ROUTING_FAMILIES[level];
      let maxPrompt = 0;
      let maxCall = 0;
      let sum = 0;
      const n = 600;
      for (const split of SPLITS) {
        for (let i = 0; i < n / 3; i++) {
          const t = family.generateTask(1, i, split);
          const opening = family.createEnv().reset(t);
          const shown = withCompactTools(opening.messages, opening.tools);
          const prompt = encodePrompt(tok, shown.messages, shown.tools, {}).ids.length;
          const call = tok.encode(formatToolCalls(t.groundTruth.map((g) => canonicalCall(g, t.tools)))).length + 1; // + <|im_end|>
          maxPrompt = Math.max(maxPrompt, prompt);
          maxCall = Math.max(maxCall, call);
          sum += prompt;
        }
      }
      console.log(`${level}: prompt ≤ ${maxPrompt} byte tokens (mean ${(sum / n).toFixed(0)}), call ≤ ${maxCall} tokens incl. <|im_end|> (n = ${n})`);
      expect(maxPrompt).toBeLessThanOrEqual(limits[level].prompt);
      expect(maxCall).toBeLessThanOrEqual(limits[level].call);
    }
    expect(compactToolSignatures(ROUTING_TOOLS).split('\n')[0]).toBe('weather(city): Weather in a city');
  });
});
