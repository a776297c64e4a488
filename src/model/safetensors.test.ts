import { describe, expect, it } from 'vitest';
import { Rng, randomNormal } from '../util/rng';
import {
  SafetensorsFile, parseSafetensorsHeader, readSafetensors, safetensorsParts, writeSafetensors,
} from './safetensors';

/** A file assembled by hand (independent of our writer): u64 LE length, JSON text, data bytes. */
function handMade(headerText: string, data: number[] | Uint8Array, lengthField?: number): Uint8Array<ArrayBuffer> {
  const json = new TextEncoder().encode(headerText);
  const n = lengthField ?? json.length;
  const out = new Uint8Array(8 + json.length + data.length);
  for (let i = 0; i < 8; i++) out[i] = Math.floor(n / 256 ** i) % 256;
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

const le32 = (v: number) => [v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255];
const f32Bytes = (values: number[]) => [...new Uint8Array(new Float32Array(values).buffer)];

describe('reading', () => {
  it('reads a hand-made file with F32, F16, BF16, I32 and I64 tensors', () => {
    const data = [
      ...f32Bytes([1.5, -2]), // a: F32 [2]            bytes 0..8
      0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, // b: F16 [3] = 1, -2, 65504   8..14
      0x80, 0x3f, 0x40, 0xc0, // c: BF16 [1, 2] = 1, -3                  14..18
      ...le32(-7), // d: I32 []                                           18..22
      ...le32(5), 0, 0, 0, 0, ...le32(-3), 255, 255, 255, 255, // e: I64 [2] = 5, -3   22..38
    ];
    const header = JSON.stringify({
      __metadata__: { format: 'pt' },
      a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
      b: { dtype: 'F16', shape: [3], data_offsets: [8, 14] },
      c: { dtype: 'BF16', shape: [1, 2], data_offsets: [14, 18] },
      d: { dtype: 'I32', shape: [], data_offsets: [18, 22] },
      e: { dtype: 'I64', shape: [2], data_offsets: [22, 38] },
    });
    const tensors = readSafetensors(handMade(header, data));
    expect([...tensors.keys()]).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(tensors.get('a')).toEqual({ dtype: 'F32', shape: [2], data: new Float32Array([1.5, -2]) });
    expect(tensors.get('b')!.data).toEqual(new Float32Array([1, -2, 65504]));
    expect(tensors.get('c')).toEqual({ dtype: 'BF16', shape: [1, 2], data: new Float32Array([1, -3]) });
    expect(tensors.get('d')!.data).toEqual(new Int32Array([-7]));
    expect(tensors.get('e')!.data).toEqual(new Int32Array([5, -3]));
    expect(SafetensorsFile.fromBytes(handMade(header, data)).metadata).toEqual({ format: 'pt' });
  });

  it('decodes unaligned tensors (odd offsets) into owned, aligned arrays', () => {
    const header = JSON.stringify({
      pad: { dtype: 'U8', shape: [1], data_offsets: [0, 1] },
      x: { dtype: 'F32', shape: [2], data_offsets: [1, 9] },
      y: { dtype: 'BF16', shape: [1], data_offsets: [9, 11] }, // y and z differ in 2-byte alignment
      z: { dtype: 'F16', shape: [1], data_offsets: [12, 14] },
    });
    const bytes = handMade(header, [7, ...f32Bytes([3.25, -0.5]), 0x80, 0x3f, 0, 0x00, 0xc0]);
    const file = SafetensorsFile.fromBytes(bytes.buffer);
    expect(file.tensor('y').data).toEqual(new Float32Array([1]));
    expect(file.tensor('z').data).toEqual(new Float32Array([-2]));
    const x = file.tensor('x');
    expect(x.data).toEqual(new Float32Array([3.25, -0.5]));
    x.data[0] = 99; // owned: the file bytes stay untouched
    expect(file.tensor('x').data[0]).toBe(3.25);
    expect(() => file.tensor('pad')).toThrow(/'pad' has dtype U8, which TabForge cannot read/);
  });

  it('rejects I64 values outside int32', () => {
    const header = JSON.stringify({ ids: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } });
    expect(() => readSafetensors(handMade(header, [0, 0, 0, 0x80, 0, 0, 0, 0]))).toThrow(/'ids' \(I64\) element 0 is 2147483648, outside the int32 range/);
  });

  it('names the missing tensor and some that exist', () => {
    const file = SafetensorsFile.fromBytes(writeSafetensors({ w: { shape: [1], data: new Float32Array(1) } }));
    expect(() => file.tensor('v')).toThrow(/no tensor named 'v'; the file has 1 tensors \(e.g. 'w'\)/);
  });
});

