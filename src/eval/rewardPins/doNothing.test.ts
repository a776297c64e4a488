// The do-nothing baseline as an evaluation report shows it, per family and per category: 0 success
// and 0 reward everywhere. The never-call agent that writes a sentence is the one exception, by
// design (BFCL's irrelevance): it solves irrelevance and nothing else, which is why reports show
// results per category beside this baseline.
import { describe, expect, it } from 'vitest';
import { allFamilies } from '../../data/families';
import { routingFamily } from '../../envs/functionCalling/family';
import type { EnvFamily } from '../../envs/types';
import { evaluate, samePolicy } from '../evaluate';
import { formatEvalTable } from '../formatReport';

const families: [string, EnvFamily][] = [...allFamilies().map((f) => [f.name, f] as [string, EnvFamily]), ['routing', routingFamily as EnvFamily]];

describe('do-nothing baseline in evaluation reports', () => {
  it.each(families)('%s: "ok" every turn scores 0 in every category', async (_name, family) => {
    const r = await evaluate(family, samePolicy(async () => 'ok'), { n: 14, seed: 3 });
    expect(r.byCategory.length).toBeGreaterThan(0);
    for (const c of r.byCategory) expect({ category: c.category, success: c.successRate, reward: c.meanTotal }).toEqual({ category: c.category, success: 0, reward: 0 });
    expect(r.meanTotal).toBe(0);
  });

  it('function-calling mix: a never-call agent that writes a sentence solves irrelevance only', async () => {
    const family = allFamilies().find((f) => f.name === 'function-calling')!;
    const r = await evaluate(family, samePolicy(async () => 'I cannot help with that request.'), { n: 40, seed: 3 });
    for (const c of r.byCategory) expect([c.category, c.successRate, c.meanTotal]).toEqual([c.category, c.category === 'irrelevance' ? 1 : 0, c.category === 'irrelevance' ? 1 : 0]);
    console.log(formatEvalTable([r]));
  });
});
