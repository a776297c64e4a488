// One GRPO optimizer step on the GPU from a batch of trajectories (TRL's GRPOTrainer, on our model):
//   rewards → group advantages → packed micro-batches → per micro-batch: forward, GRPO loss and
//   dlogp, backward (gradients accumulate) → AdamW once for the step.
// The loss runs on the GPU (lossOn 'gpu', ops/grpoLoss): the host uploads per-token (oldLogp,
// advantage, weight) and reads back only per-token statistics for the metrics. lossOn 'host' is the
// reference path: logp read back, grpoLoss in float64 (grpo/loss.ts), dlogp uploaded.
// Entropy bonus (entropyCoef ≠ 0): dlogp becomes (N, 3) rows (dlogp, dH, H) and the model's in-place
// logprob backward adds dH · ∂H/∂z in the same pass (ops/crossEntropy, grpo/entropy.ts).
// KL to a frozen reference (klCoef > 0): the trainer keeps a GPU copy of the weights it was created
// with (the policy before its first update, e.g. the SFT model) and runs its forward on each
// micro-batch first; the reference log-probs feed the k3 term of the loss on either path. With LoRA
// the reference shares the frozen base and copies only the adapters (GpuWeights.frozenCopy).
// Non-finite inputs, a skipped loss, or non-finite gradients skip the update (the GPU optimizer
// refuses non-finite gradients), so the weights stay the last good ones; the step says why.
import type { GpuRuntime } from '../../gpu/runtime';
import type { Tensor } from '../../gpu/tensor';
import { type ActivationOptions, type Activations, type BackwardScratch, planActivations, planBackwardScratch, releaseActivations, releaseBackwardScratch } from '../../model/activations';
import { modelBackward } from '../../model/backward';
import { modelForward, tokenLogprobs, writeBatch } from '../../model/forward';
import type { GpuWeights } from '../../model/weights';
import { GRPO_STATS, type GrpoStatSums, grpoLossForward, packGrpoTokens, sumGrpoStats } from '../../ops/grpoLoss';
import {
  type BatchTotals, entropyGradWeights, type GrpoConfig, type GrpoMetrics, groupAdvantages, grpoLoss, keepGroups, selectTokens,
  creditSteps, tokenAdvantagesFromSteps, tokenAdvantagesFromTurns, turnStartsOf, type TokenSelection, trainingRewards, turnAdvantages, turnRewardsFromRunningTotals, validateGrpoConfig,
} from './grpo';
import { AdamWState, type GradientShard } from '../optimizerState';
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
  /**
   * The temperature T the trajectories were sampled at (default 1): the trainer scores
   * log softmax(logits / T), so its log-probs, the KL reference's and the entropy are those of the
   * policy that sampled (behaviour log-probs, model/sampling.ts) and the ratio starts at 1.
   * checkGroupSizes (rlLoop.ts) refuses a loop whose rollout samples at another T.
   */
  temperature?: number;
  /** Compute per-token entropy for the `entropy` metric (one extra kernel per micro-batch; always on with an entropy bonus). */
  entropyMetric: boolean;
  /** Pack several trajectories per row (default true). */
  pack: boolean;
  /**
   * Hold each group's common prompt once per row, its G samples as branches attending to it
   * (sharedPrefixRows.ts): the same loss and gradients for ~G× fewer prompt tokens. Rows may then be
   * longer than the model's positions (seqLen ≥ prompt + G responses fits a whole group). Default false.
   */
  sharePrefix?: boolean;
  /** Activation plan (recompute, logits chunk, LM head on the policy tokens only); default 'auto' by size (model/activations). */
  activations?: ActivationOptions;
  /**
   * Where the GRPO loss and dlogp are computed (default 'gpu'): 'gpu' — the grpoLoss kernel, only
   * per-token statistics read back; 'host' — logp read back, grpoLoss in float64, dlogp uploaded (the reference).
   */
  lossOn?: 'gpu' | 'host';
}

export const DEFAULT_GRPO_TRAINER: Omit<GrpoTrainerConfig, 'grpo'> = {
  microBatchRows: 4, seqLen: 512, lr: 2e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, maxGradNorm: 1,
  importanceCorrection: 'ppo', entropyMetric: true, pack: true, lossOn: 'gpu',
};

