// A run across machines is led by the peer id in its link (link.leader): the page that started it.
// So that this page can lead the run again after a reload or a crash — resume from its checkpoints,
// which are in its own IndexedDB — it keeps the libp2p key of that peer id in localStorage, per run.
// Only one tab of the browser may lead: the key is used while a Web Lock of the run is held; another
// tab of the same browser that opens the link joins with a fresh key (a second member, not a twin).
// A finished run is never led again, so its key is removed then (a private key kept for nothing).
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';

const storageKey = (run: string) => `tabforge-swarm-leader-key/${run}`;

export interface KeyStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function newLeaderKey(): Promise<PrivateKey> {
  return generateKeyPair('Ed25519');
}

/** Remembers the key this page leads run `run` with. */
export function keepLeaderKey(store: KeyStore, run: string, key: PrivateKey): void {
  store.setItem(storageKey(run), btoa(String.fromCharCode(...privateKeyToProtobuf(key))));
}

/** Removes the key of run `run` (the run finished: nobody will lead it again). */
export function forgetLeaderKey(store: KeyStore, run: string): void {
  store.removeItem(storageKey(run));
}

/** The key this browser led run `run` with, or null (never led it, or the stored value is damaged). */
export function leaderKeyOf(store: KeyStore, run: string): PrivateKey | null {
  const text = store.getItem(storageKey(run));
  if (!text) return null;
  try {
    return privateKeyFromProtobuf(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}
