import { describe, expect, it } from 'vitest';
import { Rng } from '../util/rng';
import {
  bf16ArrayToFloat32, bf16BitsToFloat32, f16ArrayToFloat32, f16BitsToFloat32, float32ArrayToBF16, float32ArrayToF16, float32ToBF16Bits, float32ToF16Bits, packF16Pairs, roundArrayToBF16, roundArrayToF16, roundToF16, unpackF16Pairs,
} from './halfFloat';

describe('F16', () => {
  it('decodes known bit patterns', () => {
    expect(f16BitsToFloat32(0x3c00)).toBe(1);
    expect(f16BitsToFloat32(0xc000)).toBe(-2);
    expect(f16BitsToFloat32(0x7bff)).toBe(65504); // largest finite
    expect(f16BitsToFloat32(0x0001)).toBe(2 ** -24); // smallest subnormal
    expect(f16BitsToFloat32(0x0400)).toBe(2 ** -14); // smallest normal
    expect(f16BitsToFloat32(0x3555)).toBeCloseTo(1 / 3, 3);
    expect(f16BitsToFloat32(0x7c00)).toBe(Infinity);
    expect(f16BitsToFloat32(0xfc00)).toBe(-Infinity);
    expect(f16BitsToFloat32(0x7e00)).toBeNaN();
    expect(Object.is(f16BitsToFloat32(0x8000), -0)).toBe(true);
  });

  it('encode(decode(h)) = h for every non-NaN pattern, and the table agrees', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const table = f16ArrayToFloat32(all);
    const bad: string[] = [];
    for (let h = 0; h < 65536; h++) {
      const x = f16BitsToFloat32(h);
      if (Number.isNaN(x)) continue;
      if (!Object.is(table[h], Math.fround(x)) || float32ToF16Bits(x) !== h) bad.push(`0x${h.toString(16)}`);
    }
    expect(bad).toEqual([]);
  });

  it('rounds to nearest, ties to even, and saturates to Inf', () => {
    expect(float32ToF16Bits(1 + 2 ** -11)).toBe(0x3c00); // tie → even (down)
    expect(float32ToF16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie → even (up)
    expect(float32ToF16Bits(1 + 2 ** -11 + 2 ** -20)).toBe(0x3c01); // above the tie
    expect(float32ToF16Bits(65519)).toBe(0x7bff);
    expect(float32ToF16Bits(65520)).toBe(0x7c00); // rounds up to Inf
    expect(float32ToF16Bits(1e6)).toBe(0x7c00);
    expect(float32ToF16Bits(-1e6)).toBe(0xfc00);
    expect(float32ToF16Bits(2 ** -25)).toBe(0x0000); // tie between 0 and the smallest subnormal → 0
    expect(float32ToF16Bits(3 * 2 ** -25)).toBe(0x0002); // tie between 1 and 2 units → 2
    expect(float32ToF16Bits(2 ** -14 - 2 ** -25)).toBe(0x0400); // carries from subnormal into normal
    expect(float32ToF16Bits(1e-10)).toBe(0);
    expect(float32ToF16Bits(NaN) & 0x7e00).toBe(0x7e00);
  });
});