/** The loss inputs of one micro-batch that the host knows (per token N, per trajectory S). */
interface MicroBatchLoss {
  oldLogp: Float32Array; // (N) behaviour log-probs
  mask: Float32Array; // (N)
  seqIndex: Int32Array; // (N)
  advantages: number[]; // (S)
  tokenAdvantages?: Float64Array; // (N) per-turn or component credit
  truncated: boolean[]; // (S)
  batchTotals: BatchTotals;
}

type LossOutcome = { skipped: false; metrics: GrpoMetrics } | { skipped: true; reason: string; metrics: GrpoMetrics };

export interface GrpoStepResult {
  /** True when no update was applied (weights unchanged). */
  skipped: boolean;
  /** Why the update was skipped. */
  reason?: string;
  /** Loss metrics by name (TRL-style: loss, clip_ratio, approx_kl, entropy, …) plus grad_norm, lr, groups_dropped. */
  metrics: GrpoMetrics;
  /** Policy tokens that entered the loss. */
  trainedTokens: number;
  /** All tokens run through forward + backward (prompt and tool tokens included; a shared prompt counts once). */
  processedTokens: number;
  /** Σ length of the trained trajectories: what full rows would process, whatever the layout (throughput unit). */
  episodeTokens: number;
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
  private readonly entropy: Tensor | null; // (N) H per token
  private readonly lossOn: 'gpu' | 'host';
  private readonly tokenInputs: Tensor | null; // (N, 3) GPU loss input (oldLogp, advantage, weight)
  private readonly tokenPack: Float32Array; // (N·3) its host staging
  private readonly stats: Tensor | null; // (N, GRPO_STATS) GPU loss statistics
  /** Frozen reference model for the KL term (klCoef > 0): the weights at construction (a resumed run restores it from its checkpoint). */
  readonly reference: GpuWeights | null;
  private readonly refLogp: Tensor | null; // (N) reference log-probs of the current micro-batch

  constructor(
    private readonly rt: GpuRuntime,
    readonly w: GpuWeights,
    readonly cfg: GrpoTrainerConfig,
  ) {
    validateGrpoConfig(cfg.grpo);
    if (cfg.seqLen > w.cfg.maxPositionEmbeddings && !cfg.sharePrefix) {
      throw new Error(`GRPO trainer: seqLen ${cfg.seqLen} exceeds the model's ${w.cfg.maxPositionEmbeddings} positions (with sharePrefix, rows may be longer: positions restart per sample)`);
    }
    // a frozen copy (no gradients, no optimizer state); LoRA: the shared base + a copy of the adapters
    this.reference = cfg.grpo.klCoef > 0 ? w.frozenCopy() : null;
    this.acts = planActivations(rt, w.cfg, cfg.microBatchRows, cfg.seqLen, w.lora?.lora, cfg.activations);
    this.acts.temperature = cfg.temperature ?? 1;
    this.scratch = planBackwardScratch(rt, w.cfg, cfg.microBatchRows, cfg.seqLen, w.lora?.lora);
    this.opt = new AdamWState(rt, w);
    const N = cfg.microBatchRows * cfg.seqLen;
    const bonus = cfg.grpo.entropyCoef !== 0;
    this.entropy = cfg.entropyMetric || bonus ? rt.empty([N], 'f32', 'grpo.entropy') : null;
    if (bonus) {
      // (N, 3) rows (dlogp, dH, H): modelBackward hands acts.dlogp to logprobBackward, which then adds
      // the entropy bonus's gradient in its in-place pass over the logits
      rt.release(this.acts.dlogp);
      this.acts.dlogp = rt.empty([N, 3], 'f32', 'grpo.dlogpRows');
    }
    this.lossOn = cfg.lossOn ?? 'gpu';
    const gpu = this.lossOn === 'gpu';
    this.tokenInputs = gpu ? rt.empty([N, 3], 'f32', 'grpo.tokenInputs') : null;
    this.tokenPack = new Float32Array(gpu ? 3 * N : 0);
    this.stats = gpu ? rt.empty([N, GRPO_STATS], 'f32', 'grpo.stats') : null;
    this.refLogp = this.reference ? rt.empty([N], 'f32', 'grpo.refLogp') : null;
  }

