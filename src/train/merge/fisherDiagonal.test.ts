// The GPU Fisher diagonal against the float64 reference model: for each conversation the reference's
// gradient of its summed log-likelihood (the mean loss's gradient × the scored tokens), squared, then
// averaged over conversations — every tensor, relative error ≤ 2e-3 (a square doubles the 1e-3 of the
// gradient check), on conversations of different lengths (each padded to the longest).
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../../gpu/testDevice';
import type { ModelConfig } from '../../model/config';
import { parameterTable } from '../../model/parameters';
import { referenceLoss } from '../../reference/model';
import { relativeError } from '../../reference/ops/finiteDiff';
import { Rng } from '../../util/rng';
import { fisherDiagonal } from './fisherDiagonal';

const TINY: ModelConfig = {
  vocabSize: 11, hiddenSize: 8, intermediateSize: 12, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 4,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: true, tokenizer: 'byte',
};

describe('fisherDiagonal', () => {
  it('is the mean over conversations of the squared gradient of each one\'s log-likelihood (float64 reference)', async () => {
    const rt = await testRuntime('opengles');
    const rng = new Rng(17);
    const weights = new Map(parameterTable(TINY).map((p) => [p.name, Float32Array.from({ length: p.shape.reduce((a, b) => a * b, 1) }, () => (p.kind === 'norm' ? 1 + rng.normal(0, 0.2) : rng.normal(0, 0.4)))]));
    const docs = [7, 4, 6].map((L) => {
      const ids = Array.from({ length: L }, () => rng.int(0, TINY.vocabSize - 1));
      const mask = Array.from({ length: L }, (_, i) => (i >= 2 ? 1 : 0)); // the first two tokens are the "prompt"
      return { ids, mask };
    });
    const padId = 0;
    const got = await fisherDiagonal(rt, TINY, weights, docs, padId);

    const ref64 = new Map([...weights].map(([k, v]) => [k, Float64Array.from(v)]));
    const expected = new Map(parameterTable(TINY).map((p) => [p.name, new Float64Array(p.shape.reduce((a, b) => a * b, 1))]));
    for (const d of docs) {
      const T = d.ids.length;
      const inputIds = Int32Array.from(d.ids);
      const targets = Int32Array.from({ length: T }, (_, i) => (i + 1 < T ? d.ids[i + 1] : padId));
      const mask = Float64Array.from({ length: T }, (_, i) => (i + 1 < T ? d.mask[i + 1] : 0));
      const scored = mask.reduce((a, b) => a + b, 0);
      const { grads } = referenceLoss(TINY, ref64, inputIds, targets, mask, 1, T);
      for (const [name, acc] of expected) {
        const g = grads.get(name)!;
        for (let j = 0; j < acc.length; j++) acc[j] += (g[j] * scored) ** 2 / docs.length;
      }
    }
    for (const [name, e] of expected) {
      expect(relativeError(got.get(name)!, e), name).toBeLessThanOrEqual(2e-3);
      expect(got.get(name)!.some((x) => x > 0), name).toBe(true);
    }
  }, 60_000);

  it('refuses an empty set of conversations, and a model too big for a gradient download per conversation (before allocating it)', async () => {
    const rt = await testRuntime('opengles');
    await expect(fisherDiagonal(rt, TINY, new Map(), [], 0)).rejects.toThrow(/no conversations/);
    const big: ModelConfig = { ...TINY, vocabSize: 151936, hiddenSize: 512, headDim: 128, tokenizer: 'qwen3' };
    await expect(fisherDiagonal(rt, big, new Map(), [{ ids: [1, 2], mask: [0, 1] }], 0)).rejects.toThrow(/has 79 M parameters.*up to 50 M: choose another merge method/);
  });
});
