// The tabs transport in Node (whose BroadcastChannel clones as a browser's does): a large payload
// arrives whole and every fragment travels in a buffer of its own — a clone of a 1 MiB view into a
// 40 MB snapshot would otherwise carry all 40 MB each time (measured in the page before the fix:
// 16.6 s per 10 M parameters instead of ~1 s).
import { describe, expect, it } from 'vitest';
import { FRAGMENT_BYTES } from './protocol';
import { TabTransport } from './tabTransport';

describe('TabTransport', () => {
  it('sends a 3.5-fragment payload whole, each fragment in its own buffer', async () => {
    const run = `t-${Math.random().toString(16).slice(2)}`;
    const [a, b] = [new TabTransport('tab-a', run), new TabTransport('tab-b', run)];
    const spy = new BroadcastChannel(`tabforge-swarm/${run}/tab-b`); // hears what a posts to b
    const clonedBuffers: number[] = [];
    spy.onmessage = (e: MessageEvent) => {
      const p = (e.data as { p?: Uint8Array }).p;
      if (p) clonedBuffers.push(p.buffer.byteLength);
    };
    const got = new Promise<Uint8Array>((resolve) => b.onMessage((_from, raw) => resolve(raw.p!)));
    const payload = new Uint8Array(3.5 * FRAGMENT_BYTES).map((_, i) => i % 251);
    await a.send('tab-b', { h: { t: 'result', id: 1, slot: 0, policyVersion: 0, seconds: 0, generatedTokens: 0 }, p: payload });
    const back = await got;
    expect(back.byteLength).toBe(payload.byteLength);
    expect(Buffer.compare(back, payload)).toBe(0); // (toEqual walks 3.7 M elements for half a minute)
    await new Promise((r) => setTimeout(r, 50));
    expect(clonedBuffers).toEqual([FRAGMENT_BYTES, FRAGMENT_BYTES, FRAGMENT_BYTES, FRAGMENT_BYTES / 2]);
    spy.close();
    await a.close();
    await b.close();
  });
});
