// Safetensors reader and writer, DOM-free (ArrayBuffer / Uint8Array only; Blob and stream loading
// live in safetensorsStream.ts).
// Layout: u64 little-endian header length N · N bytes of UTF-8 JSON · data section.
//   JSON: { name: { dtype, shape, data_offsets: [begin, end] }, "__metadata__"?: { str: str } }
//   with offsets relative to the first data byte. Writers pad the JSON with spaces so the data
//   section starts 8-byte aligned. Reading converts F32/F16/BF16 → Float32Array, I32/I64 → Int32Array.

import { bf16ArrayToFloat32, f16ArrayToFloat32, float32ArrayToBF16, float32ArrayToF16 } from './halfFloat';

/** Every dtype the safetensors format defines, with its element size in bytes. */
export const DTYPE_BYTES = {
  F64: 8, F32: 4, F16: 2, BF16: 2, F8_E4M3: 1, F8_E5M2: 1,
  I64: 8, I32: 4, I16: 2, I8: 1, U64: 8, U32: 4, U16: 2, U8: 1, BOOL: 1,
} as const;
export type SafetensorsDtype = keyof typeof DTYPE_BYTES;

/** Dtypes this reader converts (floats to Float32Array, integers to Int32Array). */
export const READABLE_DTYPES: readonly SafetensorsDtype[] = ['F32', 'F16', 'BF16', 'I32', 'I64'];
export type WritableDtype = 'F32' | 'F16' | 'BF16' | 'I32';

/** The spec caps the JSON header at 100 MB; anything larger is a corrupt length field. */
export const MAX_HEADER_BYTES = 100_000_000;

/** Where one tensor lives in the file. */
export interface SafetensorsTensorInfo {
  name: string;
  dtype: SafetensorsDtype;
  shape: number[];
  /** Byte range [begin, end) relative to the first byte of the data section. */
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  /** Absolute offset of the data section: 8 + JSON header length. */
  dataStart: number;
  /** Bytes of the data section the tensors use (largest end offset). */
  dataLength: number;
  /** Tensors in header order. */
  tensors: Map<string, SafetensorsTensorInfo>;
  /** The free-form "__metadata__" string map ({} when absent). */
  metadata: Record<string, string>;
}

/** A decoded tensor: floats as Float32Array, integers as Int32Array; data is owned (a copy). */
export interface LoadedTensor {
  dtype: SafetensorsDtype;
  shape: number[];
  data: Float32Array | Int32Array;
}

/** A tensor to write; dtype defaults to F32 for Float32Array and I32 for Int32Array. */
export interface TensorToWrite {
  shape: readonly number[];
  data: Float32Array | Int32Array;
  dtype?: WritableDtype;
}

export type TensorsToWrite = Map<string, TensorToWrite> | Record<string, TensorToWrite>;

const NOT_SAFETENSORS = 'the file is truncated or not a safetensors file';

