import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../model/config';
import { Rng } from '../util/rng';
import { referenceForward, referenceLoss } from './model';
import { initReferenceParameters, referenceParameterShapes, type ReferenceParameters } from './modelParams';
import { checkGradients, relativeError } from './ops/finiteDiff';
import { randint32 } from './ops/random';

const BASE: ModelConfig = {
  vocabSize: 11, hiddenSize: 8, intermediateSize: 12, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 4,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: true, tokenizer: 'byte',
};
const B = 2, T = 5;

/** Init, then scale matrices up and perturb norm weights so every gradient is O(1e-2…1) and no weight is trivially 1. */
function testParams(cfg: ModelConfig, seed: number): ReferenceParameters {
  const rng = new Rng(seed);
  const params = initReferenceParameters(cfg, rng);
  for (const [, w] of params) {
    const isNorm = w.every((v) => v === 1);
    for (let i = 0; i < w.length; i++) w[i] = isNorm ? 1 + rng.normal(0, 0.3) : w[i] * 20; // matrices std 0.4
  }
  return params;
}

function batch(cfg: ModelConfig, seed: number) {
  const rng = new Rng(seed);
  return {
    ids: randint32(rng, B * T, 0, cfg.vocabSize - 1),
    targets: randint32(rng, B * T, 0, cfg.vocabSize - 1),
    mask: Float64Array.from({ length: B * T }, (_, i) => (i % T === 0 ? 0 : 1)), // first token of each row masked out
  };
}

