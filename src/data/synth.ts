// Expert trajectories → verified SFT data (rejection sampling, as in Klear-AgentForge's data stage):
// for each train task, the family's expert plays a full episode against the real environment
// (runEpisode), and only episodes that end normally with success and full reward are kept. The
// replay is the verification: an expert step the environment does not accept drops the trajectory.
// Families are mixed by given shares and the kept conversations exported as HF chat JSONL.
import type { EnvFamily, EpisodeLimits, Policy, TaskBase } from '../envs/types';
import { FULL_REWARD_TOTAL, runEpisode, type Episode } from '../eval/rollout';
import { hashString, mixSeeds } from '../util/seeds';
import { Rng } from '../util/rng';
import { toHfConversation, type ChatConversation } from './chatJsonl';
import { computeSynthStats, type SynthStats } from './synthStats';

/** By default a family may run this many episodes per wanted conversation before giving up. */
export const DEFAULT_ATTEMPTS_PER_CONVERSATION = 2;

/** Options of one family's synthesis. */
export interface SynthOptions {
  /** Conversations wanted (accepted trajectories). */
  n: number;
  /** Run seed: task i is family.generateTask(seed, i, 'train'); the expert's seed is derived from it. */
  seed: number;
  /** Episodes to run at most (default ceil(n · DEFAULT_ATTEMPTS_PER_CONVERSATION)); fewer than n are kept if acceptance is low. */
  maxAttempts?: number;
  /** Environment limit overrides (unset fields keep the family's defaults). */
  limits?: Partial<EpisodeLimits>;
  /** Reward weight overrides. */
  weights?: Partial<Record<string, number>>;
  /** Called after each episode with the episode and whether it was kept. */
  onEpisode?: (episode: Episode, accepted: boolean) => void;
}

/** One kept trajectory. */
export interface SynthItem {
  /** Family name. */
  family: string;
  /** Task id (to trace a line back to its task). */
  taskId: string;
  /** Task category. */
  category: string;
  /** Assistant turns of the episode. */
  turns: number;
  /** The conversation in HF export form. */
  conversation: ChatConversation;
}

/** Result of one family's synthesis. */
export interface FamilySynthResult {
  /** Kept trajectories, in task order. */
  items: SynthItem[];
  /** Counts and diversity. */
  stats: SynthStats;
  /** A few rejected episodes as "taskId: reason (detail)", to show why they failed. */
  rejectedExamples: string[];
}

/**
 * Why an episode is rejected, or null when it is kept: it must end normally (not a policy or env
 * error), succeed by the family's rule, and reach full reward (total ≥ FULL_REWARD_TOTAL).
 */
export function rejectionReason(episode: Episode): string | null {
  if (episode.end !== 'done') return episode.end;
  if (!episode.success) return 'not-success';
  if (episode.reward.total < FULL_REWARD_TOTAL) return 'below-full-reward';
  return null;
}

/** A short description of why an episode failed (its error, or the env's diagnostics). */
function rejectionDetail(episode: Episode): string {
  if (episode.error !== undefined) return episode.error;
  const total = episode.reward.total.toFixed(3);
  const components = Object.entries(episode.reward.components).map(([k, v]) => `${k}=${v}`).join(' ');
  return `total ${total} (${components})`;
}

function checkCount(what: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) throw new Error(`synth: ${what} must be a non-negative integer (got ${value})`);
}

