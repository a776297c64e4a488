// Writing safetensors one tensor at a time (the header first, from the known names and shapes), so
// a merged or exported 0.6B model never sits in memory whole. DOM-free: the bytes go to a callback
// (a file handle in Node, Blob parts or a zip stream in the page). Layout as src/model/safetensors.ts.
import { float32ArrayToBF16, float32ArrayToF16 } from '../model/halfFloat';
import type { TensorSink } from '../train/merge/mergeStream';

export type SinkDtype = 'F32' | 'F16' | 'BF16';
const BYTES: Record<SinkDtype, number> = { F32: 4, F16: 2, BF16: 2 };

/** The header bytes (u64 length + JSON padded to 8 bytes) for tensors written in this order. */
export function safetensorsHeaderBytes(entries: { name: string; shape: number[] }[], dtype: SinkDtype, metadata?: Record<string, string>): Uint8Array<ArrayBuffer> {
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  for (const e of entries) {
    if (e.name === '' || e.name === '__metadata__' || e.name in header) throw new Error(`safetensors: tensor name '${e.name}' is empty, reserved or repeated`);
    const n = e.shape.reduce((a, b) => a * b, 1) * BYTES[dtype];
    header[e.name] = { dtype, shape: e.shape, data_offsets: [offset, offset + n] };
    offset += n;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.byteLength / 8) * 8;
  const head = new Uint8Array(8 + padded).fill(0x20, 8);
  head.set(json, 8);
  new DataView(head.buffer).setUint32(0, padded, true);
  return head;
}

/** f32 values as the bytes of dtype. */
export function encodeValues(data: Float32Array, dtype: SinkDtype): Uint8Array<ArrayBuffer> {
  if (dtype === 'F16') return new Uint8Array(float32ArrayToF16(data).buffer as ArrayBuffer);
  if (dtype === 'BF16') return new Uint8Array(float32ArrayToBF16(data).buffer as ArrayBuffer);
  const own = data.buffer instanceof ArrayBuffer ? data : data.slice();
  return new Uint8Array(own.buffer as ArrayBuffer, own.byteOffset, own.byteLength);
}

/** A TensorSink writing safetensors bytes through `out`, checking the order and sizes it was promised. */
export function safetensorsSink(out: (bytes: Uint8Array<ArrayBuffer>) => Promise<void>, dtype: SinkDtype = 'F32', metadata: Record<string, string> = { format: 'pt' }): TensorSink {
  let pending: { name: string; shape: number[] }[] = [];
  return {
    async begin(entries) {
      pending = entries.slice();
      await out(safetensorsHeaderBytes(entries, dtype, metadata));
    },
    async write(name, data) {
      const next = pending.shift();
      if (!next || next.name !== name) throw new Error(`safetensors writer: expected tensor '${next?.name ?? '(none)'}' next, got '${name}'`);
      const n = next.shape.reduce((a, b) => a * b, 1);
      if (data.length !== n) throw new Error(`safetensors writer: '${name}' has ${data.length} values, its shape [${next.shape.join(', ')}] needs ${n}`);
      await out(encodeValues(data, dtype));
    },
    async end() {
      if (pending.length) throw new Error(`safetensors writer: ${pending.length} tensor(s) never written (first '${pending[0].name}')`);
    },
  };
}
