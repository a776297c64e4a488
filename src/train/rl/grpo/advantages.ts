// Group-relative advantages (GRPO), DAPO's dynamic-sampling filter, and per-turn credit.
//
// Credit assignment in a multi-turn trajectory (tokens the policy generated; tool/user tokens have mask 0):
//   trajectory level (always): every policy token of trajectory i gets A_i, the group-relative
//     advantage of its scalar reward — what TRL/verl GRPO do for one completion.
//   per turn (turnCreditCoef > 0): turn t of trajectory i earned a reward r_{i,t} (e.g. the increase
//     of the env's running reward, rewards.ts). Its discounted return-to-go
//       R_{i,t} = Σ_{t' ≥ t} γ^{t'−t} r_{i,t'}
//     is normalised over all turns of all trajectories in the group (R − mean, / (std + ε) when
//     scaleByStd), and the tokens of turn t get A_{i,t} = A_i + turnCreditCoef · R̂_{i,t}. A turn that
//     earned more than its group's turns typically do is pushed up beyond the trajectory's own fate.
import type { GrpoConfig } from './config';

/** Rewards closer than this count as equal for dynamic sampling (weighted sums of 1s are not exact). */
export const EQUAL_REWARD_TOL = 1e-9;

/** Per-step group statistics (what the metrics and the caller's resampling need). */
export interface GroupStats {
  /** Number of groups (rewards.length / G). */
  groups: number;
  /** Mean reward of each group. */
  groupMean: Float64Array; // (groups)
  /** Unbiased (n − 1) standard deviation of each group's rewards. */
  groupStd: Float64Array; // (groups)
  /** Fraction of groups with kept = false (dynamic sampling or invalid rewards). */
  droppedFraction: number;
  /** Fraction of groups whose rewards are all equal (no learning signal), dropped or not — TRL's frac_reward_zero_std. */
  zeroStdFraction: number;
  /** Groups holding a NaN/±Inf reward: always dropped, advantage 0 (an environment bug to report). */
  invalidGroups: number;
}

export interface GroupAdvantages {
  /** One advantage per trajectory, same order as rewards; 0 in dropped groups. */
  advantages: Float64Array; // (groups·G)
  /** Per group: false when dropped (the caller excludes it and draws more). */
  kept: boolean[]; // (groups)
  stats: GroupStats;
}

export function checkGrouping(n: number, G: number): number {
  if (!Number.isInteger(G) || G < 1) throw new Error(`groupAdvantages: group size G = ${G} must be a positive integer`);
  if (n % G !== 0) throw new Error(`groupAdvantages: ${n} rewards are not a whole number of groups of G = ${G}; lay groups out contiguously`);
  return n / G;
}

function allFinite(xs: readonly number[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!Number.isFinite(xs[i])) return false;
  return true;
}

function rangeOf(xs: readonly number[], from: number, to: number): number {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = from; i < to; i++) {
    lo = Math.min(lo, xs[i]);
    hi = Math.max(hi, xs[i]);
  }
  return hi - lo;
}

/** Mean and unbiased std of xs[from, to); std = 0 for fewer than two values. */
export function meanStd(xs: readonly number[], from: number, to: number): { mean: number; std: number } {
  const n = to - from;
  let sum = 0;
  for (let i = from; i < to; i++) sum += xs[i];
  const mean = sum / n;
  if (n < 2) return { mean, std: 0 };
  let ss = 0;
  for (let i = from; i < to; i++) ss += (xs[i] - mean) ** 2;
  return { mean, std: Math.sqrt(ss / (n - 1)) };
}

/** Per group of G contiguous rewards: true when the rewards differ (a group worth training on). */
export function groupsToKeep(rewards: readonly number[], G: number): boolean[] {
  const groups = checkGrouping(rewards.length, G);
  return Array.from({ length: groups }, (_, g) => allFinite(rewards, g * G, (g + 1) * G) && rangeOf(rewards, g * G, (g + 1) * G) > EQUAL_REWARD_TOL);
}

/** The items (trajectories, episodes…) of kept groups, in order; items are grouped like the rewards. */
export function keepGroups<T>(items: readonly T[], kept: readonly boolean[], G: number): T[] {
  if (items.length !== kept.length * G) throw new Error(`keepGroups: ${items.length} items for ${kept.length} groups of ${G}`);
  return items.filter((_, i) => kept[Math.floor(i / G)]);
}

/**
 * GRPO advantages for rewards laid out as groups of G contiguous trajectories of the same task:
 *   A = (r − mean_g) / (std_g + eps)  (scaleByStd)   or   A = r − mean_g  (Dr. GRPO).
 * With dynamicSampling, groups whose rewards are all equal are dropped (kept = false, A = 0).
 * A group with a non-finite reward is always dropped and counted in stats.invalidGroups.
 */
