// Test helpers for the libp2p tests in Node (relayNode.test.ts, relayDataParallel.test.ts): a relay
// on 127.0.0.1 at a port the system picks, and members that reserve a slot on it and reach one
// another over WebRTC (node-datachannel).
import { WebSocket as NodeWebSocket } from 'ws';
import type { Libp2pTransport } from '../../src/shard/libp2pTransport';
import { polyfillPromiseWithResolvers } from './promisePolyfill';
import { type RunningRelay, startRelay } from './relayNode';

export async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const t0 = performance.now();
  while (!ok()) {
    if (performance.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs `body`; if it throws, the members' log lines (retries, refusals) ride on the error, so a failed CI run says what the transport saw. */
export async function withMemberLogs<T>(logs: readonly string[], body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof Error && logs.length > 0) e.message += `\nmember logs:\n${logs.join('\n')}`;
    throw e;
  }
}

/** A relay on 127.0.0.1 at a free port (never collides with a server of the suite). */
export async function startTestRelay(): Promise<RunningRelay> {
  polyfillPromiseWithResolvers();
  // Node 20 has no global WebSocket (browsers and Node ≥ 22 do); the browser transport dials the relay with it
  (globalThis as { WebSocket?: unknown }).WebSocket ??= NodeWebSocket;
  return startRelay({ host: '127.0.0.1', port: 0 });
}

/** A member holding a reservation on the relay at `addr` (the transport the page uses across machines). */
export async function startMember(addr: string, log?: (line: string) => void): Promise<Libp2pTransport> {
  const { Libp2pTransport } = await import('../../src/shard/libp2pTransport');
  return Libp2pTransport.start({ relay: addr, log });
}