  /**
   * One optimizer step on `trajs` (whole groups of G, contiguous); `lr` overrides cfg.lr (schedules).
   * Data parallel (`shard`, src/shard/dataParallel.ts), two splits:
   * - 'micro-batches': every rank is given the same trajectories, lays out the same micro-batches
   *   and runs its contiguous share of them; the loss is already normalised by the whole batch's
   *   totals, so summing the ranks' gradients gives the one-process step.
   * - 'groups': every rank is given only its own groups (it played them: rlLoop splits the step's
   *   tasks). Group advantages need nothing from other ranks; the ranks first exchange their policy
   *   token and sequence counts (shard.gather) so every token's loss weight is the global one, and
   *   the group counts, token counts and the result's metrics are summed after. The result's
   *   `rewards` and `keptGroups` are this rank's groups only.
   * Either way each rank's per-micro-batch metrics are gathered, so every rank reports the same.
   */
  async step(trajs: readonly Trajectory[], lr = this.cfg.lr, shard?: GradientShard, split: 'micro-batches' | 'groups' = 'micro-batches'): Promise<GrpoStepResult> {
    const ownGroups = shard !== undefined && split === 'groups';
    const { grpo } = this.cfg;
    const G = grpo.groupSize;
    const rewards = trainingRewards(trajs, grpo);
    const adv = groupAdvantages(rewards, G, grpo);
    const base = { rewards, keptGroups: adv.kept };
    const kept = keepGroups([...trajs.keys()], adv.kept, G);
    const used = kept.map((i) => trajs[i]);
    const advantages = kept.map((i) => adv.advantages[i]);
    let groupMetrics = { groups_dropped: adv.kept.length - adv.kept.filter(Boolean).length, frac_reward_zero_std: adv.stats.zeroStdFraction };
    // own groups: a rank whose groups were all dropped still joins every collective round below
    if (used.length === 0 && !ownGroups) return { ...base, skipped: true, reason: 'every group was dropped (all rewards equal within each group): nothing to learn from', metrics: groupMetrics, trainedTokens: 0, processedTokens: 0, episodeTokens: 0 };

    let perTurn: number[][] | null = null;
    if (grpo.turnCreditCoef > 0) {
      const turnRewards = used.map((t) => {
        const r = turnRewardsFromRunningTotals(t.turnTotals);
        while (r.length < t.turns) r.push(0); // a turn whose env step failed earned nothing
        return r;
      });
      perTurn = turnAdvantages(advantages, turnRewards, G, grpo);
    }
    // turn / component credit (grpo/credit.ts): advantage steps at turn starts and decision points
    const steps = grpo.turnCredit || grpo.componentCredit ? creditSteps(used.map((t) => ({ ...t, turnStarts: turnStartsOf(t.turnIndex) })), G, grpo) : null;
    const batch = buildRlBatch(used, {
      rows: this.cfg.microBatchRows, seqLen: this.cfg.seqLen, padId: 0, maskTruncated: grpo.maskTruncated, pack: this.cfg.pack, sharePrefix: this.cfg.sharePrefix ? { groupSize: G } : undefined,
    });
    const truncated = used.map((t) => t.truncated);
    let parts: GrpoMetrics[] = [];
    this.w.zeroGrads();
    const M = batch.micro.length;
    const [lo, hi] = shard && !ownGroups ? [Math.floor((shard.rank * M) / shard.world), Math.floor(((shard.rank + 1) * M) / shard.world)] : [0, M];
    const local = { groups: adv.kept.length, dropped: groupMetrics.groups_dropped, zeroStd: Math.round(adv.stats.zeroStdFraction * adv.kept.length), used: used.length, processed: this.processed(batch), episode: episodeTokensOf(batch), ...batch.totals };
    let global = local;
    if (ownGroups) {
      if (!shard.gather) throw new Error('GRPO trainer: splitting groups across data-parallel ranks needs a shard that can gather counts (gradientShard)');
      global = sumCounts((await shard.gather('grpo token counts', { counts: local })).map((x) => (x as { counts: typeof local }).counts));
      groupMetrics = { groups_dropped: global.dropped, frac_reward_zero_std: global.groups ? global.zeroStd / global.groups : 0 };
    }
    const totals: BatchTotals = { tokens: global.tokens, sequences: global.sequences };
    let skippedHere: { reason: string; metrics: GrpoMetrics } | null = null;
    for (const mb of batch.micro.slice(lo, hi)) {
      this.forward(mb.rows);
      const loss: MicroBatchLoss = {
        oldLogp: mb.oldLogp, mask: mb.mask, seqIndex: mb.seqIndex, advantages, truncated, batchTotals: totals,
        tokenAdvantages: perTurn ? tokenAdvantagesFromTurns(mb.seqIndex, mb.turnIndex, perTurn)
          : steps ? tokenAdvantagesFromSteps(mb.seqIndex, mb.tokenIndex, advantages, steps) : undefined,
      };
      const res = this.lossOn === 'gpu' ? await this.gpuLossBackward(loss) : await this.hostLossBackward(loss);
      if (res.skipped) {
        skippedHere = { reason: res.reason, metrics: res.metrics };
        break;
      }
      parts.push(res.metrics);
    }
    if (shard) {
      // every rank joins the reduce, also one that stopped early: the first skip in micro-batch order wins
      const all = (await shard.allReduce(this.w, { parts, skipped: skippedHere })) as { parts: GrpoMetrics[]; skipped: typeof skippedHere }[];
      skippedHere = all.find((x) => x.skipped)?.skipped ?? null;
      parts = all.flatMap((x) => x.parts);
    }
    if (skippedHere) return { ...base, skipped: true, reason: skippedHere.reason, metrics: { ...groupMetrics, ...skippedHere.metrics }, trainedTokens: 0, processedTokens: 0, episodeTokens: 0 };
    if (global.used === 0) return { ...base, skipped: true, reason: 'every group was dropped (all rewards equal within each group): nothing to learn from', metrics: groupMetrics, trainedTokens: 0, processedTokens: 0, episodeTokens: 0 };
    const c = this.cfg;
    const stats = await this.opt.apply({ lr, beta1: c.beta1, beta2: c.beta2, eps: c.eps, weightDecay: c.weightDecay }, c.maxGradNorm);
    const metrics: GrpoMetrics = { ...mergeMetrics(parts), ...groupMetrics, grad_norm: stats.norm, lr, response_length: totals.tokens / Math.max(totals.sequences, 1) };
    const processedTokens = global.processed;
    const episodeTokens = global.episode;
    if (!stats.finite) return { ...base, skipped: true, reason: `gradient norm is ${stats.norm}: the optimizer skipped the update and kept the last good weights`, metrics, trainedTokens: 0, processedTokens, episodeTokens };
    return { ...base, skipped: false, metrics, trainedTokens: totals.tokens, processedTokens, episodeTokens };
  }

