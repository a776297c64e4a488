// LoRA-aware merging: adapters expand to base + s·B·A; the exact "cat" adapter merge equals task
// arithmetic over the expanded models; streaming merge over memory sources.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng';
import { type AdapterWeights, addLoraDelta, concatAdapters, loraDeltaSource } from './loraMerge';
import { memorySink, memorySource, mergeModels } from './mergeStream';
import { mergeMethod, mergeOptions } from './methods';

const rand = (rng: Rng, n: number) => Float32Array.from({ length: n }, () => rng.normal());
const W = 'model.layers.0.self_attn.q_proj.weight';
const pA = 'base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight';
const pB = 'base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight';

function adapter(seed: number, rank: number, alpha: number): AdapterWeights {
  const rng = new Rng(seed);
  return { label: `adapter ${seed}`, rank, alpha, tensors: new Map([[pA, rand(rng, rank * 3)], [pB, rand(rng, 2 * rank)]]) };
}

describe('LoRA-aware merging', () => {
  it('addLoraDelta: W + s·B·A by hand', () => {
    // W (2, 3) = 0, A (1, 3) = [1, 2, 3], B (2, 1) = [1, −1], s = 2 → [[2, 4, 6], [−2, −4, −6]]
    expect([...addLoraDelta(new Float32Array(6), Float32Array.of(1, 2, 3), Float32Array.of(1, -1), 1, 2, 't')]).toEqual([2, 4, 6, -2, -4, -6]);
  });

  it('the cat adapter equals task arithmetic of the expanded adapters, and streaming merge works on them', async () => {
    const rng = new Rng(3);
    const base = memorySource('base', new Map([
      [W, { shape: [2, 3], data: rand(rng, 6) }],
      ['model.norm.weight', { shape: [3], data: rand(rng, 3) }],
    ]));
    const a1 = adapter(1, 2, 4);
    const a2 = adapter(2, 1, 1);
    const sink = memorySink();
    const method = mergeMethod('task-arithmetic');
    await mergeModels({ method, options: mergeOptions(method, 2, { weights: [0.7, 0.3], lambda: 1.5 }), base, models: [loraDeltaSource(base, a1), loraDeltaSource(base, a2)], sink });
    const cat = concatAdapters([a1, a2], [0.7 * 1.5, 0.3 * 1.5]);
    expect(cat.rank).toBe(3);
    const viaCat = addLoraDelta(await base.read(W), cat.tensors.get(pA)!, cat.tensors.get(pB)!, cat.rank, cat.alpha / cat.rank, 'cat');
    const merged = sink.tensors.get(W)!.data;
    for (let j = 0; j < 6; j++) expect(merged[j]).toBeCloseTo(viaCat[j], 5);
    expect(sink.tensors.get('model.norm.weight')!.data).toEqual(await base.read('model.norm.weight')); // not adapted: base
  });

  it('refuses an adapter of another base and models of other shapes', async () => {
    const base = memorySource('base', new Map([['x.weight', { shape: [1], data: Float32Array.of(1) }]]));
    expect(() => loraDeltaSource(base, adapter(1, 1, 1))).toThrow(/adapts 'model\.layers\.0\.self_attn\.q_proj\.weight', which base does not have/);
    const other = memorySource('other', new Map([['x.weight', { shape: [2], data: Float32Array.of(1, 2) }]]));
    const method = mergeMethod('linear');
    await expect(mergeModels({ method, options: mergeOptions(method, 2), base: null, models: [base, other], sink: memorySink() }))
      .rejects.toThrow(/other: 'x\.weight' is \[2\], base has \[1\]/);
  });
});
