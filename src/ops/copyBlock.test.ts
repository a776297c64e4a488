// Block copy between matrices of different widths (the glue of a split LM head): placed and taken
// back out exactly, accumulate adds, bad ranges are refused before any dispatch.
import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import { copyBlock } from './copyBlock';

describe.each(TEST_ADAPTERS)('copyBlock on %s', (adapter) => {
  it('places a (rows, cols) block into columns of a wider matrix and takes it back out, exactly', async () => {
    const rt = await testRuntime(adapter);
    const [rows, cols, wide, col0] = [37, 13, 53, 29];
    const block = Float32Array.from({ length: rows * cols }, (_, i) => i * 0.5 - 7);
    const base = Float32Array.from({ length: rows * wide }, (_, i) => -i);
    const tBlock = rt.upload(block, [rows, cols]);
    const tWide = rt.upload(base, [rows, wide]);
    copyBlock(rt, tBlock, tWide, { rows, cols, srcStride: cols, srcCol0: 0, dstStride: wide, dstCol0: col0 });
    const want = base.slice();
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) want[r * wide + col0 + c] = block[r * cols + c];
    expect(await rt.readF32(tWide)).toEqual(want);
    const back = rt.zeros([rows, cols]);
    copyBlock(rt, tWide, back, { rows, cols, srcStride: wide, srcCol0: col0, dstStride: cols, dstCol0: 0 });
    expect(await rt.readF32(back)).toEqual(block);
    copyBlock(rt, tWide, back, { rows, cols, srcStride: wide, srcCol0: col0, dstStride: cols, dstCol0: 0, accumulate: true });
    expect(await rt.readF32(back)).toEqual(block.map((v) => 2 * v));
    expect(() => copyBlock(rt, tBlock, tWide, { rows, cols, srcStride: cols, srcCol0: 0, dstStride: wide, dstCol0: 41 })).toThrow(/columns \[41, 54\) do not fit dst rows of 53/);
    expect(() => copyBlock(rt, tWide, tWide, { rows, cols, srcStride: wide, srcCol0: 0, dstStride: wide, dstCol0: 1 })).toThrow(/both source and destination/);
    rt.release(tBlock, tWide, back);
  });
});
