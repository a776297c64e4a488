import { describe, expect, it } from 'vitest';
import { fakeFamily } from '../eval/fakeFamily';
import type { EnvFamily } from '../envs/types';
import { readChatJsonl, writeChatJsonl, type ChatConversation } from './chatJsonl';
import { allFamilies } from './families';
import { allocateCounts, rejectionReason, synthesizeFamily, synthesizeMix, type MixPart } from './synth';
import { computeSynthStats, maskSpecifics, type StatsItem } from './synthStats';

describe('rejection filtering', () => {
  it('drops every trajectory whose replay fails and keeps the rest', async () => {
    const family = fakeFamily({ expertWrongEvery: 3 }); // wrong on task indices 0, 3, 6, …
    const r = await synthesizeFamily(family, { n: 10, seed: 2 });
    expect(r.stats.generated).toBe(15); // 10 kept needs indices 0…14, of which 0,3,6,9,12 fail
    expect(r.stats.accepted).toBe(10);
    expect(r.stats.acceptanceRate).toBeCloseTo(10 / 15, 12);
    expect(r.stats.rejectedBy).toEqual({ 'not-success': 5 });
    expect(r.items.map((i) => i.taskId)).toEqual([1, 2, 4, 5, 7, 8, 10, 11, 13, 14].map((i) => `fake-train-2-${i}`));
    expect(r.rejectedExamples[0]).toMatch(/^fake-train-2-0: not-success \(total 0\.500/);
  });

  it('stops at maxAttempts when acceptance is too low, keeping what passed', async () => {
    const r = await synthesizeFamily(fakeFamily({ expertWrongEvery: 1 }), { n: 5, seed: 1, maxAttempts: 7 });
    expect(r.stats.generated).toBe(7);
    expect(r.items).toHaveLength(0);
  });

  it('rejects abnormal ends and partial reward even when the env says success', () => {
    const base = { end: 'done', success: true, reward: { components: {}, weights: {}, total: 1 } } as unknown as Parameters<typeof rejectionReason>[0];
    expect(rejectionReason(base)).toBeNull();
    expect(rejectionReason({ ...base, end: 'policy-error' })).toBe('policy-error');
    expect(rejectionReason({ ...base, success: false })).toBe('not-success');
    expect(rejectionReason({ ...base, reward: { components: {}, weights: {}, total: 0.9 } })).toBe('below-full-reward');
  });
});

describe('determinism and mixing', () => {
  it('the same seed gives an identical file; another seed a different one', async () => {
    const parts = [
      { family: fakeFamily(), share: 2 },
      { family: { ...fakeFamily({ expertWrongEvery: 4 }), name: 'other' } as unknown as EnvFamily, share: 1 },
    ];
    const file = async (seed: number) => writeChatJsonl((await synthesizeMix(parts, { n: 30, seed })).items.map((i) => i.conversation));
    const a = await file(5);
    expect(await file(5)).toBe(a);
    expect(await file(6)).not.toBe(a);
    const mix = await synthesizeMix(parts, { n: 30, seed: 5 });
    expect(mix.wanted).toEqual([20, 10]);
    expect(mix.stats.map((s) => s.accepted)).toEqual([20, 10]);
    // Shuffled together: the first 20 lines are not all from the first family.
    expect(new Set(mix.items.slice(0, 20).map((i) => i.family)).size).toBe(2);
    expect(readChatJsonl(a)).toHaveLength(30);
  });

  it('allocates counts by share with largest remainders', () => {
    expect(allocateCounts(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(allocateCounts(5000, [1, 1, 1])).toEqual([1667, 1667, 1666]);
    expect(allocateCounts(7, [0.5, 0.25, 0.25])).toEqual([3, 2, 2]); // 3.5, 1.75, 1.75: the .75s win
    expect(allocateCounts(3, [0, 1])).toEqual([0, 3]);
    expect(() => allocateCounts(3, [0, 0])).toThrow(/all mix shares are 0/);
    expect(() => allocateCounts(3, [])).toThrow(/mix is empty/);
  });

  it('refuses a family given twice', async () => {
    const f = fakeFamily();
    await expect(synthesizeMix([{ family: f as EnvFamily, share: 1 }, { family: f as EnvFamily, share: 1 }], { n: 2, seed: 1 })).rejects.toThrow(/appears twice/);
  });
});

describe('stats', () => {
  const conv = (user: string, assistant: ChatConversation['messages']): ChatConversation => ({ messages: [{ role: 'system', content: 's' }, { role: 'user', content: user }, ...assistant], tools: [] });
  const call = (name: string) => ({ type: 'function' as const, function: { name, arguments: {} } });

  it('counts tools, turns, categories and templates on a fixed set', () => {
    const items: StatsItem[] = [
      { category: 'a', turns: 2, conversation: conv('Convert 5 miles to km.', [{ role: 'assistant', content: 'Sure. Calling.', tool_calls: [call('convert')] }, { role: 'tool', content: '8' }, { role: 'assistant', content: 'It is 8 km.' }]) },
      { category: 'a', turns: 2, conversation: conv('Convert 7 miles to km.', [{ role: 'assistant', content: '', tool_calls: [call('convert'), call('weather')] }, { role: 'assistant', content: 'It is 11 km.' }]) },
      { category: 'b', turns: 1, conversation: conv('Email "hi" to bob@x.org please.', [{ role: 'assistant', content: 'No tool fits.' }]) },
    ];
    const s = computeSynthStats('toy', 4, items, { 'not-success': 1 }, 12);
    expect(s).toEqual({
      family: 'toy',
      generated: 4,
      accepted: 3,
      acceptanceRate: 0.75,
      rejectedBy: { 'not-success': 1 },
      toolsUsed: ['convert', 'weather'],
      turnHistogram: { 1: 1, 2: 2 },
      categories: { a: 2, b: 1 },
      distinctFirstUserMessages: 3,
      distinctFirstUserTemplates: 2, // the two conversions share a template
      distinctAssistantOpeners: 3, // "Sure.", "It is # km.", "No tool fits."
      elapsedMs: 12,
    });
  });

  it('masks numbers, quotes, e-mails and names', () => {
    expect(maskSpecifics('Send "Call me" to alice@example.com at 10:30, Mei Hernandez')).toBe('Send "…" to @ at #, X X');
    expect(maskSpecifics('Order #W7594020 costs $4.45.')).toBe('Order # costs #.');
  });
});

describe('real families', () => {
  it('the real mix is reproducible: same seed, same file', async () => {
    const parts: MixPart[] = allFamilies().map((family) => ({ family, share: 1 }));
    const file = async () => writeChatJsonl((await synthesizeMix(parts, { n: 12, seed: 8 })).items.map((i) => i.conversation));
    expect(await file()).toBe(await file());
  });

  it('every existing family synthesises fully accepted, parseable data', async () => {
    for (const family of allFamilies()) {
      const r = await synthesizeFamily(family, { n: 25, seed: 3 });
      expect(r.rejectedExamples).toEqual([]);
      expect(r.stats.acceptanceRate).toBe(1);
      expect(r.stats.toolsUsed.length).toBeGreaterThan(1);
      const text = writeChatJsonl(r.items.map((i) => i.conversation));
      expect(readChatJsonl(text)).toEqual(r.items.map((i) => i.conversation));
    }
  });
});
