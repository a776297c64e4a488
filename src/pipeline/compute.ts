// Compute spent per stage, in forward-token-equivalents (one token through one forward pass), so
// that "the same extra compute spent on SFT instead of GRPO" is a number, not a guess:
//   SFT step   3 × processed tokens (forward + backward ≈ 3 forwards)
//   GRPO step  3 × trained tokens + 1 × trained tokens for the KL reference forward (β > 0)
//              + 1 × every token of every episode drawn (rollout prefill and decode, counted
//              without credit for prompt sharing: an upper bound, which hands SFT MORE steps when
//              matching — the comparison is conservative for GRPO).
// Attention's quadratic term is ignored (contexts here are short; both arms share the context).
import type { RlStepRecord } from '../train/rl/rlMetrics';
import type { SftMetrics } from '../train/sft/sft';

export class ComputeLedger {
  /** Forward-token-equivalents by stage index. */
  readonly byStage = new Map<number, number>();
  /** SFT steps recorded and their total cost, to price one SFT step. */
  private sftSteps = 0;
  private sftCost = 0;

  addSft(stage: number, m: SftMetrics): void {
    const cost = 3 * m.tokens;
    this.byStage.set(stage, (this.byStage.get(stage) ?? 0) + cost);
    this.sftSteps++;
    this.sftCost += cost;
  }

  addGrpo(stage: number, r: RlStepRecord, kl: boolean): void {
    const m = r.metrics;
    const trained = m['train/processed_tokens'] ?? 0;
    const cost = (kl ? 4 : 3) * trained + (m['rollout/episode_tokens'] ?? 0);
    this.byStage.set(stage, (this.byStage.get(stage) ?? 0) + cost);
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
