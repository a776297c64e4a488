// GpuWeights.frozenCopy (GRPO's KL reference): a GPU-side copy equal to the source at copy time and
// independent of it afterwards (the LoRA case, which shares the frozen base, is in layouts.test.ts);
// writeRows across row parts and f16 packing.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { BYTE_VOCAB_SIZE, type ModelConfig } from './config';
import { roundToF16 } from './halfFloat';
import { GpuWeights, initialWeights } from './weights';

const CFG: ModelConfig = {
  vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 16, intermediateSize: 32, numLayers: 1, numHeads: 2, numKvHeads: 1, headDim: 8,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: true, tokenizer: 'byte',
};

describe('GpuWeights.frozenCopy (llvmpipe)', () => {
  it('copies every parameter on the GPU and stays unchanged when the source is written', async () => {
    const rt = await testRuntime('opengles');
    const init = initialWeights(CFG, 1);
    const w = new GpuWeights(rt, CFG, init);
    const copy = w.frozenCopy();
    for (const [name, v] of init) rt.write(w.get(name), v.map((x) => x + 1));
    const [src, ref] = [await w.download(), await copy.download()];
    for (const [name, v] of init) {
      expect(ref.get(name), name).toEqual(v);
      expect(src.get(name)![0], name).toBeCloseTo(v[0] + 1, 6);
    }
    copy.destroy();
    w.destroy();
  });

  it('writeRows fills a split, f16-packed tensor a slice at a time; download joins and unpacks it', async () => {
    const rt = await testRuntime('opengles');
    const init = initialWeights(CFG, 2);
    const w = new GpuWeights(rt, CFG, null, { f16Base: true, maxPartBytes: 1024 });
    const name = 'model.embed_tokens.weight';
    expect(w.parts(name).length).toBe(9); // 272 rows × 16 f16 = 8704 bytes in ≤ 1 KiB parts (≤ 32 rows)
    const table = init.get(name)!;
    for (let row = 0; row < 272; row += 50) w.writeRows(name, row, table.subarray(row * 16, Math.min(272, row + 50) * 16));
    for (const [k, v] of init) if (k !== name) w.write(k, v);
    const back = await w.download();
    expect(back.get(name)).toEqual(table.map(roundToF16));
    expect(back.get('model.norm.weight')).toEqual(init.get('model.norm.weight'));
    expect(() => w.writeRows(name, 270, new Float32Array(48))).toThrow(/do not fit/);
    w.destroy();
  });
});
