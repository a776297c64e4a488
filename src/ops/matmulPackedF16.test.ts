// Packed-f16 weight matmuls against the float64 reference matmul run on the f16-ROUNDED weights
// (rel err ≤ 1e-4: only the f32 accumulation differs), and the GPU f32 ⇄ f16 conversions bit for
// bit against the host encoder (src/model/halfFloat.ts) on special values.
import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import { f16BitsToFloat32, float32ToF16Bits, packF16Pairs, roundToF16 } from '../model/halfFloat';
import * as ref from '../reference/ops';
import { Rng } from '../util/rng';
import { isPackedF16, matmulPackedF16BackwardInput, matmulPackedF16Forward, packF16, type PackedLinearSpec, unpackF16 } from './matmulPackedF16';
import { errorVs, randF32as64, upload64 } from './testUtil';

const TOL = 1e-4;

// Values that exercise every branch of the encoder: ties to even (normal and subnormal), the
// subnormal → normal carry, overflow and the round-up to Inf, underflow to ±0, Inf, NaN, f32 subnormals.
const SPECIAL = new Float32Array([
  0, -0, 1, -2, 0.1, 1 / 3, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -11 + 2 ** -20, 65504, 65519, 65520, 1e6, -1e6,
  2 ** -24, 2 ** -25, 3 * 2 ** -25, 2 ** -14 - 2 ** -25, 2 ** -14, 5e-6, -3.3e-7, 1e-10, 1e-40, -1e-45,
  Infinity, -Infinity, NaN, 3.4e38, 7,
]); // 29 values: an odd count, so the last word's high half is 0

describe.each(TEST_ADAPTERS)('packed f16 weights on %s', (adapter) => {
  it('GPU pack = host float32ToF16Bits bit for bit (RNE, subnormals, ±Inf, NaN, overflow); unpack is exact', async () => {
    const rt = await testRuntime(adapter);
    console.log(`${adapter}: shader-f16 ${rt.ctx.features.shaderF16 ? 'present' : 'absent'}`);
    const rng = new Rng(3);
    const random = Float32Array.from({ length: 1001 }, () => rng.normal(0, 1) * 2 ** rng.int(-30, 18));
    for (const values of [SPECIAL, random]) {
      const x = rt.upload(values, [values.length], 'f32', 'x');
      const p = packF16(rt, x);
      expect(isPackedF16(p)).toBe(true);
      expect(p.size).toBe(Math.ceil(values.length / 2));
      const words = (await rt.read(p)) as Uint32Array;
      const want = packF16Pairs(values);
      const bad = [...words].flatMap((wd, i) => (wd === want[i] ? [] : [`${values[2 * i]}, ${values[2 * i + 1]}: 0x${wd.toString(16)} vs 0x${want[i].toString(16)}`]));
      expect(bad).toEqual([]);
      const back = await rt.readF32(unpackF16(rt, p));
      const exact = values.every((v, i) => {
        const h = float32ToF16Bits(v);
        return Number.isNaN(v) ? Number.isNaN(back[i]) : Object.is(back[i], f16BitsToFloat32(h));
      });
      expect(exact).toBe(true);
      rt.release(x, p);
    }
  });

  it.each([
    [{ rows: 37, inF: 53, outF: 29 }, false], // odd `in`: one word per value
    [{ rows: 37, inF: 54, outF: 29 }, false], // even `in`, not a multiple of 4: paired loads with a tail
    [{ rows: 70, inF: 64, outF: 96 }, false], // model-like, 16-row blocks
    [{ rows: 1, inF: 24, outF: 9 }, false], // decode step (thin kernel)
    [{ rows: 5, inF: 22, outF: 31 }, true], // even `in` forced through the unpaired path
    [{ rows: 40, inF: 36, outF: 20 }, false], // K % 4 == 0 both ways: vec4 activation loads, M past a tile
    [{ rows: 40, inF: 36, outF: 20 }, true], // the same through per-float activation loads
  ] as [PackedLinearSpec, boolean][])(`%o (unpaired, scalar A: %s): y = x·Wᵀ and dx = dy·W vs float64 on f16-rounded W, rel err ≤ ${TOL}; accumulate`, async (spec, unpaired) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(spec.rows * 131 + spec.inF);
    const { rows, inF, outF } = spec;
    const x = randF32as64(rng, rows * inF);
    const w = randF32as64(rng, outF * inF, 0.5);
    const dy = randF32as64(rng, rows * outF);
    const wRounded = w.map(roundToF16);
    expect(wRounded.some((v, i) => v !== w[i])).toBe(true); // the rounding is real: the reference must use it
    const wt = upload64(rt, w, [outF, inF], 'W');
    const wp = packF16(rt, wt);
    rt.release(wt); // the f32 copy is gone: only the packed one is read
    const [tx, tdy] = [upload64(rt, x, [rows, inF], 'x'), upload64(rt, dy, [rows, outF], 'dy')];
    const opts = { unpaired, scalarA: unpaired };

    const y = matmulPackedF16Forward(rt, tx, wp, spec, undefined, opts);
    const yRef = ref.matmulForward(x, wRounded, { batch: 1, M: rows, K: inF, N: outF, transA: false, transB: true });
    expect(await errorVs(rt, y, yRef)).toBeLessThanOrEqual(TOL);
    const yUnrounded = ref.matmulForward(x, w, { batch: 1, M: rows, K: inF, N: outF, transA: false, transB: true });
    expect(await errorVs(rt, y, yUnrounded)).toBeGreaterThan(TOL); // the test can tell f16 from f32 weights
    const dx = matmulPackedF16BackwardInput(rt, tdy, wp, spec, undefined, opts);
    const dxRef = ref.matmulForward(dy, wRounded, { batch: 1, M: rows, K: outF, N: inF, transA: false, transB: false });
    expect(await errorVs(rt, dx, dxRef)).toBeLessThanOrEqual(TOL);
    // accumulate: dx += dy·W again ⇒ 2·dxRef
    matmulPackedF16BackwardInput(rt, tdy, wp, spec, dx, { ...opts, accumulate: true });
    expect(await errorVs(rt, dx, dxRef.map((v) => 2 * v))).toBeLessThanOrEqual(TOL);
    matmulPackedF16Forward(rt, tx, wp, spec, y, { ...opts, accumulate: true });
    expect(await errorVs(rt, y, yRef.map((v) => 2 * v))).toBeLessThanOrEqual(TOL);
    rt.release(wp, tx, tdy, y, dx);
  });

  it('names shape mistakes', async () => {
    const rt = await testRuntime(adapter);
    const wt = rt.zeros([4, 6], 'f32', 'W');
    const wp = packF16(rt, wt);
    const x = rt.zeros([3, 6], 'f32', 'x');
    expect(() => matmulPackedF16Forward(rt, x, wp, { rows: 3, inF: 4, outF: 6 })).toThrow(/\[4, 6\], the spec needs \(out, in\) = \(6, 4\)/);
    expect(() => matmulPackedF16Forward(rt, x, wt as never, { rows: 3, inF: 6, outF: 4 })).toThrow(/not a packed-f16 tensor/);
    expect(() => matmulPackedF16BackwardInput(rt, x, wp, { rows: 3, inF: 6, outF: 4 })).toThrow(/input 'x' has 18 elements, expected \(3, 4\)/);
    expect(() => packF16(rt, rt.zeros([2], 'u32', 'ids'))).toThrow(/only f32/);
    rt.release(wt, wp, x);
  });
});
