// The reference LoRA's adapter gradients (derived from the merged weight's gradient) against central
// differences of the float64 loss, and the merge against an explicit s·B·A.
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../model/config';
import { Rng } from '../util/rng';
import { mergeReferenceLora, type ReferenceLora, referenceLoraLoss } from './lora';
import { referenceLoss } from './model';
import { initReferenceParameters, type ReferenceParameters } from './modelParams';
import { checkGradients, relativeError } from './ops/finiteDiff';
import { randint32, randn64 } from './ops/random';

const CFG: ModelConfig = {
  vocabSize: 11, hiddenSize: 8, intermediateSize: 12, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 4,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: true, tokenizer: 'byte',
};
const [B, T] = [2, 5];

function params(seed: number): ReferenceParameters {
  const rng = new Rng(seed);
  const p = initReferenceParameters(CFG, rng);
  for (const [, w] of p) for (let i = 0; i < w.length; i++) w[i] = w[i] === 1 ? 1 + rng.normal(0, 0.3) : w[i] * 20;
  return p;
}

/** Rank-3 adapters on q (16×8), o (8×16) and down (8×12) of layer 0 and up (12×8) of layer 1, B ≠ 0. */
function adapters(seed: number): ReferenceLora {
  const rng = new Rng(seed);
  const r = 3;
  const shapes: [string, number, number][] = [
    ['model.layers.0.self_attn.q_proj.weight', 16, 8], ['model.layers.0.self_attn.o_proj.weight', 8, 16],
    ['model.layers.0.mlp.down_proj.weight', 8, 12], ['model.layers.1.mlp.up_proj.weight', 12, 8],
  ];
  return {
    rank: r, scale: 5 / r,
    adapters: new Map(shapes.map(([name, o, i]) => [name, { A: randn64(rng, r * i, 0.3), B: randn64(rng, o * r, 0.3) }])),
  };
}

describe('reference LoRA', () => {
  const ids = randint32(new Rng(1), B * T, 0, CFG.vocabSize - 1);
  const targets = randint32(new Rng(2), B * T, 0, CFG.vocabSize - 1);
  const mask = Float64Array.from({ length: B * T }, (_, i) => (i % T === 0 ? 0 : 1));

  it('merge adds s·B·A to the adapted weights only', () => {
    const p = params(3);
    const lora = adapters(4);
    const merged = mergeReferenceLora(CFG, p, lora);
    const name = 'model.layers.0.self_attn.o_proj.weight'; // (8, 16)
    const { A, B: Bm } = lora.adapters.get(name)!;
    const W = p.get(name)!;
    const expected = W.map((w, k) => {
      const [o, i] = [Math.floor(k / 16), k % 16];
      let s = 0;
      for (let j = 0; j < lora.rank; j++) s += Bm[o * lora.rank + j] * A[j * 16 + i];
      return w + lora.scale * s;
    });
    expect(relativeError(merged.get(name)!, expected)).toBeLessThan(1e-14);
    expect(merged.get('model.layers.1.self_attn.q_proj.weight')).toBe(p.get('model.layers.1.self_attn.q_proj.weight'));
    expect(() => mergeReferenceLora(CFG, p, { ...lora, rank: 2 })).toThrow(/A of .* expected \(r, in\) = \(2, /);
    expect(() => mergeReferenceLora(CFG, p, { ...lora, adapters: new Map([['model.norm.weight', lora.adapters.get(name)!]]) })).toThrow(/not a weight matrix/);
  });

  it('zero B leaves the model unchanged', () => {
    const p = params(5);
    const lora = adapters(6);
    for (const a of lora.adapters.values()) a.B.fill(0);
    const plain = referenceLoss(CFG, p, ids, targets, mask, B, T);
    const adapted = referenceLoraLoss(CFG, p, lora, ids, targets, mask, B, T);
    expect(adapted.loss).toBe(plain.loss);
    // dA = s·Bᵀ·dW' vanishes with B = 0, dB does not (PEFT's init trains B first).
    for (const g of adapted.grads.values()) {
      expect(g.dA.every((v) => v === 0)).toBe(true);
      expect(g.dB.some((v) => v !== 0)).toBe(true);
    }
  });

  // Central differences (h = 1e-5) of the float64 loss; every probed entry within 1e-6 of the
  // largest probed numeric gradient of its tensor.
  it('dA and dB match finite differences of the loss (rel err ≤ 1e-6)', () => {
    const p = params(7);
    const lora = adapters(8);
    const { grads } = referenceLoraLoss(CFG, p, lora, ids, targets, mask, B, T);
    const loss = () => referenceLoraLoss(CFG, p, lora, ids, targets, mask, B, T).loss;
    const rng = new Rng(9);
    for (const [name, a] of lora.adapters) {
      const g = grads.get(name)!;
      for (const [which, x, dx] of [['A', a.A, g.dA], ['B', a.B, g.dB]] as const) {
        expect(dx.some((v) => v !== 0), `${name} d${which} all zero`).toBe(true);
        const worst = checkGradients(loss, x, dx, { samples: 5, rng, rtol: 1e-6, atol: 1e-10 });
        expect(worst, `${name} d${which}`).toBeLessThan(1e-6);
      }
    }
  });
});
