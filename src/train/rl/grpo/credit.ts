// Credit assignment inside a trajectory: which rewards each policy token is credited with. Three
// schemes (the granular-reward ablation, `--credit trajectory|turn|component`):
//
//   trajectory  plain GRPO: every policy token of trajectory i gets A_i = s_g · (r_i − mean_g r).
//   turn        reward-to-go by turn: a token of turn t is credited with what the episode earned
//               from turn t on — the reward components its own turn and the later turns gained, and
//               the outcome (fixed at the end, so credited to every turn) — but not with what earlier
//               turns had already earned: turn t cannot change those, they are noise for its tokens.
//   component   turn, plus the decision points the environment places inside a turn
//               (Reward.decidedAt → Trajectory.decidedAt): a component fixed at token d leaves the
//               advantage of every later token (e.g. function_choice once the call's name is written).
//
// The reward is a weighted sum r_i = Σ_k c_ik + p_i (c_ik = w_k · component k at the end, p_i the
// over-long penalty, which is never split off). The environment reports the components after every
// step (Trajectory.turnComponents), so V_ik(t) = w_k · (component k after turn t) and the increment
// turn t earned is Δ_ik(t) = V_ik(t) − V_ik(t − 1) (V(−1) = 0; the last turn's value is replaced by
// the final one, so the increments sum to c_ik even when the episode was cut). Then
//   A_i(n) = s_g · [ (r_i − P_i(n)) − mean_g (r_j − P_j(n)) ],
//   P_i(n) = Σ_k [ c_ik                                if k was decided at d_ik < n  (component)
//                  V_ik(t_n − 1)                       otherwise                    (turn, component) ]
// where t_n is the turn of token n, and the baseline's P_j takes the same turn index (a member that
// had already ended earned nothing more: its future is 0) and, for decided components, mean_g c_jk.
// So a token's advantage compares ITS future return with the group's mean future return from the
// same point; every token before the first boundary / decision point keeps exactly A_i. This is
// REINFORCE's reward-to-go: unbiased, with less variance than crediting the whole return.
// Why not "a turn's components to that turn only": the turn that asked the user for an email would
// then get no credit for the authentication the next turn completes with it (only the outcome's).
//
// The result is a list of advantage steps per trajectory: tokens with index > `after` have `delta`
// subtracted from A_i (tokenAdvantagesFromSteps applies them).
import type { GrpoConfig } from './config';
import { checkGrouping, EQUAL_REWARD_TOL, meanStd } from './advantages';
import { type ScoredEpisode, trainingRewards } from './rewards';

/** An episode as credit assignment needs it. */
export interface CreditedEpisode extends ScoredEpisode {
  /** Component → index (in the trajectory's ids) of the token that fixed it (component credit). */
  decidedAt?: Record<string, number>;
  /** The environment's components after each step, in turn order (turn credit). */
  turnComponents?: readonly Record<string, number>[];
  /** Index in the trajectory's ids of each assistant turn's first policy token (turn credit). */
  turnStarts?: readonly number[];
}

/** Tokens with index > `after` have `delta` subtracted from the trajectory advantage. */
export interface CreditStep {
  after: number;
  delta: number;
}

export type CreditOptions = Pick<GrpoConfig, 'scaleByStd' | 'advantageEps' | 'rewardWeights' | 'overlongPenalty' | 'turnCredit' | 'componentCredit'>;

/** V_k(t) for t = 0 … turns−1 (weighted), the last one replaced by the final contribution c_k. */
function turnValues(e: CreditedEpisode, k: string, weight: number): number[] {
  const turns = e.turnStarts?.length ?? 0;
  const out: number[] = [];
  for (let t = 0; t < turns; t++) out.push(weight * (e.turnComponents?.[Math.min(t, (e.turnComponents?.length ?? 0) - 1)]?.[k] ?? 0));
  if (turns > 0) out[turns - 1] = weight * (e.reward.components[k] ?? 0);
  return out;
}

