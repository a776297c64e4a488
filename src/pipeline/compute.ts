// Compute spent per stage, in forward-token-equivalents (one token through one forward pass), so
// that "the same extra compute spent on SFT instead of GRPO" is a number, not a guess:
//   SFT step   3 × processed tokens (forward + backward ≈ 3 forwards: the backward computes the
//              activations' gradients and the weights' gradients, each about one forward)
//   GRPO step  3 × trained tokens + 1 × trained tokens for the KL reference forward (β > 0)
//              + 1 × every token of every episode drawn (rollout prefill and decode, counted
//              without credit for prompt sharing: an upper bound, which hands SFT MORE steps when
//              matching — the comparison is conservative for GRPO).
// A LoRA stage trains adapters only: its backward still carries the activations' gradients through
// the frozen weights (one forward) but computes no gradient for them, so a trained token costs 2, not
// 3 (the adapters' own products, rank ≪ hidden, are left out).
// Attention's quadratic term is ignored (contexts here are short; both arms share the context).
import type { RlStepRecord } from '../train/rl/rlMetrics';
import type { SftMetrics } from '../train/sft/sft';

export class ComputeLedger {
  /** Forward-token-equivalents by stage index. */
  readonly byStage = new Map<number, number>();
  /** SFT steps recorded and their total cost, to price one SFT step. */
  private sftSteps = 0;
  private sftCost = 0;
  /** Each GRPO step's cost, by stage index (what a curve point inside a stage has spent). */
  private readonly grpoSteps = new Map<number, number[]>();

  /** `lora`: the stage trains LoRA adapters, not the weights. */
  addSft(stage: number, m: SftMetrics, lora = false): void {
    const cost = trainedTokenCost(lora) * m.tokens;
    this.byStage.set(stage, (this.byStage.get(stage) ?? 0) + cost);
    this.sftSteps++;
    this.sftCost += cost;
  }

  addGrpo(stage: number, r: RlStepRecord, kl: boolean, lora = false): void {
    const cost = grpoStepCost(r, kl, lora);
    this.byStage.set(stage, (this.byStage.get(stage) ?? 0) + cost);
    this.grpoSteps.set(stage, [...(this.grpoSteps.get(stage) ?? []), cost]);
  }

  /** Forward-token-equivalents of a GRPO stage's first `steps` steps recorded here (a resumed stage: those after the resume). */
  grpoCostAfter(stage: number, steps: number): number {
    return (this.grpoSteps.get(stage) ?? []).slice(0, steps).reduce((a, c) => a + c, 0);
  }

  stage(i: number): number {
    return this.byStage.get(i) ?? 0;
  }

  /** Mean cost of one SFT step recorded so far (NaN before any). */
  sftStepCost(): number {
    return this.sftSteps ? this.sftCost / this.sftSteps : Number.NaN;
  }

  /** SFT steps that cost as much as `cost` at the recorded price per step (at least 1). */
  sftStepsFor(cost: number): number {
    const per = this.sftStepCost();
    if (!(per > 0)) throw new Error('compute: no SFT step was recorded, so an SFT step has no price yet');
    return Math.max(1, Math.round(cost / per));
  }
}

/** Forward-token-equivalents of one GRPO step (`kl`: the stage has a KL reference forward; `lora`: it trains adapters). */
export function grpoStepCost(r: RlStepRecord, kl: boolean, lora = false): number {
  const m = r.metrics;
  return (trainedTokenCost(lora) + (kl ? 1 : 0)) * (m['train/processed_tokens'] ?? 0) + (m['rollout/episode_tokens'] ?? 0);
}

/** Forward-equivalents of one trained token: forward + backward; LoRA's backward skips the frozen weights' gradients. */
export const trainedTokenCost = (lora: boolean): number => (lora ? 2 : 3);
