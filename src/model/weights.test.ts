// GpuWeights.frozenCopy (GRPO's KL reference): a GPU-side copy equal to the source at copy time and
// independent of it afterwards; refused for a model with LoRA adapters.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { BYTE_VOCAB_SIZE, type ModelConfig } from './config';
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
    w.lora = {} as GpuWeights['lora'];
    expect(() => w.frozenCopy()).toThrow(/LoRA adapters attached/);
    w.lora = undefined;
    copy.destroy();
    w.destroy();
  });
});
