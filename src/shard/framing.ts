// How a message travels: payloads over FRAGMENT_BYTES are cut into fragments (each its own
// message, so a 40 MB weight snapshot never blocks a channel in one piece and no single frame is
// large), reassembled at the receiver within fixed bounds; on byte streams (libp2p) each message is
// one frame: [u32 header length, little-endian][header, UTF-8 JSON][payload bytes].
import { FRAGMENT_BYTES, type FragmentHeader, MAX_FRAGMENTS, MAX_HEADER_BYTES, parseFragment } from './protocol';

/** A message before validation: what a transport received, reassembled. */
export interface RawMessage {
  h: unknown;
  p?: Uint8Array;
}

/** The fragments of one message (the message itself when its payload fits in one). */
export function fragmentsOf(msg: RawMessage, msgId: number, fragmentBytes = FRAGMENT_BYTES): RawMessage[] {
  const p = msg.p;
  if (!p || p.byteLength <= fragmentBytes) return [msg];
  const n = Math.ceil(p.byteLength / fragmentBytes);
  if (n > MAX_FRAGMENTS) throw new Error(`message of ${p.byteLength} bytes needs ${n} fragments; at most ${MAX_FRAGMENTS} are allowed`);
  return Array.from({ length: n }, (_, i) => {
    const h: FragmentHeader = { t: 'frag', msg: msgId, i, n, total: p.byteLength };
    if (i === 0) h.of = msg.h;
    return { h, p: p.subarray(i * fragmentBytes, Math.min((i + 1) * fragmentBytes, p.byteLength)) };
  });
}

interface Pending {
  of: unknown;
  n: number;
  total: number;
  parts: (Uint8Array | undefined)[];
  received: number;
  bytes: number;
}

/** Puts fragments back together, per sender; refuses what no honest sender produces. */
export class Reassembler {
  private readonly pending = new Map<string, Map<number, Pending>>();

  constructor(
    /** Most messages one sender may have half-sent at once. */
    private readonly maxOpenPerSender = 4,
    private readonly fragmentBytes = FRAGMENT_BYTES,
  ) {}

  /** A whole message, null while fragments are missing, or an error saying what was wrong. */
  push(from: string, raw: RawMessage): { msg: RawMessage } | null | { error: string } {
    const h = raw.h as { t?: unknown } | null;
    if (!h || typeof h !== 'object' || h.t !== 'frag') return { msg: raw };
    const f = parseFragment(h);
    if (!f.ok) return { error: f.reason };
    const { msg, i, n, total } = f.h;
    const size = raw.p?.byteLength ?? 0;
    const expected = i < n - 1 ? this.fragmentBytes : total - (n - 1) * this.fragmentBytes;
    if (total > n * this.fragmentBytes || total <= (n - 1) * this.fragmentBytes) return { error: `fragment header says ${total} bytes in ${n} fragments` };
    if (size !== expected) return { error: `fragment ${i}/${n} of message ${msg} has ${size} bytes, expected ${expected}` };
    let mine = this.pending.get(from);
    if (!mine) this.pending.set(from, (mine = new Map()));
    let p = mine.get(msg);
    if (!p) {
      if (mine.size >= this.maxOpenPerSender) return { error: `more than ${this.maxOpenPerSender} fragmented messages open at once` };
      mine.set(msg, (p = { of: undefined, n, total, parts: new Array(n), received: 0, bytes: 0 }));
    }
    if (p.n !== n || p.total !== total) return this.fail(from, msg, `fragments of message ${msg} disagree on its size`);
    if (p.parts[i]) return this.fail(from, msg, `fragment ${i} of message ${msg} arrived twice`);
    if (i === 0) {
      if (f.h.of === undefined) return this.fail(from, msg, `fragment 0 of message ${msg} has no header`);
      p.of = f.h.of;
    }
    p.parts[i] = raw.p!.slice(); // a copy: the sender's buffer may be reused
    p.received++;
    p.bytes += size;
    if (p.received < n) return null;
    mine.delete(msg);
    const whole = new Uint8Array(total);
    let at = 0;
    for (const part of p.parts) {
      whole.set(part!, at);
      at += part!.byteLength;
    }
    return { msg: { h: p.of, p: whole } };
  }

  /** Forgets a sender's half-received messages (it left or was dropped). */
  forget(from: string): void {
    this.pending.delete(from);
  }

  private fail(from: string, msg: number, error: string): { error: string } {
    this.pending.get(from)?.delete(msg);
    return { error };
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** One message as bytes for a byte stream. */
export function encodeFrame(msg: RawMessage): Uint8Array {
  const header = encoder.encode(JSON.stringify(msg.h));
  if (header.byteLength > MAX_HEADER_BYTES) throw new Error(`message header is ${header.byteLength} bytes, more than ${MAX_HEADER_BYTES}`);
  const p = msg.p ?? new Uint8Array(0);
  const out = new Uint8Array(4 + header.byteLength + p.byteLength);
  new DataView(out.buffer).setUint32(0, header.byteLength, true);
  out.set(header, 4);
  out.set(p, 4 + header.byteLength);
  return out;
}

/** The message in one frame; throws on a frame no encoder produced (the caller drops the sender). */
export function decodeFrame(bytes: Uint8Array): RawMessage {
  if (bytes.byteLength < 4) throw new Error(`frame of ${bytes.byteLength} bytes is shorter than its length field`);
  const len = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  if (len > MAX_HEADER_BYTES || 4 + len > bytes.byteLength) throw new Error(`frame header length ${len} is out of bounds (frame ${bytes.byteLength} bytes)`);
  let h: unknown;
  try {
    h = JSON.parse(decoder.decode(bytes.subarray(4, 4 + len)));
  } catch (e) {
    throw new Error(`frame header is not UTF-8 JSON: ${(e as Error).message}`);
  }
  const p = bytes.subarray(4 + len);
  return p.byteLength ? { h, p } : { h };
}
