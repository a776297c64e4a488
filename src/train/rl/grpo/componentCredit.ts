// Component credit: reward-to-go inside a trajectory, at the points where reward components were
// decided. The scalar reward is a weighted sum of components, r_i = Σ_k c_ik + p_i (c_ik = w_k ·
// component k, p_i the over-long penalty). When the environment marks component k of trajectory i
// as fixed at token d_ik (Trajectory.decidedAt), later tokens cannot change c_ik: it is a past
// reward for them, and leaving it out of their return removes its noise without biasing the
// gradient (REINFORCE's reward-to-go). With the group's baseline split the same way:
//   A_i(n) = s_g · [ (r_i − mean_g r) − Σ_{k : d_ik < n} (c_ik − mean_g c_k) ],
//   s_g = 1 / (std_g r + ε) with scaleByStd, else 1  (the trajectory advantage's own scale).
// Tokens up to every decision point get exactly the trajectory advantage A_i. Why it matters: a
// function-calling reward fixes the function choice at the name, while the argument tokens after it
// are sampled with far more entropy (a small model guessing a value); crediting the choice to them
// too makes their sampling noise the largest part of the gradient (measured: ~11 of ~14.5 nats per
// routing call after format-only SFT). The environment's note says how exact its points are.
import type { GrpoConfig } from './config';
import { checkGrouping, meanStd } from './advantages';
import { type ScoredEpisode, trainingRewards } from './rewards';

/** An episode as component credit needs it: its reward, length and decision points. */
export interface CreditedEpisode extends ScoredEpisode {
  /** Component → index (in the trajectory's ids) of the token that fixed it. */
  decidedAt?: Record<string, number>;
}

/** Tokens with index > `after` have `delta` subtracted from the trajectory advantage. */
export interface CreditStep {
  after: number;
  delta: number;
}

/**
 * Per trajectory, the advantage steps of its decided components (empty: plain trajectory credit),
 * for trajectories laid out in whole groups of G (the trainer passes the kept groups).
 */
export function componentCreditSteps(
  episodes: readonly CreditedEpisode[], // (groups·G)
  G: number,
  cfg: Pick<GrpoConfig, 'scaleByStd' | 'advantageEps' | 'rewardWeights' | 'overlongPenalty'>,
): CreditStep[][] {
  const groups = checkGrouping(episodes.length, G);
  const rewards = trainingRewards(episodes, cfg);
  const weightOf = (e: CreditedEpisode, k: string) => cfg.rewardWeights[k] ?? e.reward.weights[k] ?? 0;
  const contribution = (e: CreditedEpisode, k: string) => weightOf(e, k) * (e.reward.components[k] ?? 0);
  const out: CreditStep[][] = [];
  for (let g = 0; g < groups; g++) {
    const members = episodes.slice(g * G, (g + 1) * G);
    const { std } = meanStd(rewards, g * G, (g + 1) * G);
    const scale = cfg.scaleByStd ? 1 / (std + cfg.advantageEps) : 1;
    const baseline = new Map<string, number>(); // component → mean_g c_k
    for (const e of members) {
      for (const k of Object.keys(e.decidedAt ?? {})) {
        if (!baseline.has(k)) baseline.set(k, members.reduce((a, m) => a + contribution(m, k), 0) / G);
      }
    }
    for (const e of members) {
      out.push(Object.entries(e.decidedAt ?? {}).map(([k, after]) => ({ after, delta: scale * (contribution(e, k) - baseline.get(k)!) })));
    }
  }
  return out;
}

/**
 * Per-token advantages (N): token n, index tokenIndex[n] of trajectory seqIndex[n], gets that
 * trajectory's advantage minus the deltas of the steps it comes after. Non-policy positions
 * (tokenIndex −1) get 0. Pass the result to the loss as `tokenAdvantages`.
 */
export function tokenAdvantagesFromSteps(
  seqIndex: Int32Array, // (N)
  tokenIndex: Int32Array, // (N)
  advantages: ArrayLike<number>, // (S) trajectory advantages
  steps: readonly (readonly CreditStep[])[], // (S)
): Float64Array {
  if (tokenIndex.length !== seqIndex.length) throw new Error(`tokenAdvantagesFromSteps: tokenIndex has ${tokenIndex.length} values, seqIndex ${seqIndex.length}`);
  if (steps.length !== advantages.length) throw new Error(`tokenAdvantagesFromSteps: ${steps.length} step lists for ${advantages.length} trajectories`);
  const out = new Float64Array(seqIndex.length); // (N)
  for (let n = 0; n < seqIndex.length; n++) {
    const s = seqIndex[n];
    const i = tokenIndex[n];
    if (s < 0 || i < 0) continue;
    let a = advantages[s];
    for (const step of steps[s]) if (i > step.after) a -= step.delta;
    out[n] = a;
  }
  return out;
}