  /** Forward of one micro-batch; leaves logits/lse in place for the backward, logp and entropy (N) on the GPU. */
  private forward(rows: RlBatch['micro'][number]['rows']): void {
    writeBatch(this.rt, this.w, this.acts, rows); // same config for both models: one upload
    if (this.reference) {
      // the reference forward first: the policy forward below then overwrites what backward needs
      modelForward(this.rt, this.reference, this.acts);
      tokenLogprobs(this.rt, this.reference, this.acts);
      this.rt.copy(this.acts.logp, this.refLogp!);
    }
    modelForward(this.rt, this.w, this.acts);
    tokenLogprobs(this.rt, this.w, this.acts, this.entropy ?? undefined); // entropy per logits chunk on long rows
  }

  /** Reference path: logp (and entropy) read back, grpoLoss in float64, dlogp uploaded, backward. */
  private async hostLossBackward(inp: MicroBatchLoss): Promise<LossOutcome> {
    const { grpo } = this.cfg;
    const logp = await this.rt.readF32(this.acts.logp);
    const entropy = this.entropy ? await this.rt.readF32(this.entropy) : undefined;
    const refLogp = this.refLogp ? await this.rt.readF32(this.refLogp) : undefined;
    const res = grpoLoss({ ...inp, logp, entropy, refLogp, proxLogp: this.cfg.importanceCorrection === 'tis' ? logp : undefined }, grpo);
    if (res.skipped) return res;
    if (grpo.entropyCoef !== 0) {
      const dH = entropyGradWeights(inp, grpo);
      this.rt.write(this.acts.dlogp, Float32Array.from({ length: 3 * logp.length }, (_, i) => [res.dlogp, dH, entropy!][i % 3][Math.floor(i / 3)]));
    } else {
      this.rt.write(this.acts.dlogp, res.dlogp);
    }
    modelBackward(this.rt, this.w, this.acts, this.scratch);
    return res;
  }

