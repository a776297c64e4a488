// LoRA in the pipeline (config.lora, or a stage's own lora: config.ts stageLora): a training stage's loop runs with fresh rank-r adapters on every
// projection of the frozen model (model/lora.ts, model/loraAttach.ts), and the adapters are merged
// into the model (W ← W + s·B·A, s = alpha / r) when the loop ends — so every later stage,
// evaluation, merge, checkpoint between stages and download sees plain weights, and the next
// training stage starts fresh adapters on the updated model.
import type { GpuRuntime } from '../gpu/runtime';
import { LoraAdapters } from '../model/lora';
import { attachLora, detachLora, mergeLora } from '../model/loraAttach';
import { LORA_TARGETS } from '../model/parameters';
import type { GpuWeights } from '../model/weights';
import type { PipelineConfig } from './config';

/**
 * Runs `train` on w (plain when lora is absent). `saved`: the adapters of a checkpoint saved inside
 * this stage (a resumed stage continues them); else seeded PEFT init (A uniform, B = 0: no change yet).
 */
export async function trainWithLora<T>(rt: GpuRuntime, w: GpuWeights, lora: PipelineConfig['lora'], seed: number, saved: Map<string, Float32Array> | undefined, train: () => Promise<T>): Promise<T> {
  if (!lora) return train();
  const adapters = new LoraAdapters(rt, w.cfg, { rank: lora.rank, alpha: lora.alpha ?? 2 * lora.rank, targets: LORA_TARGETS }, saved, seed);
  attachLora(rt, w, adapters);
  try {
    const out = await train();
    mergeLora(rt, w);
    return out;
  } finally {
    detachLora(w); // (nothing left to detach after mergeLora)
    adapters.destroy();
  }
}
