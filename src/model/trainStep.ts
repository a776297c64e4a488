// One supervised forward/backward on a planned batch: the building block of SFT (and, with other
// per-token weights, of GRPO). Loss = Σ mask·(−logp) / max(Σ mask, 1) over next-token targets.
import type { GpuRuntime } from '../gpu/runtime';
import { crossEntropyWeights, maskedMeanNll } from '../ops/crossEntropy';
import type { Activations, BackwardScratch } from './activations';
import { modelBackward } from './backward';
import { modelForward, type TokenBatch, tokenLogprobs, writeBatch } from './forward';
import type { GpuWeights } from './weights';

export interface MaskedBatch extends TokenBatch {
  targets: Int32Array;
  /** (B, T) loss weight per position: 1 on assistant tokens, 0 elsewhere. */
  mask: Float32Array;
}

/**
 * Forward, masked next-token loss, backward; gradients accumulate into w.grads scaled by
 * `gradScale` (1/microbatches for gradient accumulation). Returns the loss and per-token logp.
 */
export async function supervisedStep(
  rt: GpuRuntime, w: GpuWeights, acts: Activations, scratch: BackwardScratch, batch: MaskedBatch, gradScale = 1,
): Promise<{ loss: number; logp: Float32Array }> {
  writeBatch(rt, w, acts, batch);
  modelForward(rt, w, acts);
  tokenLogprobs(rt, w, acts);
  rt.write(acts.dlogp, crossEntropyWeights(batch.mask, gradScale));
  modelBackward(rt, w, acts, scratch);
  const logp = await rt.readF32(acts.logp);
  return { loss: maskedMeanNll(logp, batch.mask), logp };
}

/** Forward only: per-token log-probs of the targets and the masked loss (evaluation). */
export async function supervisedLoss(rt: GpuRuntime, w: GpuWeights, acts: Activations, batch: MaskedBatch): Promise<{ loss: number; logp: Float32Array }> {
  writeBatch(rt, w, acts, batch);
  modelForward(rt, w, acts);
  tokenLogprobs(rt, w, acts);
  const logp = await rt.readF32(acts.logp);
  return { loss: maskedMeanNll(logp, batch.mask), logp };
}