  /** GPU path: per-token (oldLogp, advantage, weight) uploaded, loss + dlogp kernel, backward, statistics read back. */
  private async gpuLossBackward(inp: MicroBatchLoss): Promise<LossOutcome> {
    const { grpo } = this.cfg;
    const sel = selectTokens(inp.mask, inp.seqIndex, inp.advantages.length, grpo, inp.truncated, inp.batchTotals);
    const A = inp.tokenAdvantages ?? Float64Array.from(inp.seqIndex, (s) => (s >= 0 ? inp.advantages[s] : 0)); // (N)
    const skip = (reason: string, metrics: GrpoMetrics = {}): LossOutcome => ({ skipped: true, reason: `${reason}: skip this update and keep the last good weights`, metrics });
    // the host's own inputs are checked here (same message as grpoLoss); logp / entropy by the kernel
    for (let n = 0; n < A.length; n++) {
      if (!sel.active[n]) continue;
      if (!Number.isFinite(inp.oldLogp[n])) return skip(`non-finite input oldLogp[${n}] = ${inp.oldLogp[n]} (trajectory ${inp.seqIndex[n]})`);
      if (!Number.isFinite(A[n])) return skip(inp.tokenAdvantages ? `non-finite input tokenAdvantages[${n}] = ${A[n]}` : `non-finite input advantages[${inp.seqIndex[n]}] = ${A[n]}`);
    }
    if (sel.tokens === 0) return { skipped: true, reason: 'no policy tokens in the batch (every token is masked): nothing to learn from', metrics: { policy_tokens: 0 } };

    const tis = this.cfg.importanceCorrection === 'tis';
    this.rt.write(this.tokenInputs!, packGrpoTokens(inp.oldLogp, A, sel.weight, this.tokenPack));
    grpoLossForward(this.rt, { logp: this.acts.logp, tokens: this.tokenInputs!, proxLogp: tis ? this.acts.logp : undefined, refLogp: this.refLogp ?? undefined, entropy: this.entropy ?? undefined },
      { N: A.length, ...grpo }, { dlogp: this.acts.dlogp, stats: this.stats! });
    // queued before the read: one round trip per micro-batch; a skipped step never applies these gradients
    modelBackward(this.rt, this.w, this.acts, this.scratch);
    const sums = sumGrpoStats(await this.rt.readF32(this.stats!), sel.weight);
    const metrics = lossMetrics(sums, sel, grpo, { entropy: this.entropy !== null, tis, reference: this.reference !== null });
    if (sums.bad?.what === 'input') return skip(`non-finite input on the GPU (logp or entropy) at token ${sums.bad.n} (trajectory ${inp.seqIndex[sums.bad.n]})`, metrics);
    if (sums.bad) return skip(`loss or dlogp overflows float32 at token ${sums.bad.n} (ratio up to ${metrics['ratio/max']})`, metrics);
    return { skipped: false, metrics };
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
    this.rt.release(this.entropy, this.tokenInputs, this.stats, this.refLogp);
    this.reference?.destroy();
  }
}

/** Σ length of a batch's trained trajectories (what full rows would process). */
function episodeTokensOf(batch: RlBatch): number {
  return batch.placements.reduce((a, p) => a + (p?.length ?? 0), 0);
}

/** Field-wise sums of the ranks' counts, in rank order. */
function sumCounts<C extends Record<string, number>>(all: C[]): C {
  const out = { ...all[0] };
  for (const c of all.slice(1)) for (const k of Object.keys(out) as (keyof C)[]) (out[k] as number) += c[k];
  return out;
}

/** grpoLoss's metrics (same names and meaning) from the GPU kernel's per-token statistics. */
function lossMetrics(s: GrpoStatSums, sel: TokenSelection, cfg: GrpoConfig, has: { entropy: boolean; tis: boolean; reference: boolean }): GrpoMetrics {
  const T = sel.tokens;
  const entLoss = -cfg.entropyCoef * s.entropyWeighted;
  const klLoss = cfg.klCoef * s.k3Weighted;
  const metrics: GrpoMetrics = {
    loss: s.pg + (has.reference ? klLoss : 0) + (has.entropy ? entLoss : 0),
    pg_loss: s.pg,
    clip_ratio: (s.clipLow + s.clipHigh) / T,
    'clip_ratio/low': s.clipLow / T,
    'clip_ratio/high': s.clipHigh / T,
    approx_kl: s.approxKl / T,
    'ratio/mean': s.ratioSum / T,
    'ratio/min': s.ratioMin,
    'ratio/max': s.ratioMax,
    policy_tokens: T,
    response_length: T / sel.sequences,
  };
  if (has.reference) Object.assign(metrics, { kl: s.k3 / T, kl_loss: klLoss });
  if (has.entropy) Object.assign(metrics, { entropy: s.entropy / T, entropy_loss: entLoss });
  if (has.tis) Object.assign(metrics, { 'tis/weight_mean': s.tisWeight / T, 'tis/capped_fraction': s.tisCapped / T });
  return metrics;
}