/** Runs the expert on train tasks 0, 1, … until n trajectories are kept or maxAttempts episodes ran. */
export async function synthesizeFamily<T extends TaskBase>(family: EnvFamily<T>, opts: SynthOptions): Promise<FamilySynthResult> {
  checkCount('n', opts.n);
  const maxAttempts = opts.maxAttempts ?? Math.ceil(opts.n * DEFAULT_ATTEMPTS_PER_CONVERSATION);
  checkCount('maxAttempts', maxAttempts);
  const salt = hashString(family.name);
  const started = Date.now();
  const items: SynthItem[] = [];
  const rejectedBy: Record<string, number> = {};
  const rejectedExamples: string[] = [];
  let generated = 0;
  for (let i = 0; items.length < opts.n && i < maxAttempts; i++) {
    let task: T;
    try {
      task = family.generateTask(opts.seed, i, 'train');
    } catch (e) {
      throw new Error(`synth: family ${family.name} failed to generate train task ${i} for seed ${opts.seed}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const expertSeed = mixSeeds(opts.seed, salt, i);
    let policy: Policy;
    try {
      policy = family.expertPolicy(task, expertSeed);
    } catch (e) {
      throw new Error(`synth: family ${family.name} could not build its expert for task ${task.id}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const episode = await runEpisode(family, task, policy, { limits: opts.limits, weights: opts.weights, seed: expertSeed });
    generated++;
    const reason = rejectionReason(episode);
    if (reason === null) {
      items.push({ family: family.name, taskId: task.id, category: task.category, turns: episode.turns, conversation: toHfConversation(episode.messages, episode.tools) });
    } else {
      rejectedBy[reason] = (rejectedBy[reason] ?? 0) + 1;
      if (rejectedExamples.length < 5) rejectedExamples.push(`${task.id}: ${reason} (${rejectionDetail(episode)})`);
    }
    opts.onEpisode?.(episode, reason === null);
  }
  const stats = computeSynthStats(family.name, generated, items, rejectedBy, Date.now() - started);
  return { items, stats, rejectedExamples };
}

/** One family of a mix and its share of the conversations. */
export interface MixPart {
  /** The family. */
  family: EnvFamily;
  /** Relative share (any positive scale: 1:1:1 or 0.5/0.3/0.2). */
  share: number;
}

/** Splits n into integer counts proportional to shares (largest remainder; ties to the earlier part). */
export function allocateCounts(n: number, shares: readonly number[]): number[] {
  checkCount('n', n);
  if (shares.length === 0) throw new Error('synth: the mix is empty; give at least one family');
  for (const s of shares) if (!(s >= 0) || !Number.isFinite(s)) throw new Error(`synth: mix shares must be finite and ≥ 0 (got ${s})`);
  const sum = shares.reduce((a, b) => a + b, 0);
  if (sum <= 0) throw new Error('synth: all mix shares are 0; give at least one family a positive share');
  const exact = shares.map((s) => (n * s) / sum);
  const counts = exact.map(Math.floor);
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  const missing = n - counts.reduce((a, b) => a + b, 0);
  for (let j = 0; j < missing; j++) counts[order[j].i]++;
  return counts;
}

/** Result of a mixed synthesis. */
export interface MixSynthResult {
  /** Kept trajectories of all families, shuffled with the run seed. */
  items: SynthItem[];
  /** Per-family stats, in mix order. */
  stats: SynthStats[];
  /** Per-family rejected examples, in mix order. */
  rejectedExamples: string[][];
  /** Conversations wanted per family (the allocation of n). */
  wanted: number[];
}

/** Synthesises n conversations split over the mix by share, then shuffles them together. */
export async function synthesizeMix(parts: readonly MixPart[], opts: SynthOptions): Promise<MixSynthResult> {
  const names = parts.map((p) => p.family.name);
  const duplicate = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicate !== undefined) throw new Error(`synth: family ${duplicate} appears twice in the mix; give each family once`);
  const wanted = allocateCounts(opts.n, parts.map((p) => p.share));
  const results: FamilySynthResult[] = [];
  for (let f = 0; f < parts.length; f++) {
    const maxAttempts = opts.maxAttempts ?? Math.ceil(wanted[f] * DEFAULT_ATTEMPTS_PER_CONVERSATION);
    results.push(await synthesizeFamily(parts[f].family, { ...opts, n: wanted[f], maxAttempts }));
  }
  const items = new Rng(mixSeeds(opts.seed, hashString('mix'))).shuffle(results.flatMap((r) => r.items));
  return { items, stats: results.map((r) => r.stats), rejectedExamples: results.map((r) => r.rejectedExamples), wanted };
}
