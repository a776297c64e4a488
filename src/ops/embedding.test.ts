import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import * as ref from '../reference/ops';
import { Rng } from '../util/rng';
import { roundToF16 } from '../model/halfFloat';
import { relativeError } from '../reference/ops/finiteDiff';
import { checkTokenIds, embeddingBackward, embeddingForward } from './embedding';
import { packF16 } from './matmulPackedF16';
import { errorVs, randF32as64, upload64, uploadI32 } from './testUtil';

const TOL = 1e-4;

describe.each(TEST_ADAPTERS)('embedding on %s', (adapter) => {
  it.each([
    [1, 11, 8],
    [37, 13, 53], // few ids, many tokens: every id repeats
    [300, 272, 96],
  ])(`forward and scatter-add backward (N=%i, V=%i, C=%i), rel err ≤ ${TOL}`, async (N, V, C) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(N + V + C);
    const ids = Int32Array.from({ length: N }, () => rng.int(0, V - 1));
    const table = randF32as64(rng, V * C);
    const dout = randF32as64(rng, N * C);
    const spec = { N, V, C };
    const [tIds, tTable, tD] = [uploadI32(rt, ids, [N]), upload64(rt, table, [V, C]), upload64(rt, dout, [N, C])];
    const out = embeddingForward(rt, tIds, tTable, spec);
    const dtable = embeddingBackward(rt, tD, tIds, spec);
    expect(await errorVs(rt, out, ref.embeddingForward(ids, table, V, C))).toBeLessThanOrEqual(TOL);
    expect(await errorVs(rt, dtable, ref.embeddingBackward(dout, ids, V, C))).toBeLessThanOrEqual(TOL);
    rt.release(tIds, tTable, tD, out, dtable);
  });

  it('accumulates into an existing gradient (tied embeddings) and counts repeated ids', async () => {
    const rt = await testRuntime(adapter);
    const ids = Int32Array.from([2, 2, 2, 0]);
    const dout = new Float64Array(4 * 2).fill(1);
    const tIds = uploadI32(rt, ids, [4]);
    const dtable = upload64(rt, Float64Array.from([10, 10, 0, 0, 0, 0]), [3, 2]);
    embeddingBackward(rt, upload64(rt, dout, [4, 2]), tIds, { N: 4, V: 3, C: 2 }, dtable);
    expect(Array.from(await rt.readF32(dtable))).toEqual([11, 11, 0, 0, 3, 3]);
  });

  it.each([[37, 13, 53, 4], [300, 272, 96, 3]])(`a table in row parts (N=%i, V=%i, C=%i, %i parts), f32 and packed f16: forward and backward = the whole table, rel err ≤ ${TOL}`, async (N, V, C, parts) => {
    const rt = await testRuntime(adapter);
    const rng = new Rng(N * parts);
    const ids = Int32Array.from({ length: N }, () => rng.int(0, V - 1));
    const table = randF32as64(rng, V * C, 0.5);
    const dout = randF32as64(rng, N * C);
    const tIds = uploadI32(rt, ids, [N]);
    const tD = upload64(rt, dout, [N, C]);
    const ranges = Array.from({ length: parts }, (_, p) => [Math.floor((p * V) / parts), Math.floor(((p + 1) * V) / parts)]);
    const rounded = Float64Array.from(table, roundToF16);
    for (const f16 of [false, true]) {
      const out = rt.empty([N, C], 'f32', 'out');
      for (const [r0, r1] of ranges) {
        const rows = Float32Array.from(table.subarray(r0 * C, r1 * C));
        const part = f16 ? packF16(rt, rt.upload(rows, [r1 - r0, C])) : rt.upload(rows, [r1 - r0, C]);
        embeddingForward(rt, tIds, part, { N, V: r1 - r0, C, row0: r0, partial: true }, out);
      }
      expect(await errorVs(rt, out, ref.embeddingForward(ids, f16 ? rounded : table, V, C)), f16 ? 'f16' : 'f32').toBeLessThanOrEqual(TOL);
    }
    const grads = ranges.map(([r0, r1]) => rt.zeros([r1 - r0, C], 'f32', 'dpart'));
    ranges.forEach(([r0, r1], p) => embeddingBackward(rt, tD, tIds, { N, V: r1 - r0, C, row0: r0, partial: true }, grads[p]));
    const joined = new Float32Array(V * C);
    for (let p = 0; p < parts; p++) joined.set(await rt.readF32(grads[p]), ranges[p][0] * C);
    expect(relativeError(joined, ref.embeddingBackward(dout, ids, V, C))).toBeLessThanOrEqual(TOL);
    expect(() => embeddingForward(rt, tIds, grads[0], { N, V: ranges[0][1], C, row0: 0, partial: true })).toThrow(/pass `out`/);
  });

  it('rejects out-of-vocabulary ids on the host with the position', () => {
    expect(() => checkTokenIds([1, 2, 300], 272)).toThrow(/position 2 holds id 300, outside the vocabulary \[0, 272\)/);
  });
});
