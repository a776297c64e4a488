import { describe, expect, it } from 'vitest';
import { MAX_TAB_MESSAGE_CHARS, parseTabMessage } from './tabs';

describe('messages from other tabs', () => {
  it('accepts our own shapes', () => {
    expect(parseTabMessage({ type: 'who', tab: 'tab-1' })).toEqual({ type: 'who', tab: 'tab-1' });
    expect(parseTabMessage({ type: 'event', runId: 'run-1', seq: -1, event: { kind: 'episodes', episodes: [] } })).toMatchObject({ type: 'event', seq: -1 });
    expect(parseTabMessage({ type: 'ended', runId: 'run-1', status: 'done' })).toMatchObject({ type: 'ended' });
  });

  it('drops anything else: unknown types, missing fields, bad sequence numbers, oversized or cyclic data', () => {
    const cyclic: Record<string, unknown> = { type: 'who' };
    cyclic.self = cyclic;
    for (const bad of [null, 42, 'who', { type: 'hello' }, { type: 'who' }, { type: 'event', runId: 'r', seq: 1.5, event: { kind: 'sft' } }, { type: 'event', runId: 'r', seq: -2, event: { kind: 'sft' } },
      { type: 'running', runId: 'r', title: 't', config: {}, startedAt: 1, tab: 't' }, { type: 'ended', runId: '', status: 'done' }, cyclic,
      { type: 'event', runId: 'r', seq: 0, event: { kind: 'log', line: 'x'.repeat(MAX_TAB_MESSAGE_CHARS) } }]) {
      expect(parseTabMessage(bad)).toBeNull();
    }
  });
});
