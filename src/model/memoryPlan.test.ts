// The memory plan equals what the code allocates: each group's bytes against the buffer pool's
// count after building the same run for real (weights, adapters, gradients, AdamW state, the GRPO
// reference, activations with recompute / chunked logits / a split head, the decoder's KV cache);
// the Qwen3-0.6B figures the issue asks for; the binding and budget checks name what does not fit.
import { beforeAll, describe, expect, it } from 'vitest';
import type { GpuRuntime } from '../gpu/runtime';
import { testRuntime } from '../gpu/testDevice';
import { AdamWState } from '../train/optimizerState';
import { planActivations, planBackwardScratch } from './activations';
import { modelBackward } from './backward';
import { BYTE_VOCAB_SIZE, type ModelConfig, PRESETS } from './config';
import { Decoder } from './decode';
import { modelForward, tokenLogprobs, writeBatch } from './forward';
import { LoraAdapters } from './lora';
import { attachLora } from './loraAttach';
import { checkMemoryPlan, formatMemoryPlan, type MemoryGroup, type MemoryPlanOptions, planMemory } from './memoryPlan';
import { formatBytes, LORA_TARGETS } from './parameters';
import { GpuWeights, initialWeights } from './weights';

const BASE_CFG: ModelConfig = {
  vocabSize: BYTE_VOCAB_SIZE, hiddenSize: 32, intermediateSize: 48, numLayers: 3, numHeads: 4, numKvHeads: 2, headDim: 8,
  rmsNormEps: 1e-6, ropeTheta: 10000, maxPositionEmbeddings: 64, tieWordEmbeddings: false, tokenizer: 'byte',
};
const GiB = 2 ** 30;

/** Bytes the pool holds after `build` (free buffers trimmed first and after). */
async function measure(rt: GpuRuntime, build: () => void | Promise<void>): Promise<number> {
  await rt.sync();
  rt.pool.trim();
  const before = rt.pool.getStats().heldBytes;
  await build();
  await rt.sync();
  rt.pool.trim(); // drop readback staging and other released buffers: only what the run holds
  return rt.pool.getStats().heldBytes - before;
}

const sum = (plan: ReturnType<typeof planMemory>, ...groups: MemoryGroup[]) => groups.reduce((s, g) => s + plan.byGroup[g], 0);

describe('memory plan = allocation (llvmpipe)', () => {
  beforeAll(async () => {
    // attention's constant 16-byte zero tensor is made once per runtime: make it before measuring
    const rt = await testRuntime('opengles');
    const warm = { ...BASE_CFG, maxPositionEmbeddings: 8, numLayers: 1 };
    const w = new GpuWeights(rt, warm, initialWeights(warm, 1));
    const acts = planActivations(rt, warm, 1, 2);
    writeBatch(rt, w, acts, { inputIds: new Int32Array(2) });
    modelForward(rt, w, acts);
    await rt.sync();
  });

  it.each([
    ['full-parameter, every activation kept, whole logits', { batch: 2, seqLen: 9, recompute: false } as MemoryPlanOptions, undefined],
    ['LoRA on a split f16 base, recompute, chunked logits, GRPO with the KL reference', {
      batch: 2, seqLen: 9, lora: { rank: 4, targets: LORA_TARGETS }, baseDtype: 'f16', klReference: true, grpo: true, recompute: true, logitsBudgetBytes: 5 * BYTE_VOCAB_SIZE * 4,
    } as MemoryPlanOptions, 4096],
  ] as const)('%s', async (_name, opts, partBytes) => {
    const rt = await testRuntime('opengles');
    const CFG = { ...BASE_CFG, maxPositionEmbeddings: partBytes ? 48 : 64 }; // fresh RoPE tables in each case
    const limits = partBytes ? { maxStorageBufferBindingSize: partBytes, maxBufferSize: partBytes } : undefined;
    const plan = planMemory(CFG, { ...opts, limits });
    const lora = opts.lora ? { rank: opts.lora.rank, alpha: 8, targets: opts.lora.targets } : undefined;
    let w!: GpuWeights;
    let adapters: LoraAdapters | undefined;
    const weights = await measure(rt, () => {
      w = new GpuWeights(rt, CFG, initialWeights(CFG, 1), { f16Base: opts.baseDtype === 'f16', maxPartBytes: partBytes });
    });
    expect(weights).toBe(plan.byGroup.weights);
    if (partBytes) expect(w.parts('lm_head.weight').length).toBe(plan.layout.vocabParts);
    const trainable = await measure(rt, () => {
      if (lora) {
        adapters = new LoraAdapters(rt, CFG, lora);
        attachLora(rt, w, adapters);
      }
      new AdamWState(rt, w); // zeroes (allocates) the gradients too
    });
    expect(trainable).toBe(sum(plan, 'adapters', 'gradients', 'optimizer'));
    const reference = await measure(rt, () => {
      if (opts.klReference) w.frozenCopy();
    });
    expect(reference).toBe(plan.byGroup.reference);
    const { batch: B, seqLen: T } = opts;
    const activations = await measure(rt, async () => {
      const acts = planActivations(rt, CFG, B, T, lora, { recompute: opts.recompute, logitsBudgetBytes: opts.logitsBudgetBytes, maxBindingBytes: limits?.maxStorageBufferBindingSize });
      const scratch = planBackwardScratch(rt, CFG, B, T, lora);
      if (opts.grpo) rt.empty([B * T], 'f32', 'entropy'), rt.empty([B * T], 'f32', 'refLogp'), rt.empty([B * T, 3], 'f32', 'tokenInputs'), rt.empty([B * T, 8], 'f32', 'stats');
      writeBatch(rt, w, acts, { inputIds: new Int32Array(B * T).fill(3), targets: new Int32Array(B * T).fill(4) });
      modelForward(rt, w, acts); // allocates the split head's part scratch on first use
      tokenLogprobs(rt, w, acts);
      modelBackward(rt, w, acts, scratch);
      expect(acts.recompute).toBe(plan.layout.recompute);
      expect(acts.logitsRows).toBe(plan.layout.logitsRows);
    });
    expect(activations).toBe(plan.byGroup.activations);
    console.log(formatMemoryPlan(plan, _name).join('\n'));
  });

  it('the KV cache and prefill scratch of a decoder of rows × length', async () => {
    const rt = await testRuntime('opengles');
    const CFG = BASE_CFG;
    const w = new GpuWeights(rt, CFG, initialWeights(CFG, 2));
    const [rows, length] = [3, 17];
    const plan = planMemory(CFG, { batch: 1, seqLen: 1, decode: { rows, length } });
    const kv = await measure(rt, async () => {
      const dec = new Decoder(rt, w, rows, length);
      await dec.forward(new Int32Array(rows * length).fill(5), new Int32Array(rows), new Int32Array(rows).fill(length - 1));
    });
    expect(kv).toBe(plan.byGroup['kv cache']);
    w.destroy();
  });
});

