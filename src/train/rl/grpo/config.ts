// GRPO hyper-parameters: one JSON-serialisable config type (doc line per field), the defaults, the
// named variants of the literature (TRL's `loss_type`), and a validator whose errors say what to fix.
//
// Variants (see GRPO_VARIANTS):
//   grpo    — DeepSeekMath GRPO: A = (r − mean)/(std + ε), per-sequence token mean, symmetric clip, β = 0.04.
//   dr-grpo — Dr. GRPO (Liu et al. 2025): A = r − mean, token sums divided by a constant length, β = 0.
//   dapo    — DAPO (Yu et al. 2025): clip-higher (0.2 / 0.28), token-level mean, dynamic sampling,
//             soft over-long punishment, β = 0.

/** How per-token losses are reduced to one scalar (see loss.ts for the exact weights). */
export type LossAggregation =
  /** DAPO: Σ_tokens ℓ / (number of policy tokens in the batch); long answers weigh more. */
  | 'token-mean'
  /** Original GRPO: mean over trajectories of (mean over the trajectory's policy tokens). */
  | 'seq-mean-token-mean'
  /** Dr. GRPO: Σ_tokens ℓ / (number of trajectories · lossNormLength); no length bias. */
  | 'seq-mean-token-sum-norm';

/**
 * DAPO's soft over-long punishment, added to the scalar reward of a trajectory with L response tokens:
 *   penalty(L) = 0                                  if L ≤ maxLength − bufferLength
 *              = ((maxLength − bufferLength) − L) / bufferLength   if maxLength − bufferLength < L ≤ maxLength
 *              = −1                                 if L > maxLength
 * scaled by `factor`. L counts policy-generated tokens over all turns (tool and user tokens excluded).
 */
export interface OverlongPenalty {
  /** L_max: response tokens at which the penalty reaches −1 (usually the rollout's token budget). */
  maxLength: number;
  /** L_cache: width of the linear ramp that ends at maxLength (DAPO used 4096 of 20480). */
  bufferLength: number;
  /** Multiplier on the penalty (1 = DAPO). */
  factor: number;
}

export interface GrpoConfig {
  /** G: trajectories sampled per task; each is compared with the other members of its group. */
  groupSize: number;
  /** true: A = (r − mean)/(std + advantageEps) (GRPO, DAPO); false: A = r − mean (Dr. GRPO). std is the unbiased (n−1) group std, as torch.std in TRL/verl. */
  scaleByStd: boolean;
  /** ε added to the group std before dividing (only with scaleByStd); keeps all-equal groups finite. */
  advantageEps: number;
  /** DAPO dynamic sampling: groups whose rewards are all equal carry no signal, so they are dropped (advantage 0, kept = false); the caller draws more tasks. */
  dynamicSampling: boolean;
  /** Lower clip range: the ratio is clipped at 1 − epsLow (0.2 in PPO/GRPO/DAPO). */
  epsLow: number;
  /** Upper clip range: the ratio is clipped at 1 + epsHigh (DAPO clip-higher 0.28 lets rare tokens grow). */
  epsHigh: number;
  /** How per-token losses become the scalar loss (DAPO / GRPO / Dr. GRPO). */
  lossAggregation: LossAggregation;
  /** Constant normaliser (tokens) of 'seq-mean-token-sum-norm'; set it to the max response length and keep it fixed over the run. */
  lossNormLength: number;
  /** β: weight of the k3 KL estimate exp(ref − logp) − (ref − logp) − 1 to a frozen reference model; 0 skips the reference forward. */
  klCoef: number;
  /** Weight of the entropy bonus (loss −= entropyCoef · aggregate(entropy)); its gradient is fused into the GPU log-prob backward (entropy.ts, ops/crossEntropy). */
  entropyCoef: number;
  /** Exclude trajectories cut by a length or turn limit from the loss (DAPO's over-long filtering); they still count in their group's baseline. */
  maskTruncated: boolean;
  /** Soft over-long punishment added to the reward (null = off). */
  overlongPenalty: OverlongPenalty | null;
  /** Reward component weights overriding the environment's own (component name → weight); unnamed components keep the env weight; {} = the env's total. */
  rewardWeights: Record<string, number>;
  /** Truncated importance sampling cap C: with proximal log-probs given, each token is weighted by min(π_prox/π_behaviour, C). */
  tisCap: number;
  /** Per-turn credit: weight of the normalised per-turn return-to-go added to the trajectory advantage of a turn's tokens (0 = trajectory-level only). */
  turnCreditCoef: number;
  /** γ: discount of later turns' rewards in the per-turn return-to-go (1 = undiscounted). */
  turnDiscount: number;
  /**
   * Turn credit (credit.ts): reward-to-go by turn — a token is credited with the reward components
   * its turn and later turns earned (Trajectory.turnComponents), not with what earlier turns earned.
   * Not combinable with turnCreditCoef (the older additive per-turn bonus).
   */
  turnCredit: boolean;
  /**
   * Component credit: a reward component the environment marks as decided at a token (Trajectory.decidedAt)
   * is left out of the advantage of the tokens after it — reward-to-go inside a trajectory (credit.ts).
   * Tokens up to every decision point keep the trajectory advantage. Combines with turnCredit (the
   * pipeline's 'component' scheme); not with turnCreditCoef.
   */
  componentCredit: boolean;
}

