// Requests wrapped in small talk (requestWrappers.ts): the request inside is unchanged and so are the
// expected calls; no wrapped train phrasing is a validation or test phrasing.
import { describe, expect, it } from 'vitest';
import { generateRoutingTask } from '../envs/functionCalling/routingTask';
import { ROUTING_TEMPLATES } from '../envs/functionCalling/routingTemplates';
import { Rng } from '../util/rng';
import { REQUEST_WRAPPERS, withWrappedRequest } from './requestWrappers';

describe('wrapped requests', () => {
  it('keep the request and the expected calls; every wrapper is used; no wrapped train phrasing is a held-out one', () => {
    const rng = new Rng(2);
    const used = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const task = generateRoutingTask(1, i, 'train', 'route8');
      const w = withWrappedRequest(task, rng);
      const [before, after] = [task.question[0].content as string, w.question[0].content as string];
      expect(after).toContain(before);
      expect(after.length).toBeGreaterThan(before.length);
      expect(w.groundTruth).toEqual(task.groundTruth);
      used.add(REQUEST_WRAPPERS.find((x) => x.replace('{r}', before) === after)!);
    }
    expect(used.size).toBe(REQUEST_WRAPPERS.length);
    const heldOut = new Set(Object.values(ROUTING_TEMPLATES).flatMap((t) => [...t.validation, ...t.test]));
    for (const t of Object.values(ROUTING_TEMPLATES)) {
      for (const phrasing of t.train) for (const x of REQUEST_WRAPPERS) expect(heldOut.has(x.replace('{r}', phrasing))).toBe(false);
    }
  });
});