export function groupAdvantages(
  rewards: readonly number[], // (groups·G)
  G: number,
  cfg: Pick<GrpoConfig, 'scaleByStd' | 'advantageEps' | 'dynamicSampling'>,
): GroupAdvantages {
  const groups = checkGrouping(rewards.length, G);
  const advantages = new Float64Array(rewards.length);
  const groupMean = new Float64Array(groups);
  const groupStd = new Float64Array(groups);
  const kept: boolean[] = [];
  let zeroStd = 0;
  let invalid = 0;
  for (let g = 0; g < groups; g++) {
    const from = g * G;
    const to = from + G;
    if (!allFinite(rewards, from, to)) {
      invalid++;
      groupMean[g] = NaN;
      groupStd[g] = NaN;
      kept.push(false);
      continue;
    }
    const { mean, std } = meanStd(rewards, from, to);
    groupMean[g] = mean;
    groupStd[g] = std;
    const flat = rangeOf(rewards, from, to) <= EQUAL_REWARD_TOL;
    if (flat) zeroStd++;
    const keep = !(cfg.dynamicSampling && flat);
    kept.push(keep);
    if (!keep) continue;
    const scale = cfg.scaleByStd ? 1 / (std + cfg.advantageEps) : 1;
    for (let i = from; i < to; i++) advantages[i] = (rewards[i] - mean) * scale;
  }
  const dropped = kept.filter((k) => !k).length;
  return {
    advantages,
    kept,
    stats: { groups, groupMean, groupStd, droppedFraction: groups > 0 ? dropped / groups : 0, zeroStdFraction: groups > 0 ? zeroStd / groups : 0, invalidGroups: invalid },
  };
}

/** R_t = Σ_{t' ≥ t} γ^{t'−t} r_{t'} for one trajectory. */
export function returnsToGo(turnRewards: readonly number[], gamma: number): number[] {
  const out = new Array<number>(turnRewards.length);
  let acc = 0;
  for (let t = turnRewards.length - 1; t >= 0; t--) {
    acc = turnRewards[t] + gamma * acc;
    out[t] = acc;
  }
  return out;
}

/**
 * Per-turn advantages A_{i,t} = A_i + turnCreditCoef · R̂_{i,t} (scheme in the header); trajectories
 * grouped like groupAdvantages' input. Trajectories of dropped groups (kept[g] = false) get zeros.
 * Returns one array per trajectory with one entry per turn.
 */
export function turnAdvantages(
  trajectoryAdvantages: ArrayLike<number>, // (groups·G)
  turnRewards: readonly (readonly number[])[], // (groups·G)[turns_i]
  G: number,
  cfg: Pick<GrpoConfig, 'scaleByStd' | 'advantageEps' | 'turnCreditCoef' | 'turnDiscount'>,
  kept?: readonly boolean[], // (groups)
): number[][] {
  const n = trajectoryAdvantages.length;
  if (turnRewards.length !== n) throw new Error(`turnAdvantages: ${turnRewards.length} per-turn reward lists for ${n} trajectories`);
  const groups = checkGrouping(n, G);
  const out: number[][] = [];
  for (let g = 0; g < groups; g++) {
    const members = Array.from({ length: G }, (_, j) => g * G + j);
    if (kept && !kept[g]) {
      for (const i of members) out.push(turnRewards[i].map(() => 0));
      continue;
    }
    const returns = members.map((i) => returnsToGo(turnRewards[i], cfg.turnDiscount));
    const flat = returns.flat();
    const { mean, std } = flat.length > 0 ? meanStd(flat, 0, flat.length) : { mean: 0, std: 0 };
    const scale = cfg.scaleByStd ? 1 / (std + cfg.advantageEps) : 1;
    members.forEach((i, j) => out.push(returns[j].map((R) => trajectoryAdvantages[i] + cfg.turnCreditCoef * (R - mean) * scale)));
  }
  return out;
}

/**
 * Per-token advantages (N) from per-turn ones: token n gets perTurn[seqIndex[n]][turnIndex[n]].
 * Tokens outside any trajectory (seqIndex −1) or any assistant turn (turnIndex −1) get 0; those are
 * never policy tokens. Pass the result to grpoLoss as `tokenAdvantages`.
 */
export function tokenAdvantagesFromTurns(
  seqIndex: Int32Array, // (N)
  turnIndex: Int32Array, // (N) assistant turn of each token, −1 for prompt/tool/padding tokens
  perTurn: readonly (readonly number[])[],
): Float64Array {
  if (turnIndex.length !== seqIndex.length) throw new Error(`tokenAdvantagesFromTurns: turnIndex has ${turnIndex.length} values, seqIndex ${seqIndex.length}`);
  const out = new Float64Array(seqIndex.length); // (N)
  for (let n = 0; n < seqIndex.length; n++) {
    const s = seqIndex[n];
    const t = turnIndex[n];
    if (s < 0 || t < 0) continue;
    if (s >= perTurn.length || t >= perTurn[s].length) throw new Error(`tokenAdvantagesFromTurns: token ${n} is in trajectory ${s} turn ${t}, but only ${perTurn.length} trajectories / ${perTurn[s]?.length ?? 0} turns have advantages`);
    out[n] = perTurn[s][t];
  }
  return out;
}
