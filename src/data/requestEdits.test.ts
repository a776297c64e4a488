// Word edits of routing requests (requestEdits.ts): values and expected calls unchanged, a tool's own
// cue words never deleted, every word from the train phrasings, no edited request reads as a
// validation or test phrasing; the experts' SFT data on edited requests is verified like any other.
import { describe, expect, it } from 'vitest';
import { functionCallingFamily, ROUTING_FAMILIES } from '../envs/functionCalling/family';
import { generateRoutingTask } from '../envs/functionCalling/routingTask';
import { ROUTING_TEMPLATES } from '../envs/functionCalling/routingTemplates';
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import { syntheticSftDocs } from '../pipeline/sftData';
import { ByteTokenizer } from '../tokenizer';
import { defaultRenderer } from '../train/rl/rollout';
import { Rng } from '../util/rng';
import { readsAsHeldOut, sharedWords, withEditedRequest } from './requestEdits';

const request = (t: FunctionCallingTask) => t.question[0].content as string;
const values = (t: FunctionCallingTask) => t.groundTruth.flatMap((c) => Object.values(c).flatMap((a) => Object.values(a).flat())) as string[];
/** The request's words other than its values, lower case, letters only. */
const words = (t: FunctionCallingTask) => values(t).reduce((r, v) => r.split(v).join(' '), request(t)).toLowerCase().split(/[^a-z]+/).filter((w) => w);
const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());

describe('edited requests', () => {
  it('shared words are the words of two or more tools\' train phrasings (route4, worked out by hand)', () => {
    expect(sharedWords(['weather', 'time', 'price', 'define'])).toEqual(['current', 'for', 'how', 'in', 'is', 'it', 'of', 'what']);
    expect(sharedWords(['weather', 'no-such-tool'])).toBeNull();
  });

  it('keep values and calls, never delete a cue word, use train words only, never read as a held-out phrasing', () => {
    const rng = new Rng(7);
    for (const level of ['route4', 'route8'] as const) {
      const tools = ROUTING_FAMILIES[level].generateTask(1, 0, 'train').tools.map((t) => t.function.name);
      const shared = new Set(sharedWords(tools));
      const trainWords = new Set(tools.flatMap((t) => ROUTING_TEMPLATES[t].train.join(' ').toLowerCase().split(/[^a-z]+/)));
      let changed = 0;
      for (let i = 0; i < 500; i++) {
        const task = generateRoutingTask(1, i, 'train', level);
        const e = withEditedRequest(task, rng);
        expect(e.groundTruth).toEqual(task.groundTruth);
        expect(e.tools).toEqual(task.tools);
        if (e === task) continue;
        changed++;
        expect(request(e)).not.toBe(request(task));
        for (const v of values(task)) expect(request(e).split(v).length, `${request(task)} → ${request(e)}`).toBe(request(task).split(v).length);
        expect(readsAsHeldOut(request(e)), request(e)).toBe(false);
        const [before, after] = [count(words(task)), count(words(e))];
        for (const [w, n] of before) if (!shared.has(w)) expect(after.get(w) ?? 0, `cue "${w}": ${request(task)} → ${request(e)}`).toBe(n);
        for (const w of after.keys()) expect(trainWords.has(w), `"${w}" in ${request(e)}`).toBe(true);
      }
      expect(changed).toBeGreaterThan(450); // nearly every request gets its edit
    }
  });

  it('reads held-out phrasings as held out, train phrasings not', () => {
    expect(readsAsHeldOut('is it sunny in Lima?')).toBe(true);
    expect(readsAsHeldOut('what is the meaning of kite?')).toBe(true);
    expect(readsAsHeldOut('is it raining in Lima?')).toBe(false);
    for (const t of Object.values(ROUTING_TEMPLATES)) for (const p of t.train) expect(readsAsHeldOut(p.replace('{x}', 'Lima')), p).toBe(false);
    // "call {x}" is one inserted "please" away from the validation phrasing "please call {x}": never produced
    const call = Array.from({ length: 400 }, (_, i) => generateRoutingTask(1, i, 'train', 'route8')).find((t) => /^call \w+$/.test(request(t)))!;
    const edits = Array.from({ length: 1500 }, (_, i) => request(withEditedRequest(call, new Rng(i))));
    expect(edits.filter(readsAsHeldOut)).toEqual([]);
    expect(new Set(edits).size).toBeGreaterThan(20);
  });

  it('leave two-call and non-routing tasks alone', () => {
    let two = 0;
    for (let i = 0; i < 60; i++) {
      const task = generateRoutingTask(1, i, 'train', 'route8-multi');
      if (task.groundTruth.length < 2) continue;
      two++;
      expect(withEditedRequest(task, new Rng(i))).toBe(task);
    }
    expect(two).toBeGreaterThan(5);
    const bfcl = functionCallingFamily.generateTask(1, 0, 'train');
    expect(withEditedRequest(bfcl, new Rng(1))).toBe(bfcl);
  });

  it('SFT data with edited requests: all verified by the expert replay; the share is about as asked', async () => {
    const tok = new ByteTokenizer();
    const all = await syntheticSftDocs(ROUTING_FAMILIES.route4, 64, 11, tok, defaultRenderer(tok), 512, { maxTurns: 2 }, { editedRequests: 1 });
    expect(all.report.rejected).toBe(0);
    expect(all.report.editedRequests).toBeGreaterThan(58);
    expect(all.docs).toHaveLength(64);
    const half = await syntheticSftDocs(ROUTING_FAMILIES.route4, 64, 11, tok, defaultRenderer(tok), 512, { maxTurns: 2 }, { editedRequests: 0.5 });
    expect(half.report.editedRequests).toBeGreaterThan(16);
    expect(half.report.editedRequests).toBeLessThan(48);
    // adding edits leaves the other augmentations' choices as they were
    const wrapped = await syntheticSftDocs(ROUTING_FAMILIES.route4, 64, 11, tok, defaultRenderer(tok), 512, { maxTurns: 2 }, { wrappedRequests: 0.5 });
    const both = await syntheticSftDocs(ROUTING_FAMILIES.route4, 64, 11, tok, defaultRenderer(tok), 512, { maxTurns: 2 }, { wrappedRequests: 0.5, editedRequests: 0.5 });
    expect(both.report.wrappedRequests).toBe(wrapped.report.wrappedRequests);
  });
});