describe('memory plan of Qwen3-0.6B', () => {
  const qwen = PRESETS['qwen3-0.6b'];
  const compat = { maxStorageBufferBindingSize: 128 * 2 ** 20, maxBufferSize: 2 * GiB };

  it('LoRA GRPO at 2 048 tokens (KL reference, rollout KV cache of 4 rows): ≤ 4 GiB on the compatibility adapter; recompute is what makes it fit', () => {
    const opts: MemoryPlanOptions = { batch: 1, seqLen: 2048, lora: { rank: 8, targets: LORA_TARGETS }, klReference: true, grpo: true, decode: { rows: 4, length: 2048 }, limits: compat };
    const plan = planMemory(qwen, opts);
    console.log(formatMemoryPlan(plan, 'Qwen3-0.6B LoRA r 8 GRPO, 1 × 2048 tokens, rollout KV 4 × 2048, llvmpipe limits').join('\n'));
    for (const rows of [1, 2, 4, 8]) console.log(`rollout rows ${rows}: ${formatBytes(planMemory(qwen, { ...opts, decode: { rows, length: 2048 } }).totalBytes)}`);
    expect(plan.layout.recompute).toBe(true);
    expect(plan.layout.vocabParts).toBe(3); // 297 MiB of f16 embedding in 128 MiB bindings
    expect(plan.totalBytes).toBeLessThanOrEqual(4 * GiB);
    expect(checkMemoryPlan(plan, { ...compat, budgetBytes: 4 * GiB })).toBeNull();
    const kept = planMemory(qwen, { ...opts, recompute: false });
    expect(kept.totalBytes).toBeGreaterThan(4 * GiB);
    console.log(`every activation kept: ${formatBytes(kept.totalBytes)}; full-parameter f32 training (no rollout): ${formatBytes(planMemory(qwen, { batch: 1, seqLen: 2048, limits: compat }).totalBytes)}`);
  });

  it('names the buffer a binding cannot hold and how many tokens would fit; checks a budget', () => {
    const plan = planMemory(qwen, { batch: 4, seqLen: 16384, lora: { rank: 8, targets: LORA_TARGETS }, limits: compat });
    expect(checkMemoryPlan(plan, compat, 'Qwen3-0.6B')).toBe('Qwen3-0.6B needs a 768 MiB buffer for gate, up, act (N, F); this adapter\'s storage bindings hold 128 MiB: '
      + 'use at most 10922 tokens per step (batch × seqLen, now 65536), or a GPU with larger bindings');
    const kv = planMemory(qwen, { batch: 1, seqLen: 64, lora: { rank: 8, targets: LORA_TARGETS }, decode: { rows: 64, length: 4096 }, limits: compat });
    expect(checkMemoryPlan(kv, compat)).toMatch(/needs a 1 GiB buffer for the KV cache .*: decode fewer rows at a time or shorter rollouts/);
    const small = planMemory(qwen, { batch: 1, seqLen: 512, lora: { rank: 8, targets: LORA_TARGETS }, limits: compat });
    expect(checkMemoryPlan(small, { ...compat, budgetBytes: 1 * GiB })).toMatch(/the weights alone do not fit: choose a smaller model/);
    expect(checkMemoryPlan(small, { ...compat, budgetBytes: 1.5 * GiB })).toMatch(/the budget is 1\.5 GiB: use at most \d+ tokens per step \(now 512\)/);
    // a KV cache that does not fit beside the model is named as the problem, not the weights
    const decoding = planMemory(qwen, { batch: 1, seqLen: 512, lora: { rank: 8, targets: LORA_TARGETS }, decode: { rows: 16, length: 4096 }, limits: compat });
    expect(decoding.byGroup['kv cache']).toBeGreaterThan(1 * GiB);
    expect(checkMemoryPlan(decoding, { budgetBytes: 2 * GiB, maxStorageBufferBindingSize: 8 * GiB, maxBufferSize: 8 * GiB })).toMatch(/the budget is 2 GiB: the rollout decoder's KV cache \(.*\) leaves no room: decode fewer rows/);
  });
});