describe('header validation', () => {
  const ok = JSON.stringify({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } });
  const cases: [string, Uint8Array, RegExp][] = [
    ['a file shorter than 8 bytes', new Uint8Array(5), /need 8 bytes for the header length, got 5/],
    ['a header length past the end of the file', handMade(ok, f32Bytes([1, 2]), 1000), /says 1000 bytes but the file has only 62/],
    ['an absurd header length', handMade(ok, [], 2 ** 40), /header length field says 1099511627776 bytes/],
    ['broken JSON', handMade('{"a": {', []), /header is not valid JSON/],
    ['a JSON array', handMade('[1, 2]', []), /header must be a JSON object, got an array/],
    ['an unknown dtype', handMade(JSON.stringify({ a: { dtype: 'Q4', shape: [2], data_offsets: [0, 1] } }), [0]), /tensor 'a' has unknown dtype "Q4"/],
    ['a size mismatch', handMade(JSON.stringify({ a: { dtype: 'F32', shape: [2, 3], data_offsets: [0, 8] } }), f32Bytes([1, 2])),
      /tensor 'a' \(F32, shape \[2, 3\]\) needs 24 bytes but data_offsets \[0, 8\] span 8/],
    ['offsets past the data', handMade(ok, f32Bytes([1])), /tensor 'a' ends at data byte 8 but the data section has only 4 bytes/],
    ['bad offsets', handMade(JSON.stringify({ a: { dtype: 'F32', shape: [0], data_offsets: [4, 0] } }), []), /data_offsets must be \[begin, end\]/],
    ['a bad shape', handMade(JSON.stringify({ a: { dtype: 'F32', shape: [-1], data_offsets: [0, 0] } }), []), /shape must be an array of non-negative integers/],
    ['overlapping tensors', handMade(JSON.stringify({
      a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
      b: { dtype: 'F32', shape: [1], data_offsets: [4, 8] },
    }), f32Bytes([1, 2])), /tensors 'a' \[0, 8\) and 'b' \[4, 8\) overlap/],
    ['non-string metadata', handMade(JSON.stringify({ __metadata__: { step: 3 } }), []), /"__metadata__"."step" must be a string/],
  ];
  it.each(cases)('rejects %s', (_what, bytes, message) => {
    expect(() => parseSafetensorsHeader(bytes)).toThrow(message);
  });

  it('accepts the same file when it is valid', () => {
    const header = parseSafetensorsHeader(handMade(ok, f32Bytes([1, 2])));
    expect(header.dataStart).toBe(8 + ok.length);
    expect(header.dataLength).toBe(8);
    expect(header.tensors.get('a')).toEqual({ name: 'a', dtype: 'F32', shape: [2], begin: 0, end: 8 });
  });
});

