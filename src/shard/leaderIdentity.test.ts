// The leader's libp2p key kept per run (leaderIdentity.ts): it reads back as the same key (the same
// peer id, which the link names), another run has none, a damaged value reads as none, a forgotten
// (finished) run's key is gone and the other runs' keys stay.
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { describe, expect, it } from 'vitest';
import { forgetLeaderKey, keepLeaderKey, leaderKeyOf, newLeaderKey } from './leaderIdentity';

describe('leader identity', () => {
  it('keeps the key per run; the kept key gives the same peer id; damaged or absent reads as null', async () => {
    const store = new Map<string, string>();
    const kv = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v), removeItem: (k: string) => void store.delete(k) };
    const key = await newLeaderKey();
    keepLeaderKey(kv, 'run-a', key);
    const back = leaderKeyOf(kv, 'run-a');
    expect(back).not.toBeNull();
    expect(peerIdFromPrivateKey(back!).toString()).toBe(peerIdFromPrivateKey(key).toString());
    expect(leaderKeyOf(kv, 'run-b')).toBeNull();
    store.set('tabforge-swarm-leader-key/run-a', 'bm90IGEga2V5');
    expect(leaderKeyOf(kv, 'run-a')).toBeNull();
  });

  it('forgets one finished run\'s key and keeps the others', async () => {
    const store = new Map<string, string>();
    const kv = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v), removeItem: (k: string) => void store.delete(k) };
    keepLeaderKey(kv, 'run-a', await newLeaderKey());
    keepLeaderKey(kv, 'run-b', await newLeaderKey());
    forgetLeaderKey(kv, 'run-a');
    expect(leaderKeyOf(kv, 'run-a')).toBeNull();
    expect(leaderKeyOf(kv, 'run-b')).not.toBeNull();
    expect([...store.keys()]).toEqual(['tabforge-swarm-leader-key/run-b']);
  });
});