/** V(t − 1) before turn t: 0 before the first turn, the final value once the episode has ended. */
const before = (v: readonly number[], t: number, final: number): number => (t <= 0 ? 0 : t - 1 < v.length ? v[t - 1] : final);

/**
 * Per trajectory, its advantage steps under `cfg`'s scheme (turnCredit, componentCredit; neither:
 * empty lists = plain trajectory credit), for trajectories laid out in whole groups of G.
 */
export function creditSteps(episodes: readonly CreditedEpisode[], G: number, cfg: CreditOptions): CreditStep[][] {
  const groups = checkGrouping(episodes.length, G);
  const rewards = trainingRewards(episodes, cfg);
  const out: CreditStep[][] = [];
  for (let g = 0; g < groups; g++) {
    const members = episodes.slice(g * G, (g + 1) * G);
    const { std } = meanStd(rewards, g * G, (g + 1) * G);
    // a group whose totals tie has A_i = 0 but may still differ by turn; 1/ε would blow its steps up, so it is left unscaled
    const scale = cfg.scaleByStd && std > EQUAL_REWARD_TOL ? 1 / (std + cfg.advantageEps) : 1;
    const names = new Set(members.flatMap((e) => Object.keys({ ...e.reward.weights, ...e.reward.components, ...cfg.rewardWeights })));
    const weightOf = (e: CreditedEpisode, k: string) => cfg.rewardWeights[k] ?? e.reward.weights[k] ?? 0;
    const final = new Map<string, number[]>(); // k → c_jk per member
    const values = new Map<string, number[][]>(); // k → V_jk(t) per member
    for (const k of names) {
      final.set(k, members.map((e) => weightOf(e, k) * (e.reward.components[k] ?? 0)));
      values.set(k, members.map((e) => (cfg.turnCredit ? turnValues(e, k, weightOf(e, k)) : [])));
    }
    const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
    members.forEach((e, i) => {
      const steps: CreditStep[] = [];
      const starts = cfg.turnCredit ? (e.turnStarts ?? []) : [];
      for (const k of names) {
        const c = final.get(k)!;
        const V = values.get(k)!;
        const pastAt = (j: number, t: number) => before(V[j], t, c[j]); // P_jk before turn t
        const d = cfg.componentCredit ? e.decidedAt?.[k] : undefined;
        // the turn holding the decision point (turn credit already removed what came before it)
        const decidedTurn = d === undefined ? Infinity : Math.max(0, starts.findLastIndex((s) => s <= d));
        for (let t = 1; t < starts.length && t <= decidedTurn; t++) {
          const own = pastAt(i, t) - pastAt(i, t - 1);
          const base = mean(members.map((_, j) => pastAt(j, t) - pastAt(j, t - 1)));
          if (own !== base) steps.push({ after: starts[t] - 1, delta: scale * (own - base) });
        }
        if (d !== undefined) {
          const t = starts.length > 0 ? decidedTurn : 0;
          const own = c[i] - pastAt(i, t);
          const base = mean(members.map((_, j) => c[j] - pastAt(j, t)));
          steps.push({ after: d, delta: scale * (own - base) });
        }
      }
      out.push(steps.sort((a, b) => a.after - b.after));
    });
  }
  return out;
}

/** Component credit alone (decision points, no turn boundaries): the single-turn scheme. */
export function componentCreditSteps(episodes: readonly CreditedEpisode[], G: number, cfg: Omit<CreditOptions, 'turnCredit' | 'componentCredit'>): CreditStep[][] {
  return creditSteps(episodes, G, { ...cfg, turnCredit: false, componentCredit: true });
}

/** Index of each assistant turn's first policy token, from a trajectory's per-token turn indices (−1 off-policy). */
export function turnStartsOf(turnIndex: readonly number[]): number[] {
  const starts: number[] = [];
  turnIndex.forEach((t, i) => {
    if (t >= 0 && starts[t] === undefined) starts[t] = i;
  });
  return starts;
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