/** DeepSeekMath GRPO. */
const GRPO: GrpoConfig = {
  groupSize: 8,
  scaleByStd: true,
  advantageEps: 1e-6,
  dynamicSampling: false,
  epsLow: 0.2,
  epsHigh: 0.2,
  lossAggregation: 'seq-mean-token-mean',
  lossNormLength: 1024,
  klCoef: 0.04,
  entropyCoef: 0,
  maskTruncated: false,
  overlongPenalty: null,
  rewardWeights: {},
  tisCap: 2,
  turnCreditCoef: 0,
  turnDiscount: 1,
  turnCredit: false,
  componentCredit: false,
};

/** Named variants, TRL-style; `grpoConfig(variant, overrides)` builds a validated copy. */
export const GRPO_VARIANTS = {
  grpo: GRPO,
  'dr-grpo': { ...GRPO, scaleByStd: false, lossAggregation: 'seq-mean-token-sum-norm', klCoef: 0 },
  dapo: {
    ...GRPO,
    epsHigh: 0.28,
    lossAggregation: 'token-mean',
    klCoef: 0,
    dynamicSampling: true,
    overlongPenalty: { maxLength: 1024, bufferLength: 256, factor: 1 },
  },
} satisfies Record<string, GrpoConfig>;

export type GrpoVariant = keyof typeof GRPO_VARIANTS;

/**
 * The default: DAPO's loss (clip-higher 0.2/0.28, token-mean, β = 0, no entropy bonus) without the two
 * features that cost extra work in a tab — dynamic sampling (more rollouts) and the over-long penalty
 * (needs a length budget) — which a run turns on explicitly.
 */
export const DEFAULT_GRPO_CONFIG: GrpoConfig = { ...GRPO_VARIANTS.dapo, dynamicSampling: false, overlongPenalty: null };

/** A validated copy of a named variant (or the default) with overrides applied. */
export function grpoConfig(variant: GrpoVariant | 'default' = 'default', overrides: Partial<GrpoConfig> = {}): GrpoConfig {
  const base: GrpoConfig = variant === 'default' ? DEFAULT_GRPO_CONFIG : GRPO_VARIANTS[variant];
  const cfg: GrpoConfig = { ...base, rewardWeights: { ...base.rewardWeights }, ...overrides };
  validateGrpoConfig(cfg);
  return cfg;
}

const AGGREGATIONS: readonly LossAggregation[] = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'];

