import { describe, expect, it } from 'vitest';
import { parseToolCalls } from '../tokenizer/toolCalls';
import { BROKEN_CALL_TEXT, formatBreakingPolicy, randomPolicy } from './baselinePolicies';
import { FAKE_TOOLS } from './fakeFamily';

describe('baseline policies', () => {
  it('the format breaker always sends a call the parser rejects', async () => {
    const policy = formatBreakingPolicy();
    expect(await policy([], FAKE_TOOLS)).toBe(BROKEN_CALL_TEXT);
    const parsed = parseToolCalls(BROKEN_CALL_TEXT);
    expect(parsed.attemptedCall).toBe(true);
    expect(parsed.calls).toHaveLength(0);
    expect(parsed.errors.length).toBeGreaterThan(0);
  });

  it('the random policy is seeded, well-formed, and mixes calls of offered tools with prose', async () => {
    const run = async (seed: number) => {
      const p = randomPolicy(seed);
      const out: string[] = [];
      for (let i = 0; i < 40; i++) out.push(await p([], FAKE_TOOLS));
      return out;
    };
    const a = await run(7);
    expect(await run(7)).toEqual(a);
    expect(await run(8)).not.toEqual(a);
    const parsed = a.map(parseToolCalls);
    expect(parsed.every((p) => p.errors.length === 0)).toBe(true);
    const calls = parsed.filter((p) => p.calls.length > 0);
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.length).toBeLessThan(40);
    expect(calls.every((p) => p.calls[0].name === 'calculate')).toBe(true);
  });
});