describe('writing', () => {
  it('lays out an aligned, space-padded header and little-endian data', () => {
    const bytes = writeSafetensors({ w: { shape: [2], data: new Float32Array([1, -2]) } }, { format: 'pt' });
    const view = new DataView(bytes.buffer);
    const n = view.getUint32(0, true);
    expect(view.getUint32(4, true)).toBe(0);
    expect((8 + n) % 8).toBe(0);
    const text = new TextDecoder().decode(bytes.subarray(8, 8 + n));
    expect(text.trimEnd()).toBe('{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}');
    expect(text.slice(text.trimEnd().length)).toMatch(/^ *$/);
    expect([...bytes.subarray(8 + n)]).toEqual([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]);
  });

  it('round-trips F32 and I32 tensors of many shapes, keeping order', () => {
    const rng = new Rng(7);
    const tensors = new Map<string, { shape: number[]; data: Float32Array | Int32Array }>([
      ['model.embed_tokens.weight', { shape: [17, 5], data: randomNormal(rng, 85) }],
      ['scalar', { shape: [], data: new Float32Array([Math.PI]) }],
      ['empty', { shape: [0, 3], data: new Float32Array(0) }],
      ['ids', { shape: [2, 3], data: new Int32Array([1, -2, 3, 2 ** 31 - 1, -(2 ** 31), 0]) }],
      ['odd', { shape: [3], data: randomNormal(rng, 3) }],
    ]);
    const back = readSafetensors(writeSafetensors(tensors));
    expect([...back.keys()]).toEqual([...tensors.keys()]);
    for (const [name, t] of tensors) {
      expect(back.get(name)!.shape).toEqual(t.shape);
      expect(back.get(name)!.data).toEqual(t.data);
      expect(back.get(name)!.dtype).toBe(t.data instanceof Int32Array ? 'I32' : 'F32');
    }
  });

  it('writes F16 and BF16 on request, rounding like the reader expects', () => {
    const data = new Float32Array([1, -2, 0.1, 65504]);
    const back = readSafetensors(writeSafetensors({
      h: { shape: [4], data, dtype: 'F16' },
      b: { shape: [2, 2], data, dtype: 'BF16' },
    }));
    expect(back.get('h')!.data).toEqual(new Float32Array([1, -2, 0.0999755859375, 65504]));
    expect(back.get('b')!.data).toEqual(new Float32Array([1, -2, 0.10009765625, 65536]));
  });

  it('gives parts whose concatenation is the file (for Blobs of big models)', () => {
    const tensors = { a: { shape: [3], data: new Float32Array([1, 2, 3]) }, b: { shape: [1], data: new Int32Array([4]) } };
    const parts = safetensorsParts(tensors);
    expect(parts).toHaveLength(3);
    expect(parts[1].byteLength).toBe(12);
    const joined = new Uint8Array(parts.reduce((s, p) => s + p.byteLength, 0));
    let at = 0;
    for (const p of parts) { joined.set(p, at); at += p.byteLength; }
    expect(joined).toEqual(writeSafetensors(tensors));
  });

  it('copies tensors that live in a SharedArrayBuffer, so Blobs accept the parts', async () => {
    const shared = new Float32Array(new SharedArrayBuffer(8));
    shared.set([1, 2]);
    const parts = safetensorsParts({ w: { shape: [2], data: shared } });
    expect(parts[1].buffer).toBeInstanceOf(ArrayBuffer);
    const back = readSafetensors(await new Blob(parts).arrayBuffer());
    expect(back.get('w')!.data).toEqual(new Float32Array([1, 2]));
  });

  it('rejects mismatched shapes, dtypes and names', () => {
    expect(() => writeSafetensors({ w: { shape: [2, 2], data: new Float32Array(3) } }))
      .toThrow(/tensor 'w': shape \[2, 2\] has 4 elements but data has 3/);
    expect(() => writeSafetensors({ w: { shape: [1], data: new Float32Array(1), dtype: 'I32' } }))
      .toThrow(/cannot write Float32Array as I32/);
    expect(() => writeSafetensors({ w: { shape: [1], data: new Int32Array(1), dtype: 'BF16' } }))
      .toThrow(/cannot write Int32Array as BF16/);
    expect(() => writeSafetensors({ __metadata__: { shape: [1], data: new Float32Array(1) } })).toThrow(/cannot be a tensor name/);
  });
});
