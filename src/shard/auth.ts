// Joining a run needs its secret: a hello carries HMAC-SHA256(secret, run | sender | receiver |
// nonce) (Web Crypto), never the secret itself. Binding both ids (on libp2p both are authenticated by
// noise) means a proof seen on one connection is useless on another. Run ids and secrets are random
// (128 bits each), base64url, made here.

const encoder = new TextEncoder();

function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** A fresh join secret (128 random bits). */
export function newSecret(): string {
  return base64url(randomBytes(16));
}

/** A fresh run id (96 random bits; letters, digits, - and _). */
export function newRunId(): string {
  return base64url(randomBytes(12));
}

/** A member id for a tab (libp2p members use their peer id). */
export function newMemberId(): string {
  return `tab-${hex(randomBytes(6))}`;
}

export function newNonce(): string {
  return hex(randomBytes(16));
}

const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let k = keys.get(secret);
  if (!k) keys.set(secret, (k = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])));
  return k;
}

/** The proof a hello from `from` to `to` ('*': everyone, tabs) carries. */
export async function helloProof(secret: string, runId: string, from: string, to: string, nonce: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', await hmacKey(secret), encoder.encode(`tabforge-swarm/1|${runId}|${from}|${to}|${nonce}`));
  return hex(new Uint8Array(mac));
}

/** Compares two hex proofs in time independent of where they differ. */
export function sameProof(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
