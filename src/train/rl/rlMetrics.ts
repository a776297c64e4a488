// One RL step's metrics, by name (TRL/verl style), shared by the synchronous loop and the async
// coordinator, and their JSONL form:
//   reward, reward_std, reward/<component>(/std), success_rate, turns/mean, response_length/mean,
//   staleness/mean|max (+ the histogram), frac_groups_dropped, loss, clip_ratio(/low|/high),
//   approx_kl, entropy, grad_norm, lr, rollout/tokens_per_s, train/tokens_per_s, time/*,
//   end/<reason> and faults/<name> (episodeEndsAndFaults).
import { type EpisodeRecord, stalenessHistogram, summarizeEpisodes } from './grpo';
import type { GrpoStepResult } from './grpoTrainer';
import { STEP_FAULTS } from '../../envs/types';
import type { Trajectory } from './trajectory';

export interface RlStepRecord {
  /** 1-based trainer step (counts skipped steps too). */
  step: number;
  /** Trainer version after this step (+1 per applied update). */
  version: number;
  /** True when the update was skipped (weights unchanged). */
  skipped: boolean;
  /** Why it was skipped. */
  reason?: string;
  /** hist[k] = trajectories of this step sampled k versions before the trainer's version at training time. */
  stalenessHistogram: number[];
  /** Everything else by name (list in the header). */
  metrics: Record<string, number>;
  /** Data parallel: this rank's own share of the step (the metrics are the whole step's, the same on every rank). */
  rank?: { rank: number; world: number; episodes: number; rolloutSeconds: number };
}

/** What a step's record reads of an episode (a Trajectory, or its summary gathered from another data-parallel rank). */
export type StepEpisode = EpisodeRecord & Pick<Trajectory, 'truncated' | 'end' | 'faults'> & { ids: { readonly length: number } };

export interface StepTiming {
  /** Wall seconds spent producing the step's rollouts (0 when they overlapped with training). */
  rolloutSeconds: number;
  /** Wall seconds of the trainer step. */
  trainSeconds: number;
  /** Tokens the rollouts sampled (Σ responseTokens). */
  generatedTokens: number;
}

export function buildStepRecord(step: number, trainerVersion: number, trajs: readonly StepEpisode[], result: GrpoStepResult, timing: StepTiming, extra: Record<string, number> = {}): RlStepRecord {
  const episodes = summarizeEpisodes(trajs, trainerVersion, {
    trainingRewards: result.rewards,
    groupStats: { droppedFraction: fraction(result.keptGroups), zeroStdFraction: result.metrics.frac_reward_zero_std ?? 0 },
  });
  const metrics: Record<string, number> = {
    ...episodes,
    ...result.metrics,
    'truncated/fraction': trajs.length ? trajs.filter((t) => t.truncated).length / trajs.length : 0,
    'train/policy_tokens': result.trainedTokens,
    'train/processed_tokens': result.processedTokens,
    'train/episode_tokens': result.episodeTokens,
    'train/tokens_per_s': timing.trainSeconds > 0 ? result.processedTokens / timing.trainSeconds : 0,
    'rollout/generated_tokens': timing.generatedTokens,
    // every token of every episode drawn (prompt, turns, replies): the rollout's forward work without prefix sharing
    'rollout/episode_tokens': trajs.reduce((a, t) => a + t.ids.length, 0),
    'rollout/tokens_per_s': timing.rolloutSeconds > 0 ? timing.generatedTokens / timing.rolloutSeconds : 0,
    'time/rollout_s': timing.rolloutSeconds,
    'time/train_s': timing.trainSeconds,
    ...episodeEndsAndFaults(trajs),
    ...extra,
  };
  const record: RlStepRecord = {
    step,
    version: trainerVersion + (result.skipped ? 0 : 1),
    skipped: result.skipped,
    stalenessHistogram: stalenessHistogram(trajs, trainerVersion),
    metrics,
  };
  if (result.reason !== undefined) record.reason = result.reason;
  return record;
}

const ENDS: readonly Trajectory['end'][] = ['done', 'max-turns', 'max-tokens', 'env-error'];

/**
 * Share of episodes per end reason (`end/<reason>`, every reason, 0 included) and per fault
 * (`faults/<name>`: episodes where at least one step reported it; every StepFault, 0 included), so
 * a run's curves show when episodes hit a limit, broke a call, confused the user or timed out.
 */
export function episodeEndsAndFaults(trajs: readonly Pick<Trajectory, 'end' | 'faults'>[]): Record<string, number> {
  const n = Math.max(trajs.length, 1);
  const out: Record<string, number> = {};
  for (const end of ENDS) out[`end/${end}`] = trajs.filter((t) => t.end === end).length / n;
  for (const f of STEP_FAULTS) out[`faults/${f}`] = trajs.filter((t) => (t.faults?.[f] ?? 0) > 0).length / n;
  return out;
}

function fraction(kept: readonly boolean[]): number {
  return kept.length ? kept.filter((k) => !k).length / kept.length : 0;
}

/** One JSON line (NaN/Infinity become null, as JSON has no such numbers). */
export function toJsonlLine(record: RlStepRecord): string {
  return JSON.stringify(record, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v));
}

/** Sum of sampled tokens over trajectories. */
export function generatedTokens(trajs: readonly Trajectory[]): number {
  return trajs.reduce((a, t) => a + t.responseTokens, 0);
}
