// Requests rebuilt from a frame and a cue (requestFrames.ts): values and expected calls unchanged,
// every cue is words of its own tool's train phrasings and of no other tool's, no framed phrasing
// is a held-out phrasing or one word from its tool's; the experts' SFT data on them is verified.
import { describe, expect, it } from 'vitest';
import { ROUTING_FAMILIES } from '../envs/functionCalling/family';
import { generateRoutingTask } from '../envs/functionCalling/routingTask';
import { ROUTING_TEMPLATES } from '../envs/functionCalling/routingTemplates';
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import { syntheticSftDocs } from '../pipeline/sftData';
import { ByteTokenizer } from '../tokenizer';
import { defaultRenderer } from '../train/rl/rollout';
import { Rng } from '../util/rng';
import { FRAMED_PHRASINGS, phrasingWords, REQUEST_FRAMES, TOOL_CUES, withFramedRequest, wordDistance } from './requestFrames';
import { readsAsHeldOut } from './requestEdits';

const request = (t: FunctionCallingTask) => t.question[0].content as string;
const contains = (phrasing: string, cue: string) => ` ${phrasingWords(phrasing)} `.includes(` ${phrasingWords(cue)} `);

describe('framed requests', () => {
  it('every cue is words of its tool\'s train phrasings and of no other tool\'s', () => {
    expect(Object.keys(TOOL_CUES).sort()).toEqual(Object.keys(ROUTING_TEMPLATES).sort());
    for (const [tool, cues] of Object.entries(TOOL_CUES)) {
      for (const cue of cues) {
        expect(ROUTING_TEMPLATES[tool].train.some((p) => contains(p, cue)), `${tool}: "${cue}"`).toBe(true);
        for (const [other, lists] of Object.entries(ROUTING_TEMPLATES)) {
          if (other !== tool) expect(lists.train.some((p) => contains(p, cue)), `"${cue}" in ${other}'s train phrasings`).toBe(false);
        }
      }
    }
  });

  it('word distance and phrasing words (worked out by hand)', () => {
    expect(phrasingWords('{x}: Definition?')).toBe('xslotx definition');
    expect(wordDistance('xslotx forecast', 'xslotx forecast today')).toBe(1);
    expect(wordDistance('need the weather for xslotx', 'weather in xslotx')).toBe(3);
    expect(wordDistance('a b c', 'a b c')).toBe(0);
  });

  it('no framed phrasing is a held-out phrasing of any tool, one word from one of its own tool\'s, or a train phrasing', () => {
    const heldOut = Object.values(ROUTING_TEMPLATES).flatMap((l) => [...l.validation, ...l.test]);
    let total = 0;
    for (const [tool, phrasings] of FRAMED_PHRASINGS) {
      expect(phrasings.length, tool).toBeGreaterThanOrEqual(12);
      total += phrasings.length;
      const own = [...ROUTING_TEMPLATES[tool].validation, ...ROUTING_TEMPLATES[tool].test].map(phrasingWords);
      const train = ROUTING_TEMPLATES[tool].train.map(phrasingWords);
      for (const p of phrasings) {
        expect(p.split('{x}').length, p).toBe(2);
        expect(heldOut.map(phrasingWords)).not.toContain(phrasingWords(p));
        expect(train).not.toContain(phrasingWords(p));
        for (const h of own) expect(wordDistance(phrasingWords(p), h), `${p} ~ ${h}`).toBeGreaterThan(1);
        expect(readsAsHeldOut(p.replace('{x}', 'Lima')), p).toBe(false);
        expect(TOOL_CUES[tool].some((c) => contains(p, c)), p).toBe(true);
      }
    }
    // the filter bites: "{x} forecast" is one word from the validation "{x} forecast today?"
    expect(FRAMED_PHRASINGS.get('weather')).not.toContain('{x} forecast');
    expect(FRAMED_PHRASINGS.get('weather')).toContain('weather for {x}?');
    console.log(`framed phrasings: ${total} over ${FRAMED_PHRASINGS.size} tools (${REQUEST_FRAMES.length} frames)`);
  });

  it('keep the value and the expected call, use every frame of the tool, leave two-call tasks alone; deterministic', () => {
    for (const level of ['route4', 'route8'] as const) {
      const rng = new Rng(5);
      const used = new Set<string>();
      for (let i = 0; i < 3000; i++) {
        const task = generateRoutingTask(1, i, 'train', level);
        const f = withFramedRequest(task, rng);
        expect(f).not.toBe(task);
        expect(f.groundTruth).toEqual(task.groundTruth);
        expect(f.tools).toEqual(task.tools);
        const [tool, args] = Object.entries(task.groundTruth[0])[0];
        const value = Object.values(args).flat()[0] as string;
        const phrasing = FRAMED_PHRASINGS.get(tool)!.find((p) => p.replace('{x}', value) === request(f));
        expect(phrasing, `${request(f)} for ${tool}`).toBeDefined();
        used.add(phrasing!);
      }
      if (level === 'route4') expect(used.size).toBe(['weather', 'time', 'price', 'define'].reduce((n, t) => n + FRAMED_PHRASINGS.get(t)!.length, 0));
    }
    const two = Array.from({ length: 60 }, (_, i) => generateRoutingTask(1, i, 'train', 'route8-multi')).find((t) => t.groundTruth.length === 2)!;
    expect(withFramedRequest(two, new Rng(1))).toBe(two);
    const t = generateRoutingTask(1, 3, 'train');
    expect(request(withFramedRequest(t, new Rng(9)))).toBe(request(withFramedRequest(t, new Rng(9))));
  });

  it('SFT data with framed requests: the share asked for, every conversation verified by the expert', async () => {
    const tok = new ByteTokenizer();
    const { docs, report } = await syntheticSftDocs(ROUTING_FAMILIES.route4, 200, 1, tok, defaultRenderer(tok), 768, undefined, { framedRequests: 0.5 });
    expect(docs.length).toBe(200);
    expect(report.framedRequests).toBeGreaterThan(70);
    expect(report.framedRequests).toBeLessThan(130);
    expect(report.rejected).toBe(0);
    const plain = await syntheticSftDocs(ROUTING_FAMILIES.route4, 200, 1, tok, defaultRenderer(tok), 768);
    expect(plain.report.framedRequests).toBeUndefined();
  });
});