describe('reference Qwen3 model', () => {
  it('plans HF names and shapes in order, with lm_head only when untied', () => {
    const shapes = referenceParameterShapes(BASE);
    expect(shapes.length).toBe(1 + 11 * 2 + 1);
    expect(shapes[0]).toEqual({ name: 'model.embed_tokens.weight', shape: [11, 8] });
    expect(shapes[2]).toEqual({ name: 'model.layers.0.self_attn.q_proj.weight', shape: [16, 8] });
    expect(shapes[3]).toEqual({ name: 'model.layers.0.self_attn.k_proj.weight', shape: [8, 8] });
    expect(shapes[5]).toEqual({ name: 'model.layers.0.self_attn.o_proj.weight', shape: [8, 16] });
    expect(shapes[11]).toEqual({ name: 'model.layers.0.mlp.down_proj.weight', shape: [8, 12] });
    expect(shapes.at(-1)).toEqual({ name: 'model.norm.weight', shape: [8] });
    const untied = referenceParameterShapes({ ...BASE, tieWordEmbeddings: false });
    expect(untied.at(-1)).toEqual({ name: 'lm_head.weight', shape: [11, 8] });
    expect(() => referenceParameterShapes({ ...BASE, numKvHeads: 3 })).toThrow(/numKvHeads/);
  });

  it('zero weights give uniform logits: loss = log V exactly; 0.02 init gives ≈ log V', () => {
    const { ids, targets, mask } = batch(BASE, 1);
    const zero = initReferenceParameters(BASE, new Rng(1));
    for (const [, w] of zero) w.fill(0);
    expect(referenceLoss(BASE, zero, ids, targets, mask, B, T).loss).toBeCloseTo(Math.log(11), 12);
    const init = initReferenceParameters(BASE, new Rng(1));
    expect(Math.abs(referenceLoss(BASE, init, ids, targets, mask, B, T).loss - Math.log(11))).toBeLessThan(0.05);
  });

  it('masked tokens affect neither the loss nor any gradient', () => {
    const params = testParams(BASE, 2);
    const { ids, targets, mask } = batch(BASE, 2);
    const a = referenceLoss(BASE, params, ids, targets, mask, B, T);
    const other = Int32Array.from(targets);
    for (let i = 0; i < B * T; i++) if (mask[i] === 0) other[i] = (other[i] + 3) % BASE.vocabSize;
    const b = referenceLoss(BASE, params, ids, other, mask, B, T);
    expect(b.loss).toBe(a.loss);
    for (const [name, g] of a.grads) expect(relativeError(b.grads.get(name)!, g), name).toBe(0);
    // and changing a masked-in target does change the loss (the check above can fail)
    const changed = Int32Array.from(targets);
    changed[1] = (changed[1] + 1) % BASE.vocabSize;
    expect(referenceLoss(BASE, params, ids, changed, mask, B, T).loss).not.toBe(a.loss);
  });

  it('`only` forms just the asked gradients, equal to the full backward\'s (tied and untied heads)', () => {
    for (const cfg of [BASE, { ...BASE, tieWordEmbeddings: false }]) {
      const params = testParams(cfg, 4);
      const { ids, targets, mask } = batch(cfg, 4);
      const full = referenceLoss(cfg, params, ids, targets, mask, B, T);
      const only = new Set(['model.layers.0.self_attn.q_proj.weight', 'model.layers.1.mlp.down_proj.weight']);
      const some = referenceLoss(cfg, params, ids, targets, mask, B, T, { only });
      expect(some.loss).toBe(full.loss);
      expect([...some.grads.keys()]).toEqual([...only]);
      for (const name of only) expect(relativeError(some.grads.get(name)!, full.grads.get(name)!), name).toBeLessThan(1e-12);
    }
  });

  it('is causal: logits at t do not depend on tokens after t', () => {
    const params = testParams(BASE, 3);
    const { ids } = batch(BASE, 3);
    const a = referenceForward(BASE, params, ids, B, T).logits;
    const later = Int32Array.from(ids);
    later[T - 1] = (later[T - 1] + 1) % BASE.vocabSize;
    const b = referenceForward(BASE, params, later, B, T).logits;
    const V = BASE.vocabSize;
    expect(relativeError(b.subarray(0, (T - 1) * V), a.subarray(0, (T - 1) * V))).toBe(0);
    expect(relativeError(b.subarray((T - 1) * V, T * V), a.subarray((T - 1) * V, T * V))).toBeGreaterThan(1e-6);
  });

  it('packing two sequences with segments + restarted positions equals running them separately', () => {
    const params = testParams(BASE, 4);
    const V = BASE.vocabSize;
    const s1 = Int32Array.from([3, 1, 4]), s2 = Int32Array.from([1, 5]);
    const packed = referenceForward(BASE, params, Int32Array.from([...s1, ...s2]), 1, 5, {
      segments: Int32Array.from([0, 0, 0, 1, 1]),
      positions: Int32Array.from([0, 1, 2, 0, 1]),
    }).logits;
    const one = referenceForward(BASE, params, s1, 1, 3).logits;
    const two = referenceForward(BASE, params, s2, 1, 2).logits;
    expect(relativeError(packed.subarray(0, 3 * V), one)).toBeLessThan(1e-13);
    expect(relativeError(packed.subarray(3 * V), two)).toBeLessThan(1e-13);
  });

  // Central differences (h = 1e-5) of a float64 loss: every probed entry within 1e-6 of the
  // largest probed numeric gradient of that tensor (plus 1e-10 absolute for near-zero tensors).
  const RTOL = 1e-6;
  for (const tied of [true, false]) {
    it(`every parameter gradient matches finite differences (${tied ? 'tied' : 'untied'} embeddings)`, () => {
      const cfg = { ...BASE, tieWordEmbeddings: tied };
      const params = testParams(cfg, tied ? 5 : 6);
      const { ids, targets } = batch(cfg, 7);
      const mask = Float64Array.from({ length: B * T }, (_, i) => [1, 0, 1, 0.5, 1][i % T]);
      const { grads } = referenceLoss(cfg, params, ids, targets, mask, B, T);
      const loss = () => referenceLoss(cfg, params, ids, targets, mask, B, T).loss;
      const rng = new Rng(8);
      expect([...grads.keys()]).toEqual(referenceParameterShapes(cfg).map((s) => s.name));
      for (const [name, g] of grads) {
        const w = params.get(name)!;
        expect(g.some((v) => v !== 0), `${name} has an all-zero gradient`).toBe(true);
        const worst = checkGradients(loss, w, g, { samples: 6, rng, rtol: RTOL, atol: 1e-10 });
        expect(worst, name).toBeLessThan(RTOL);
      }
    });
  }

  it('tied embedding gradient is the sum of the lookup and LM-head uses', () => {
    const cfg = { ...BASE, tieWordEmbeddings: false };
    const params = testParams(cfg, 9);
    const { ids, targets, mask } = batch(cfg, 9);
    params.set('lm_head.weight', Float64Array.from(params.get('model.embed_tokens.weight')!)); // same values, untied
    const untied = referenceLoss(cfg, params, ids, targets, mask, B, T);
    params.delete('lm_head.weight');
    const tied = referenceLoss(BASE, params, ids, targets, mask, B, T);
    expect(tied.loss).toBeCloseTo(untied.loss, 14);
    const sum = untied.grads.get('model.embed_tokens.weight')!.map((v, i) => v + untied.grads.get('lm_head.weight')![i]);
    expect(relativeError(tied.grads.get('model.embed_tokens.weight')!, sum)).toBeLessThan(1e-13);
  });
});
