// One GRPO optimizer step on the GPU from a batch of trajectories (TRL's GRPOTrainer, on our model):
//   rewards → group advantages → packed micro-batches → per micro-batch: forward, logp read back,
//   grpoLoss on the host (dlogp), backward (gradients accumulate) → AdamW once for the step.
// Non-finite inputs, a skipped loss, or non-finite gradients skip the update (the GPU optimizer
// refuses non-finite gradients), so the weights stay the last good ones; the step says why.
import type { GpuRuntime } from '../gpu/runtime';
import type { Tensor } from '../gpu/tensor';
import { type Activations, type BackwardScratch, planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from '../model/activations';
import { modelBackward } from '../model/backward';
import { modelForward, tokenLogprobs, writeBatch } from '../model/forward';
import type { GpuWeights } from '../model/weights';
import { entropyForward } from '../ops/crossEntropy';
import {
  type GrpoConfig, type GrpoMetrics, groupAdvantages, grpoLoss, keepGroups, tokenAdvantagesFromTurns, trainingRewards,
  turnAdvantages, turnRewardsFromRunningTotals, validateGrpoConfig,
} from './grpo';
import { AdamWState } from './optimizerState';
import { buildRlBatch, type RlBatch } from './rlBatch';
import type { Trajectory } from './trajectory';

export interface GrpoTrainerConfig {
  /** GRPO loss and advantage settings (variants in grpo/config.ts). */
  grpo: GrpoConfig;
  /** B: rows per micro-batch. */
  microBatchRows: number;
  /** T: tokens per row; ≥ the rollout's maxTotalTokens. */
  seqLen: number;
  /** Peak learning rate (a schedule may pass another per step). */
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Decoupled weight decay (not on norm weights). */
  weightDecay: number;
  /** Global gradient-norm clip; 0 disables. */
  maxGradNorm: number;
  /**
   * 'ppo': ratio π/π_behaviour, clipped (the default; stale samples are corrected by that ratio).
   * 'tis': decoupled PPO with one update per batch — the proximal policy is the current weights
   * (their logp, detached), so ρ = min(π_current/π_behaviour, tisCap) weights each token.
   */
  importanceCorrection: 'ppo' | 'tis';
  /** Compute per-token entropy for the `entropy` metric (one extra kernel per micro-batch). */
  entropyMetric: boolean;
  /** Pack several trajectories per row (default true). */
  pack: boolean;
}

export const DEFAULT_GRPO_TRAINER: Omit<GrpoTrainerConfig, 'grpo'> = {
  microBatchRows: 4, seqLen: 512, lr: 2e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, maxGradNorm: 1,
  importanceCorrection: 'ppo', entropyMetric: true, pack: true,
};

export interface GrpoStepResult {
  /** True when no update was applied (weights unchanged). */
  skipped: boolean;
  /** Why the update was skipped. */
  reason?: string;
  /** Loss metrics by name (TRL-style: loss, clip_ratio, approx_kl, entropy, …) plus grad_norm, lr, groups_dropped. */
  metrics: GrpoMetrics;
  /** Policy tokens that entered the loss. */
  trainedTokens: number;
  /** All tokens run through forward + backward (prompt and tool tokens included). */
  processedTokens: number;
  /** Scalar training reward of each trajectory (mixed components + over-long penalty). */
  rewards: number[];
  /** Per group: false when dynamic sampling dropped it. */
  keptGroups: boolean[];
}

/** Sums, token-weighted means, and extremes of per-micro-batch loss metrics. */
function mergeMetrics(parts: GrpoMetrics[]): GrpoMetrics {
  const out: GrpoMetrics = {};
  const tokens = parts.reduce((a, p) => a + (p.policy_tokens ?? 0), 0);
  for (const p of parts) {
    const wt = (p.policy_tokens ?? 0) / Math.max(tokens, 1);
    for (const [k, v] of Object.entries(p)) {
      if (k === 'ratio/min') out[k] = Math.min(out[k] ?? Infinity, v);
      else if (k === 'ratio/max') out[k] = Math.max(out[k] ?? -Infinity, v);
      else if (/^(loss|pg_loss|kl_loss|entropy_loss|policy_tokens)$/.test(k)) out[k] = (out[k] ?? 0) + v; // already step-normalised
      else if (k !== 'response_length') out[k] = (out[k] ?? 0) + wt * v;
    }
  }
  return out;
}

export class GrpoTrainer {
  readonly opt: AdamWState;
  private readonly acts: Activations;
  private readonly scratch: BackwardScratch;
  private readonly entropy: Tensor | null;

  constructor(
    private readonly rt: GpuRuntime,
    readonly w: GpuWeights,
    readonly cfg: GrpoTrainerConfig,
  ) {
    validateGrpoConfig(cfg.grpo);
    if (cfg.grpo.klCoef > 0) throw new Error(`GRPO trainer: klCoef = ${cfg.grpo.klCoef} needs a frozen reference model, which this trainer does not keep yet: set klCoef = 0 (the DAPO default)`);
    if (cfg.grpo.entropyCoef !== 0) throw new Error(`GRPO trainer: entropyCoef = ${cfg.grpo.entropyCoef} needs the GPU entropy-backward kernel (grpo/entropy.ts), not available yet: set entropyCoef = 0`);
    if (cfg.seqLen > w.cfg.maxPositionEmbeddings) throw new Error(`GRPO trainer: seqLen ${cfg.seqLen} exceeds the model's ${w.cfg.maxPositionEmbeddings} positions`);
    this.acts = planActivations(rt, w.cfg, cfg.microBatchRows, cfg.seqLen);
    this.scratch = planBackwardScratch(rt, w.cfg, cfg.microBatchRows, cfg.seqLen);
    this.opt = new AdamWState(rt, w);
    this.entropy = cfg.entropyMetric ? rt.empty([cfg.microBatchRows * cfg.seqLen], 'f32', 'grpo.entropy') : null;
  }

  /** One optimizer step on `trajs` (whole groups of G, contiguous); `lr` overrides cfg.lr (schedules). */
  async step(trajs: readonly Trajectory[], lr = this.cfg.lr): Promise<GrpoStepResult> {
    const { grpo } = this.cfg;
    const G = grpo.groupSize;
    const rewards = trainingRewards(trajs, grpo);
    const adv = groupAdvantages(rewards, G, grpo);
    const base = { rewards, keptGroups: adv.kept };
    const kept = keepGroups([...trajs.keys()], adv.kept, G);
    const used = kept.map((i) => trajs[i]);
    const advantages = kept.map((i) => adv.advantages[i]);
    const groupMetrics = { groups_dropped: adv.kept.length - adv.kept.filter(Boolean).length, frac_reward_zero_std: adv.stats.zeroStdFraction };
    if (used.length === 0) return { ...base, skipped: true, reason: 'every group was dropped (all rewards equal within each group): nothing to learn from', metrics: groupMetrics, trainedTokens: 0, processedTokens: 0 };

    let perTurn: number[][] | null = null;
    if (grpo.turnCreditCoef > 0) {
      const turnRewards = used.map((t) => {
        const r = turnRewardsFromRunningTotals(t.turnTotals);
        while (r.length < t.turns) r.push(0); // a turn whose env step failed earned nothing
        return r;
      });
      perTurn = turnAdvantages(advantages, turnRewards, G, grpo);
    }
    const batch = buildRlBatch(used, { rows: this.cfg.microBatchRows, seqLen: this.cfg.seqLen, padId: 0, maskTruncated: grpo.maskTruncated, pack: this.cfg.pack });
    const truncated = used.map((t) => t.truncated);
    const parts: GrpoMetrics[] = [];
    this.w.zeroGrads();
    for (const mb of batch.micro) {
      const logp = await this.forward(mb.rows);
      const entropy = this.entropy ? await this.rt.readF32(this.entropy) : undefined;
      const res = grpoLoss({
        logp, oldLogp: mb.oldLogp, mask: mb.mask, seqIndex: mb.seqIndex, advantages, truncated, entropy,
        proxLogp: this.cfg.importanceCorrection === 'tis' ? logp : undefined,
        tokenAdvantages: perTurn ? tokenAdvantagesFromTurns(mb.seqIndex, mb.turnIndex, perTurn) : undefined,
        batchTotals: batch.totals,
      }, grpo);
      if (res.skipped) return { ...base, skipped: true, reason: res.reason, metrics: { ...groupMetrics, ...res.metrics }, trainedTokens: 0, processedTokens: 0 };
      parts.push(res.metrics);
      this.rt.write(this.acts.dlogp, res.dlogp);
      modelBackward(this.rt, this.w, this.acts, this.scratch);
    }
    const c = this.cfg;
    const stats = await this.opt.apply({ lr, beta1: c.beta1, beta2: c.beta2, eps: c.eps, weightDecay: c.weightDecay }, c.maxGradNorm);
    const metrics: GrpoMetrics = { ...mergeMetrics(parts), ...groupMetrics, grad_norm: stats.norm, lr, response_length: batch.totals.tokens / Math.max(batch.totals.sequences, 1) };
    const processedTokens = this.processed(batch);
    if (!stats.finite) return { ...base, skipped: true, reason: `gradient norm is ${stats.norm}: the optimizer skipped the update and kept the last good weights`, metrics, trainedTokens: 0, processedTokens };
    return { ...base, skipped: false, metrics, trainedTokens: batch.totals.tokens, processedTokens };
  }

  /** Forward of one micro-batch; leaves logits/lse in place for the backward and returns logp (N). */
  private async forward(rows: RlBatch['micro'][number]['rows']): Promise<Float32Array> {
    writeBatch(this.rt, this.w, this.acts, rows);
    modelForward(this.rt, this.w, this.acts);
    tokenLogprobs(this.rt, this.w, this.acts);
    if (this.entropy) entropyForward(this.rt, this.acts.logits, this.acts.lseLogits, { N: this.acts.B * this.acts.T, V: this.w.cfg.vocabSize }, this.entropy);
    return this.rt.readF32(this.acts.logp);
  }

  private processed(batch: RlBatch): number {
    let n = 0;
    for (const mb of batch.micro) for (const s of mb.rows.segments) if (s >= 0) n++;
    return n;
  }

  destroy(): void {
    releaseActivations(this.rt, this.acts);
    releaseBackwardScratch(this.rt, this.scratch);
    this.opt.destroy();
    this.rt.release(this.entropy);
  }
}
