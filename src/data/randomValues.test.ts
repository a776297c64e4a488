// Random argument values (randomValues.ts): the request and the expected calls get the same fresh
// value of the same shape, never a routing pool value of any split; the experts' SFT data on such
// tasks is verified (full reward) like any other.
import { describe, expect, it } from 'vitest';
import { ROUTING_FAMILIES } from '../envs/functionCalling/family';
import { ROUTING_VALUE_POOLS } from '../envs/functionCalling/routingPools';
import { generateRoutingTask } from '../envs/functionCalling/routingTask';
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import { syntheticSftDocs } from '../pipeline/sftData';
import { ByteTokenizer } from '../tokenizer';
import { defaultRenderer } from '../train/rl/rollout';
import { Rng } from '../util/rng';
import { valueLike, withRandomValues } from './randomValues';

const POOL = new Set(Object.values(ROUTING_VALUE_POOLS).flat().map((v) => v.toLowerCase()));
const shape = (v: string) => v.split(' ').map((w) => (w.length > 1 && w === w.toUpperCase() ? 'CODE' : w[0] === w[0].toUpperCase() ? 'Cap' : 'low')).join(' ');
const values = (t: FunctionCallingTask) => t.groundTruth.flatMap((c) => Object.values(c).flatMap((a) => Object.values(a).flat())) as string[];
const request = (t: FunctionCallingTask) => t.question.map((m) => m.content).join('\n');

describe('random argument values', () => {
  it('replace every value in the request and the expected calls alike, keep the shape, never a pool value', () => {
    const rng = new Rng(5);
    for (const level of ['route4', 'route8', 'route8-multi'] as const) {
      for (let i = 0; i < 300; i++) {
        const task = generateRoutingTask(1, i, 'train', level);
        const swapped = withRandomValues(task, rng);
        const [before, after] = [values(task), values(swapped)];
        expect(after).toHaveLength(before.length);
        for (const [k, v] of after.entries()) {
          expect(v).not.toBe(before[k]);
          expect(shape(v)).toBe(shape(before[k]));
          expect(POOL.has(v.toLowerCase())).toBe(false);
          expect(request(swapped)).toContain(v);
          expect(request(swapped)).not.toMatch(new RegExp(`(?<![A-Za-z])${before[k]}(?![A-Za-z])`));
        }
        // the phrasing around the values is the train phrasing
        const blanked = (t: FunctionCallingTask, vs: string[]) => vs.reduce((r, v) => r.replace(v, '{x}'), request(t));
        expect(blanked(swapped, after)).toBe(blanked(task, before));
        expect(swapped.tools).toEqual(task.tools);
      }
    }
    // seeded
    expect(valueLike('Lima', new Rng(3))).toBe(valueLike('Lima', new Rng(3)));
    // a task whose values are not in its request, or not words, is left alone
    const odd: FunctionCallingTask = { ...generateRoutingTask(1, 0, 'train'), groundTruth: [{ time: { city: ['Nowhere'] } }] };
    expect(withRandomValues(odd, new Rng(1))).toBe(odd);
  });

  it('SFT data with every routing example randomised: all verified by the expert replay, no call argument from any pool', async () => {
    const tok = new ByteTokenizer();
    const { docs, report } = await syntheticSftDocs(ROUTING_FAMILIES.route4, 64, 11, tok, defaultRenderer(tok), 512, { maxTurns: 2 }, { randomValues: 1 });
    expect(report.randomValues).toBe(64);
    expect(report.rejected).toBe(0);
    expect(docs).toHaveLength(64);
    for (const d of docs) {
      const args = [...tok.decode(d.ids).matchAll(/"arguments": (\{[^}]*\})/g)].map((m) => Object.values(JSON.parse(m[1]) as Record<string, string>));
      expect(args).toHaveLength(1);
      for (const v of args.flat()) expect(POOL.has(v.toLowerCase()), v).toBe(false);
    }
    // half: about half randomised, the rest keep train-pool values
    const half = await syntheticSftDocs(ROUTING_FAMILIES.route4, 64, 11, tok, defaultRenderer(tok), 512, { maxTurns: 2 }, { randomValues: 0.5 });
    expect(half.report.randomValues).toBeGreaterThan(16);
    expect(half.report.randomValues).toBeLessThan(48);
  });
});