describe('BF16', () => {
  it('decodes known bit patterns', () => {
    expect(bf16BitsToFloat32(0x3f80)).toBe(1);
    expect(bf16BitsToFloat32(0xc040)).toBe(-3);
    expect(bf16BitsToFloat32(0x4049)).toBe(3.140625);
    expect(bf16BitsToFloat32(0x7f80)).toBe(Infinity);
    expect(bf16BitsToFloat32(0x7fc0)).toBeNaN();
  });

  it('encode(decode(b)) = b for every non-NaN pattern, and the array decoder agrees', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const decoded = bf16ArrayToFloat32(all);
    const bad: string[] = [];
    for (let b = 0; b < 65536; b++) {
      const x = bf16BitsToFloat32(b);
      if (Number.isNaN(x)) continue;
      if (!Object.is(decoded[b], x) || float32ToBF16Bits(x) !== b) bad.push(`0x${b.toString(16)}`);
    }
    expect(bad).toEqual([]);
  });

  it('rounds to nearest, ties to even', () => {
    expect(float32ToBF16Bits(1 + 2 ** -8)).toBe(0x3f80); // tie → even (down)
    expect(float32ToBF16Bits(1 + 3 * 2 ** -8)).toBe(0x3f82); // tie → even (up)
    expect(float32ToBF16Bits(1 + 2 ** -8 + 2 ** -20)).toBe(0x3f81);
    expect(float32ToBF16Bits(Math.PI)).toBe(0x4049);
    expect(bf16BitsToFloat32(float32ToBF16Bits(NaN))).toBeNaN();
  });
});

describe('F16 pairs (packed frozen weights)', () => {
  it('packs two per u32 (low half first, odd tail 0) and unpacks exactly; roundToF16 = decode(encode)', () => {
    const v = [1, -2, 65504, 2 ** -24, 1e6, -0, 0.1];
    const w = packF16Pairs(v);
    expect([...w]).toEqual([(0xc000 << 16 | 0x3c00) >>> 0, (0x0001 << 16 | 0x7bff) >>> 0, (0x8000 << 16 | 0x7c00) >>> 0, 0x2e66]);
    const back = unpackF16Pairs(w, v.length);
    expect([...back]).toEqual([1, -2, 65504, 2 ** -24, Infinity, -0, roundToF16(0.1)]);
    expect(roundToF16(0.1)).toBe(0.0999755859375);
    expect(roundToF16(1 + 2 ** -11)).toBe(1); // ties to even
    expect(roundToF16(3 * 2 ** -25)).toBe(2 ** -23); // subnormal tie → even (2 units)
    expect(roundToF16(70000)).toBe(Infinity);
    expect(roundToF16(NaN)).toBeNaN();
    expect(() => unpackF16Pairs(w, 9)).toThrow(/cannot hold/);
  });
});

describe('bulk conversions', () => {
  it('equal the per-value conversions bit for bit (random values at every scale, subnormals, ties, ±0, ±Inf, NaN, odd lengths)', () => {
    const rng = new Rng(9);
    const values = Float32Array.from({ length: 20001 }, (_, i) => (i % 7 === 0 ? rng.normal(0, 1e-6) : i % 5 === 0 ? rng.normal(0, 1e5) : rng.normal(0, 1)));
    values.set([0, -0, Infinity, -Infinity, NaN, 65504, 65520, 2 ** -24, 3 * 2 ** -25, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1e-10, -1e-8], 0);
    const f16 = float32ArrayToF16(values);
    const bf16 = float32ArrayToBF16(values);
    for (let i = 0; i < values.length; i++) {
      expect(f16[i], `f16 of ${values[i]}`).toBe(float32ToF16Bits(values[i]));
      expect(bf16[i], `bf16 of ${values[i]}`).toBe(float32ToBF16Bits(values[i]));
    }
    const rounded = roundArrayToF16(values);
    for (let i = 0; i < values.length; i++) expect(Object.is(rounded[i], Math.fround(roundToF16(values[i]))) || (Number.isNaN(rounded[i]) && Number.isNaN(values[i])), `${values[i]}`).toBe(true);
    expect(unpackF16Pairs(packF16Pairs(values), values.length)).toEqual(rounded);
    expect(roundArrayToBF16(values).subarray(20, 30)).toEqual(Float32Array.from(values.subarray(20, 30), (x) => bf16BitsToFloat32(float32ToBF16Bits(x))));
    const unaligned = new Float32Array(new Uint8Array(4 * 11 + 4).buffer, 4, 11); // a view at an offset still works
    unaligned.set(values.subarray(0, 11));
    expect(float32ArrayToF16(unaligned)).toEqual(f16.subarray(0, 11));
  });
});
