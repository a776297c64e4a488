// 16-bit float conversions (IEEE binary16 "F16" and bfloat16 "BF16") to and from float32.
// Used by the safetensors reader (HF checkpoints are usually BF16) and by tests that build F16/BF16
// files by hand. Encoders round to nearest, ties to even, like numpy / torch.

const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/** Value of one binary16 bit pattern. */
export function f16BitsToFloat32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24; // zero or subnormal
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + mant / 1024);
}

/** Value of one bfloat16 bit pattern (the top half of a float32). */
export function bf16BitsToFloat32(b: number): number {
  scratchU32[0] = (b & 0xffff) << 16;
  return scratchF32[0];
}

/** binary16 bit pattern nearest to x (ties to even; overflow → ±Inf; NaN stays NaN). */
export function float32ToF16Bits(x: number): number {
  scratchF32[0] = x;
  const bits = scratchU32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15; // re-biased exponent
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal in f16: count units of 2^-24; m · 2^(exp-150) = (m >> shift) · 2^-24.
    const shift = 14 - e;
    if (shift > 24) return sign; // below half the smallest subnormal
    const m = mant | 0x800000;
    let h = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rest > half || (rest === half && (h & 1))) h++; // a carry into the exponent is still right
    return sign | h;
  }
  let h = sign | (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++; // may carry up to Inf, which is right
  return h;
}

/** bfloat16 bit pattern nearest to x (ties to even; NaN stays a quiet NaN). */
export function float32ToBF16Bits(x: number): number {
  scratchF32[0] = x;
  const bits = scratchU32[0];
  if ((bits & 0x7fffffff) > 0x7f800000) return ((bits >>> 16) | 0x40) & 0xffff;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

let f16Table: Float32Array | null = null;

/** Float32 values of n F16 bit patterns (a 256 KiB lookup table, built on first use). */
export function f16ArrayToFloat32(bits: Uint16Array): Float32Array {
  if (!f16Table) {
    f16Table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) f16Table[h] = f16BitsToFloat32(h);
  }
  const table = f16Table;
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = table[bits[i]];
  return out;
}

/** Float32 values of n BF16 bit patterns: each is the high half of the float32. */
export function bf16ArrayToFloat32(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  const outBits = new Uint32Array(out.buffer);
  for (let i = 0; i < bits.length; i++) outBits[i] = bits[i] << 16;
  return out;
}

/** The float32 bit patterns of an array (a view when aligned, else a copy). */
function bitsOf(values: Float32Array): Uint32Array {
  return values.byteOffset % 4 === 0 ? new Uint32Array(values.buffer, values.byteOffset, values.length) : new Uint32Array(Float32Array.from(values).buffer);
}

/** float32ToF16Bits on raw float32 bits (the bulk loops' inner step; same rounding). */
function f16FromBits(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 112;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    const shift = 14 - e;
    if (shift > 24) return sign;
    const m = mant | 0x800000;
    let h = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rest > half || (rest === half && (h & 1))) h++;
    return sign | h;
  }
  let h = sign | (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++;
  return h;
}

/** F16 bit patterns of every element (round to nearest even; ~10× faster than per-value calls). */
export function float32ArrayToF16(values: Float32Array): Uint16Array {
  const bits = bitsOf(values);
  const out = new Uint16Array(values.length);
  for (let i = 0; i < bits.length; i++) out[i] = f16FromBits(bits[i]);
  return out;
}

/** BF16 bit patterns of every element (round to nearest even; NaN stays a quiet NaN). */
export function float32ArrayToBF16(values: Float32Array): Uint16Array {
  const bits = bitsOf(values);
  const out = new Uint16Array(values.length);
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i];
    out[i] = (b & 0x7fffffff) > 0x7f800000 ? ((b >>> 16) | 0x40) & 0xffff : ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
  }
  return out;
}

/** Every element rounded to the nearest f16 value, as float32 (what an f16-stored weight computes with). */
export function roundArrayToF16(values: Float32Array): Float32Array {
  return f16ArrayToFloat32(float32ArrayToF16(values));
}

/** Every element rounded to the nearest bfloat16 value, as float32 (what a BF16 file holds). */
export function roundArrayToBF16(values: Float32Array): Float32Array {
  return bf16ArrayToFloat32(float32ArrayToBF16(values));
}

/** F16 values packed two per u32 word, low half first (the layout of src/ops/matmulPackedF16). */
export function packF16Pairs(values: ArrayLike<number>): Uint32Array {
  const halves = float32ArrayToF16(values instanceof Float32Array ? values : Float32Array.from(values));
  const out = new Uint32Array(Math.ceil(halves.length / 2));
  const even = halves.length >> 1;
  for (let i = 0; i < even; i++) out[i] = halves[2 * i] | (halves[2 * i + 1] << 16);
  if (halves.length & 1) out[even] = halves[halves.length - 1];
  return out;
}

/** The n values of packF16Pairs' words, as float32. */
export function unpackF16Pairs(words: Uint32Array, n: number): Float32Array {
  if (words.length !== Math.ceil(n / 2)) throw new Error(`unpackF16Pairs: ${words.length} words cannot hold exactly ${n} values`);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = f16BitsToFloat32((words[i >> 1] >>> (16 * (i & 1))) & 0xffff);
  return out;
}

/** x rounded to the nearest binary16 value (ties to even), as a number (float64 references). */
export function roundToF16(x: number): number {
  return f16BitsToFloat32(float32ToF16Bits(x));
}