/** Number of elements of a shape (1 for a scalar []). */
export function shapeSize(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** JSON header length N from the first 8 bytes; checks it against the file size when known. */
export function readHeaderLength(first8: Uint8Array, fileSize: number | null = null): number {
  if (first8.byteLength < 8) throw new Error(`safetensors: need 8 bytes for the header length, got ${first8.byteLength}: ${NOT_SAFETENSORS}`);
  const view = new DataView(first8.buffer, first8.byteOffset, 8);
  const low = view.getUint32(0, true);
  const high = view.getUint32(4, true);
  const n = high * 2 ** 32 + low;
  if (n < 2 || n > MAX_HEADER_BYTES) {
    throw new Error(`safetensors: header length field says ${n} bytes (allowed 2…${MAX_HEADER_BYTES}): ${NOT_SAFETENSORS}`);
  }
  if (fileSize !== null && 8 + n > fileSize) {
    throw new Error(`safetensors: header length field says ${n} bytes but the file has only ${fileSize - 8} after it: ${NOT_SAFETENSORS}`);
  }
  return n;
}

/**
 * Parses and validates the header. `bytes` must hold at least the first 8 + N bytes; `fileSize`
 * (default: bytes.byteLength) bounds the data offsets, null when unknown (streams).
 */
export function parseSafetensorsHeader(bytes: Uint8Array, fileSize: number | null = bytes.byteLength): SafetensorsHeader {
  const n = readHeaderLength(bytes, fileSize);
  if (bytes.byteLength < 8 + n) throw new Error(`safetensors: header needs ${8 + n} bytes, got ${bytes.byteLength}: ${NOT_SAFETENSORS}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n));
  } catch {
    throw new Error(`safetensors: the ${n}-byte header is not valid UTF-8: ${NOT_SAFETENSORS}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`safetensors: the ${n}-byte header is not valid JSON (${(e as Error).message}): ${NOT_SAFETENSORS}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error(`safetensors: the header must be a JSON object, got ${Array.isArray(json) ? 'an array' : typeof json}: ${NOT_SAFETENSORS}`);
  }

  const dataStart = 8 + n;
  const available = fileSize === null ? null : fileSize - dataStart;
  const tensors = new Map<string, SafetensorsTensorInfo>();
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(json as Record<string, unknown>)) {
    if (name === '__metadata__') metadata = parseMetadata(entry);
    else tensors.set(name, parseEntry(name, entry, available));
  }
  checkNoOverlap(tensors);
  let dataLength = 0;
  for (const t of tensors.values()) dataLength = Math.max(dataLength, t.end);
  return { dataStart, dataLength, tensors, metadata };
}

function parseMetadata(entry: unknown): Record<string, string> {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new Error('safetensors: "__metadata__" must be an object of strings');
  }
  for (const [k, v] of Object.entries(entry)) {
    if (typeof v !== 'string') throw new Error(`safetensors: "__metadata__"."${k}" must be a string, got ${typeof v}`);
  }
  return { ...(entry as Record<string, string>) };
}

function parseEntry(name: string, entry: unknown, available: number | null): SafetensorsTensorInfo {
  const where = `safetensors: tensor '${name}'`;
  if (typeof entry !== 'object' || entry === null) throw new Error(`${where}: header entry must be an object with dtype, shape and data_offsets`);
  const { dtype, shape, data_offsets: offsets } = entry as Record<string, unknown>;
  if (typeof dtype !== 'string' || !(dtype in DTYPE_BYTES)) {
    throw new Error(`${where} has unknown dtype ${JSON.stringify(dtype)}; safetensors dtypes are ${Object.keys(DTYPE_BYTES).join(', ')}`);
  }
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new Error(`${where}: shape must be an array of non-negative integers, got ${JSON.stringify(shape)}`);
  }
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) || offsets[0] > offsets[1]) {
    throw new Error(`${where}: data_offsets must be [begin, end] with 0 ≤ begin ≤ end, got ${JSON.stringify(offsets)}`);
  }
  const [begin, end] = offsets as [number, number];
  const d = dtype as SafetensorsDtype;
  const expected = shapeSize(shape) * DTYPE_BYTES[d];
  if (end - begin !== expected) {
    throw new Error(`${where} (${d}, shape [${shape.join(', ')}]) needs ${expected} bytes but data_offsets [${begin}, ${end}] span ${end - begin}: ${NOT_SAFETENSORS}`);
  }
  if (available !== null && end > available) {
    throw new Error(`${where} ends at data byte ${end} but the data section has only ${available} bytes: ${NOT_SAFETENSORS}`);
  }
  return { name, dtype: d, shape: shape.slice(), begin, end };
}

function checkNoOverlap(tensors: Map<string, SafetensorsTensorInfo>): void {
  const sorted = [...tensors.values()].filter((t) => t.end > t.begin).sort((a, b) => a.begin - b.begin);
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1], sorted[i]];
    if (b.begin < a.end) {
      throw new Error(`safetensors: tensors '${a.name}' [${a.begin}, ${a.end}) and '${b.name}' [${b.begin}, ${b.end}) overlap: ${NOT_SAFETENSORS}`);
    }
  }
}

/** Tensors sorted by data offset: the order to read a stream or a file front to back. */
export function tensorsInFileOrder(header: SafetensorsHeader): SafetensorsTensorInfo[] {
  return [...header.tensors.values()].sort((a, b) => a.begin - b.begin);
}

/** Copies `raw` into a fresh buffer so typed-array views are aligned and own their memory. */
function ownedCopy(raw: Uint8Array): ArrayBuffer {
  const buffer = new ArrayBuffer(raw.byteLength);
  new Uint8Array(buffer).set(raw);
  return buffer;
}

/** 16-bit words to convert from: a view when aligned (they are only read), else an aligned copy. */
function u16Words(raw: Uint8Array, n: number): Uint16Array {
  return raw.byteOffset % 2 === 0 ? new Uint16Array(raw.buffer, raw.byteOffset, n) : new Uint16Array(ownedCopy(raw), 0, n);
}

/** Decodes one tensor's bytes (exactly end - begin of them). Typed arrays assume a little-endian host, as WebGPU does. */
export function decodeTensor(info: SafetensorsTensorInfo, raw: Uint8Array): LoadedTensor {
  const n = shapeSize(info.shape);
  const where = `safetensors: tensor '${info.name}'`;
  if (raw.byteLength !== info.end - info.begin) throw new Error(`${where}: expected ${info.end - info.begin} bytes, got ${raw.byteLength}`);
  const out = (data: Float32Array | Int32Array): LoadedTensor => ({ dtype: info.dtype, shape: info.shape.slice(), data });
  switch (info.dtype) {
    case 'F32': return out(new Float32Array(ownedCopy(raw), 0, n));
    case 'I32': return out(new Int32Array(ownedCopy(raw), 0, n));
    case 'F16': return out(f16ArrayToFloat32(u16Words(raw, n)));
    case 'BF16': return out(bf16ArrayToFloat32(u16Words(raw, n)));
    case 'I64': return out(int64ToInt32(info.name, raw, n));
    default:
      throw new Error(`${where} has dtype ${info.dtype}, which TabForge cannot read (supported: ${READABLE_DTYPES.join(', ')}): convert the checkpoint, e.g. to BF16 or F32`);
  }
}

function int64ToInt32(name: string, raw: Uint8Array, n: number): Int32Array {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const low = view.getUint32(8 * i, true);
    const high = view.getInt32(8 * i + 4, true);
    const value = high * 2 ** 32 + low;
    if (value < -(2 ** 31) || value > 2 ** 31 - 1) {
      throw new Error(`safetensors: tensor '${name}' (I64) element ${i} is ${value}, outside the int32 range TabForge stores integers in`);
    }
    out[i] = value;
  }
  return out;
}

/** Names, metadata and per-tensor info shared by the in-memory and the Blob-backed readers. */
export class SafetensorsIndex {
  constructor(readonly header: SafetensorsHeader) {}

  get names(): string[] {
    return [...this.header.tensors.keys()];
  }

  get metadata(): Record<string, string> {
    return this.header.metadata;
  }

  has(name: string): boolean {
    return this.header.tensors.has(name);
  }

  /** Where a tensor lives; throws naming the tensor and a few that do exist. */
  info(name: string): SafetensorsTensorInfo {
    const info = this.header.tensors.get(name);
    if (!info) {
      const some = this.names.slice(0, 5).map((s) => `'${s}'`).join(', ');
      throw new Error(`safetensors: no tensor named '${name}'; the file has ${this.header.tensors.size} tensors (e.g. ${some || 'none'})`);
    }
    return info;
  }
}

/** A whole file in memory; tensor(name) decodes only that slice (fine for the 1.2 GB Qwen3-0.6B). */
export class SafetensorsFile extends SafetensorsIndex {
  private constructor(private readonly bytes: Uint8Array, header: SafetensorsHeader) {
    super(header);
  }

  static fromBytes(buffer: ArrayBufferLike | Uint8Array): SafetensorsFile {
    const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
    return new SafetensorsFile(bytes, parseSafetensorsHeader(bytes));
  }

  /** The tensor's raw little-endian bytes (a view into the file, not a copy). */
  raw(name: string): Uint8Array {
    const info = this.info(name);
    const start = this.header.dataStart;
    return this.bytes.subarray(start + info.begin, start + info.end);
  }

  tensor(name: string): LoadedTensor {
    return decodeTensor(this.info(name), this.raw(name));
  }
}

/** Every tensor of an in-memory file, in header order. */
export function readSafetensors(buffer: ArrayBufferLike | Uint8Array): Map<string, LoadedTensor> {
  const file = SafetensorsFile.fromBytes(buffer);
  return new Map(file.names.map((name) => [name, file.tensor(name)]));
}

/** The bytes of a typed array: a view when possible, a copy when it lives in a SharedArrayBuffer (Blobs refuse those). */
function bytesOf(a: ArrayBufferView): Uint8Array<ArrayBuffer> {
  const buffer = a.buffer;
  if (buffer instanceof ArrayBuffer) return new Uint8Array(buffer, a.byteOffset, a.byteLength);
  const copy = new Uint8Array(a.byteLength);
  copy.set(new Uint8Array(buffer, a.byteOffset, a.byteLength));
  return copy;
}

function encodeTensor(name: string, t: TensorToWrite): { dtype: WritableDtype; bytes: Uint8Array<ArrayBuffer> } {
  const where = `writeSafetensors: tensor '${name}'`;
  if (!t.shape.every((d) => Number.isSafeInteger(d) && d >= 0)) throw new Error(`${where}: shape must hold non-negative integers, got [${t.shape.join(', ')}]`);
  if (shapeSize(t.shape) !== t.data.length) {
    throw new Error(`${where}: shape [${t.shape.join(', ')}] has ${shapeSize(t.shape)} elements but data has ${t.data.length}`);
  }
  const isFloat = t.data instanceof Float32Array;
  const dtype = t.dtype ?? (isFloat ? 'F32' : 'I32');
  if (isFloat === (dtype === 'I32')) {
    throw new Error(`${where}: cannot write ${t.data.constructor.name} as ${dtype}: use a Float32Array for F32/F16/BF16 and an Int32Array for I32`);
  }
  if (dtype === 'F16') return { dtype, bytes: bytesOf(float32ArrayToF16(t.data as Float32Array)) };
  if (dtype === 'BF16') return { dtype, bytes: bytesOf(float32ArrayToBF16(t.data as Float32Array)) };
  return { dtype, bytes: bytesOf(t.data) };
}

/**
 * The file as a list of parts (header, then each tensor's bytes, in insertion order) so large
 * models can become a Blob without one giant copy: `new Blob(safetensorsParts(...))`.
 * F32/I32 parts are views of the caller's arrays (copies if shared): do not change them until the parts are used.
 */
export function safetensorsParts(tensors: TensorsToWrite, metadata?: Record<string, string>): Uint8Array<ArrayBuffer>[] {
  const entries = tensors instanceof Map ? [...tensors.entries()] : Object.entries(tensors);
  const header: Record<string, unknown> = {};
  if (metadata) {
    header.__metadata__ = parseMetadata(metadata);
  }
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let offset = 0;
  for (const [name, t] of entries) {
    if (name === '' || name === '__metadata__') throw new Error(`writeSafetensors: '${name}' cannot be a tensor name`);
    const { dtype, bytes } = encodeTensor(name, t);
    header[name] = { dtype, shape: [...t.shape], data_offsets: [offset, offset + bytes.byteLength] };
    parts.push(bytes);
    offset += bytes.byteLength;
  }
  return [headerBytes(header), ...parts];
}

/** Length field + JSON header, padded with spaces so the data section starts 8-byte aligned. */
function headerBytes(header: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.byteLength / 8) * 8; // data starts 8-byte aligned
  const head = new Uint8Array(8 + padded).fill(0x20, 8);
  head.set(json, 8);
  new DataView(head.buffer).setUint32(0, padded, true); // high 32 bits stay 0 (header < 100 MB)
  return head;
}

/**
 * The header of a file whose tensors (in this order, back to back) are written separately, e.g.
 * produced a slice at a time: the bytes before the data section. Returns it with each tensor's
 * byte range in the data section.
 */
export function safetensorsHeaderFor(
  entries: readonly { name: string; shape: readonly number[]; dtype: WritableDtype }[], metadata?: Record<string, string>,
): { header: Uint8Array<ArrayBuffer>; ranges: [begin: number, end: number][] } {
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = parseMetadata(metadata);
  const ranges: [number, number][] = [];
  let offset = 0;
  for (const e of entries) {
    if (e.name === '' || e.name === '__metadata__') throw new Error(`writeSafetensors: '${e.name}' cannot be a tensor name`);
    const bytes = shapeSize(e.shape) * DTYPE_BYTES[e.dtype];
    header[e.name] = { dtype: e.dtype, shape: [...e.shape], data_offsets: [offset, offset + bytes] };
    ranges.push([offset, offset + bytes]);
    offset += bytes;
  }
  return { header: headerBytes(header), ranges };
}

/** Bytes of values in a writable float dtype (little-endian), e.g. one slice of a tensor being written. */
export function encodeFloats(values: Float32Array, dtype: 'F32' | 'F16' | 'BF16'): Uint8Array<ArrayBuffer> {
  if (dtype === 'F16') return bytesOf(float32ArrayToF16(values));
  if (dtype === 'BF16') return bytesOf(float32ArrayToBF16(values));
  return bytesOf(values);
}

/** Encodes tensors (and optional string metadata) as one safetensors byte array. */
export function writeSafetensors(tensors: TensorsToWrite, metadata?: Record<string, string>): Uint8Array<ArrayBuffer> {
  const parts = safetensorsParts(tensors, metadata);
  const out = new Uint8Array(parts.reduce((s, p) => s + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
