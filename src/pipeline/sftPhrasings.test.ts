// SFT data limited to demonstrated phrasings (config data.phrasings, `--sft-phrasings K`): only
// routing requests of the first K train phrasings per tool are demonstrated; the rest of the train
// phrasings stay for RL tasks. Checked on the decoded SFT conversations themselves.
import { describe, expect, it } from 'vitest';
import { functionCallingFamily, ROUTING_FAMILIES } from '../envs/functionCalling/family';
import { demonstratedPhrasings, ROUTING_TEMPLATES } from '../envs/functionCalling/routingTemplates';
import { ByteTokenizer } from '../tokenizer';
import { defaultRenderer } from '../train/rl/rollout';
import { parsePipelineConfig, PIPELINE_CONFIG_VERSION } from './config';
import { syntheticSftDocs } from './sftData';

/** A phrasing as a whole-request pattern ({x} = any value). */
const pattern = (phrasing: string) => new RegExp(`^${phrasing.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace('\\{x\\}', '.+').replace('{x}', '.+')}$`);

/** The user request of one encoded routing conversation (byte tokenizer, Qwen3 chat format). */
function userRequest(text: string): string {
  const m = /<\|im_start\|>user\n([\s\S]*?)<\|im_end\|>/.exec(text);
  if (!m) throw new Error(`no user turn in ${JSON.stringify(text.slice(0, 200))}`);
  return m[1];
}

describe('SFT data with demonstrated phrasings', () => {
  it('demonstratedPhrasings(K) is the first K train phrasings of every tool, never a held-out one', () => {
    const four = demonstratedPhrasings(4);
    const tools = Object.keys(ROUTING_TEMPLATES);
    expect(four.size).toBe(4 * tools.length);
    expect(four.has('weather in {x}?')).toBe(true);
    expect(four.has('forecast for {x}')).toBe(true);
    expect(four.has('how warm is {x}?')).toBe(false); // weather's fifth
    expect(four.has('temperature in {x}?')).toBe(false);
    for (const lists of Object.values(ROUTING_TEMPLATES)) {
      for (const p of [...lists.validation, ...lists.test]) expect(four.has(p)).toBe(false);
    }
    expect(demonstratedPhrasings(8).size).toBe(tools.reduce((n, t) => n + ROUTING_TEMPLATES[t].train.length, 0));
    expect(() => demonstratedPhrasings(0)).toThrow(/k must be a whole number ≥ 1/);
  });

  it('phrasings 4: every kept request is one of the four demonstrated phrasings of its tool; the others are passed over', async () => {
    const tok = new ByteTokenizer();
    const n = 120;
    const { docs, report } = await syntheticSftDocs(ROUTING_FAMILIES.route4, n, 1, tok, defaultRenderer(tok), 768, undefined, { phrasings: 4 });
    expect(docs.length).toBe(n);
    expect(report.rejected).toBe(0);
    // half of route4's train phrasings are left out, so about as many tasks are passed over as kept
    expect(report.undemonstrated).toBeGreaterThan(n / 2);
    expect(report.undemonstrated).toBeLessThan(n * 2);
    const shown = [...demonstratedPhrasings(4)].map(pattern);
    const hidden = Object.values(ROUTING_TEMPLATES).flatMap((l) => l.train.slice(4)).map(pattern);
    const seen = new Set<number>();
    for (const d of docs) {
      const request = userRequest(tok.decode(d.ids));
      const i = shown.findIndex((re) => re.test(request));
      expect(i, request).toBeGreaterThanOrEqual(0);
      seen.add(i);
      expect(hidden.some((re) => re.test(request)), `${request} reads as an undemonstrated phrasing`).toBe(false);
    }
    // the four route4 tools' demonstrated phrasings all occur (16 of them)
    expect(seen.size).toBe(16);
    // without the option: nothing passed over, and undemonstrated phrasings occur
    const all = await syntheticSftDocs(ROUTING_FAMILIES.route4, n, 1, tok, defaultRenderer(tok), 768);
    expect(all.report.undemonstrated).toBeUndefined();
    expect(all.docs.some((d) => hidden.some((re) => re.test(userRequest(tok.decode(d.ids)))))).toBe(true);
  });

  it('refuses tasks without routing phrasings, naming the option', async () => {
    const tok = new ByteTokenizer();
    await expect(syntheticSftDocs(functionCallingFamily, 4, 1, tok, defaultRenderer(tok), 4096, undefined, { phrasings: 4 })).rejects.toThrow(/routing task sets only/);
  });

  it('the config field is validated (a whole number ≥ 1, routing task sets only)', () => {
    const cfg = (phrasings: unknown, tasks: unknown[] = [{ family: 'function-calling', level: 'route4', weight: 1 }]) => ({
      version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 1, tasks, context: { maxTotalTokens: 384, maxNewTokensPerTurn: 16, maxTurns: 1 },
      stages: [{ kind: 'sft', data: { source: 'synthetic', examples: 8, phrasings }, steps: 1, batchSize: 1, lr: 0.001 }],
    });
    expect(parsePipelineConfig(cfg(4)).stages[0]).toMatchObject({ data: { phrasings: 4 } });
    expect(() => parsePipelineConfig(cfg(0))).toThrow(/phrasings/);
    expect(() => parsePipelineConfig(cfg(2.5))).toThrow(/phrasings/);
    // only routing task sets have phrasings: refused before the run, naming the task set
    expect(() => parsePipelineConfig(cfg(4, [{ family: 'function-calling', level: 'route4', weight: 1 }, { family: 'service', level: 'status', weight: 1 }]))).toThrow(/stages\.0\.data\.phrasings: demonstrated phrasings exist for the routing task sets only .*service\/status has none/);
    expect(() => parsePipelineConfig(cfg(4, [{ family: 'function-calling', weight: 1 }]))).toThrow(/function-calling has none/);
    expect(parsePipelineConfig(cfg(4, [{ family: 'function-calling', level: 'route4b', weight: 1 }, { family: 'service', level: 'status', weight: 0 }])).stages[0]).toMatchObject({ data: { phrasings: 4 } });
  });
});