/** Throws one message listing every invalid field and its allowed range. */
export function validateGrpoConfig(cfg: GrpoConfig): void {
  const errors: string[] = [];
  const need = (ok: boolean, msg: string): void => {
    if (!ok) errors.push(msg);
  };
  const finite = (x: number): boolean => typeof x === 'number' && Number.isFinite(x);
  need(Number.isInteger(cfg.groupSize) && cfg.groupSize >= 2, `groupSize = ${cfg.groupSize}: needs an integer ≥ 2 (a group of 1 has no baseline)`);
  need(finite(cfg.advantageEps) && cfg.advantageEps > 0, `advantageEps = ${cfg.advantageEps}: needs a finite value > 0`);
  need(finite(cfg.epsLow) && cfg.epsLow >= 0 && cfg.epsLow < 1, `epsLow = ${cfg.epsLow}: needs 0 ≤ epsLow < 1 (the lower clip bound is 1 − epsLow)`);
  need(finite(cfg.epsHigh) && cfg.epsHigh >= 0, `epsHigh = ${cfg.epsHigh}: needs a finite value ≥ 0`);
  need(AGGREGATIONS.includes(cfg.lossAggregation), `lossAggregation = '${cfg.lossAggregation}': choose one of ${AGGREGATIONS.join(', ')}`);
  need(finite(cfg.lossNormLength) && cfg.lossNormLength > 0, `lossNormLength = ${cfg.lossNormLength}: needs a value > 0 (the max response length)`);
  need(finite(cfg.klCoef) && cfg.klCoef >= 0, `klCoef = ${cfg.klCoef}: needs a finite value ≥ 0`);
  need(finite(cfg.entropyCoef), `entropyCoef = ${cfg.entropyCoef}: needs a finite value`);
  need(finite(cfg.tisCap) && cfg.tisCap > 0, `tisCap = ${cfg.tisCap}: needs a finite value > 0`);
  need(finite(cfg.turnCreditCoef) && cfg.turnCreditCoef >= 0, `turnCreditCoef = ${cfg.turnCreditCoef}: needs a finite value ≥ 0`);
  need(finite(cfg.turnDiscount) && cfg.turnDiscount >= 0 && cfg.turnDiscount <= 1, `turnDiscount = ${cfg.turnDiscount}: needs 0 ≤ γ ≤ 1`);
  need(typeof cfg.componentCredit === 'boolean', `componentCredit = ${cfg.componentCredit}: needs true or false`);
  need(typeof cfg.turnCredit === 'boolean', `turnCredit = ${cfg.turnCredit}: needs true or false`);
  need(!(cfg.turnCredit && cfg.turnCreditCoef > 0), `turnCredit with turnCreditCoef = ${cfg.turnCreditCoef}: choose one credit scheme (set turnCreditCoef to 0 or turnCredit to false)`);
  need(!(cfg.componentCredit && cfg.turnCreditCoef > 0), `componentCredit with turnCreditCoef = ${cfg.turnCreditCoef}: choose one credit scheme (set turnCreditCoef to 0 or componentCredit to false)`);
  const op = cfg.overlongPenalty;
  if (op !== null) {
    need(finite(op.maxLength) && op.maxLength > 0, `overlongPenalty.maxLength = ${op.maxLength}: needs a value > 0`);
    need(finite(op.bufferLength) && op.bufferLength > 0 && op.bufferLength <= op.maxLength, `overlongPenalty.bufferLength = ${op.bufferLength}: needs 0 < bufferLength ≤ maxLength (${op.maxLength})`);
    need(finite(op.factor) && op.factor >= 0, `overlongPenalty.factor = ${op.factor}: needs a finite value ≥ 0`);
  }
  for (const [k, w] of Object.entries(cfg.rewardWeights)) need(finite(w), `rewardWeights.${k} = ${w}: needs a finite number`);
  if (errors.length > 0) throw new Error(`Invalid GRPO config:\n  ${errors.join('\n  ')}`);
}
