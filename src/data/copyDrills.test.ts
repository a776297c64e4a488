import { describe, expect, it } from 'vitest';
import { ROUTING_VALUE_POOLS } from '../envs/functionCalling/routingPools';
import { parseToolCalls } from '../tokenizer/toolCalls';
import { copyDrills } from './copyDrills';

describe('copy drills', () => {
  it('echo the user\'s string in a well-formed call, never a routing value of any split', () => {
    const drills = copyDrills(5000, 1);
    const values = new Set(Object.values(ROUTING_VALUE_POOLS).flat().map((v) => v.toLowerCase()));
    for (const d of drills) {
      const { calls, errors } = parseToolCalls(d.messages[2].content);
      expect(errors).toEqual([]);
      expect(calls[0].name).toBe('echo');
      const text = calls[0].arguments.text as string;
      expect(d.messages[1].content).toContain(text);
      for (const word of text.split(' ')) expect(values.has(word.toLowerCase())).toBe(false);
    }
    expect(new Set(drills.map((d) => d.messages[1].content)).size).toBeGreaterThan(4900); // varied, seeded
    expect(copyDrills(3, 1)).toEqual(copyDrills(3, 1));
  });
});
