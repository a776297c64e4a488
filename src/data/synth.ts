// Expert trajectories → verified SFT data (rejection sampling, as in Klear-AgentForge's data stage):
// for each train task, the family's expert plays a full episode against the real environment
// (runEpisode), and only episodes that end normally with success and full reward are kept. The
// replay is the verification: an expert step the environment does not accept drops the trajectory.
// Families are mixed by given shares and the kept conversations exported as HF chat JSONL.
import type { EnvFamily, EpisodeLimits, Policy, TaskBase } from '../envs/types';
import { FULL_REWARD_TOTAL, runEpisode, type Episode } from '../eval/rollout';
import { hashString, mixSeeds } from '../util/seeds';
import { MAX_MIX_SHARE } from '../util/limits';
import { Rng } from '../util/rng';
import { toHfConversation, type ChatConversation } from './chatJsonl';
import { SynthStatsAccumulator, type SynthStats } from './synthStats';

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

/** One family's synthesis, one episode at a time (the mix interleaves families through it). */
export class FamilySynth<T extends TaskBase = TaskBase> {
  private readonly salt: number;
  private readonly started = Date.now();
  private readonly stats = new SynthStatsAccumulator();
  private readonly rejectedBy: Record<string, number> = {};
  readonly rejectedExamples: string[] = [];
  readonly maxAttempts: number;
  /** Episodes run so far (task i of the next episode). */
  generated = 0;
  /** Trajectories kept so far. */
  accepted = 0;

  constructor(
    readonly family: EnvFamily<T>,
    private readonly opts: SynthOptions,
  ) {
    checkCount('n', opts.n);
    this.maxAttempts = opts.maxAttempts ?? Math.ceil(opts.n * DEFAULT_ATTEMPTS_PER_CONVERSATION);
    checkCount('maxAttempts', this.maxAttempts);
    this.salt = hashString(family.name);
  }

  /** True once n trajectories are kept or maxAttempts episodes ran. */
  get finished(): boolean {
    return this.accepted >= this.opts.n || this.generated >= this.maxAttempts;
  }

  /** Runs the expert on the next train task; returns the kept trajectory, or null when rejected. */
  async step(): Promise<SynthItem | null> {
    const { family, opts } = this;
    const i = this.generated;
    let task: T;
    try {
      task = family.generateTask(opts.seed, i, 'train');
    } catch (e) {
      throw new Error(`synth: family ${family.name} failed to generate train task ${i} for seed ${opts.seed}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const expertSeed = mixSeeds(opts.seed, this.salt, i);
    let policy: Policy;
    try {
      policy = family.expertPolicy(task, expertSeed);
    } catch (e) {
      throw new Error(`synth: family ${family.name} could not build its expert for task ${task.id}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const episode = await runEpisode(family, task, policy, { limits: opts.limits, weights: opts.weights, seed: expertSeed });
    this.generated++;
    const reason = rejectionReason(episode);
    let item: SynthItem | null = null;
    if (reason === null) {
      item = { family: family.name, taskId: task.id, category: task.category, turns: episode.turns, conversation: toHfConversation(episode.messages, episode.tools) };
      this.accepted++;
      this.stats.add(item);
    } else {
      this.rejectedBy[reason] = (this.rejectedBy[reason] ?? 0) + 1;
      if (this.rejectedExamples.length < 5) this.rejectedExamples.push(`${task.id}: ${reason} (${rejectionDetail(episode)})`);
    }
    opts.onEpisode?.(episode, reason === null);
    return item;
  }

  /** Counts and diversity of what was kept so far. */
  result(): SynthStats {
    return this.stats.finish(this.family.name, this.generated, this.rejectedBy, Date.now() - this.started);
  }
}

/** Runs the expert on train tasks 0, 1, … until n trajectories are kept or maxAttempts episodes ran. */
export async function synthesizeFamily<T extends TaskBase>(family: EnvFamily<T>, opts: SynthOptions): Promise<FamilySynthResult> {
  const synth = new FamilySynth(family, opts);
  const items: SynthItem[] = [];
  while (!synth.finished) {
    const item = await synth.step();
    if (item !== null) items.push(item);
  }
  return { items, stats: synth.result(), rejectedExamples: synth.rejectedExamples };
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
  for (const s of shares) if (!(s >= 0) || !(s <= MAX_MIX_SHARE)) throw new Error(`synth: mix shares must be numbers from 0 to ${MAX_MIX_SHARE} (got ${s})`);
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
  /** Kept trajectories of all families, mixed (see streamMix). */
  items: SynthItem[];
  /** Per-family stats, in mix order. */
  stats: SynthStats[];
  /** Per-family rejected examples, in mix order. */
  rejectedExamples: string[][];
  /** Conversations wanted per family (the allocation of n). */
  wanted: number[];
}

/** Progress of a mixed synthesis, after each episode. */
export interface MixProgress {
  /** Kept per family, in mix order. */
  accepted: number[];
  /** Wanted per family. */
  wanted: number[];
  /** Episodes run in all. */
  episodes: number;
}

/** Items held back to mix the output: the file is shuffled within windows of this many conversations. */
export const MIX_WINDOW = 4096;

/**
 * Synthesises n conversations split over the mix by share and hands each kept one to `write` as
 * soon as it may go out, holding at most MIX_WINDOW of them: families take turns (the one furthest
 * behind its share runs next), and a seeded shuffle over a window of MIX_WINDOW items mixes them
 * (for n ≤ MIX_WINDOW that is a full shuffle). Same seed, same order.
 */
export async function streamMix(parts: readonly MixPart[], opts: SynthOptions & { onProgress?: (p: MixProgress) => void; window?: number }, write: (item: SynthItem) => void): Promise<Omit<MixSynthResult, 'items'>> {
  const windowSize = opts.window ?? MIX_WINDOW;
  const names = parts.map((p) => p.family.name);
  const duplicate = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicate !== undefined) throw new Error(`synth: family ${duplicate} appears twice in the mix; give each family once`);
  const wanted = allocateCounts(opts.n, parts.map((p) => p.share));
  const synths = parts.map((p, f) => new FamilySynth(p.family, { ...opts, n: wanted[f], maxAttempts: opts.maxAttempts ?? Math.ceil(wanted[f] * DEFAULT_ATTEMPTS_PER_CONVERSATION) }));
  const rng = new Rng(mixSeeds(opts.seed, hashString('mix')));
  const window: SynthItem[] = [];
  let episodes = 0;
  for (;;) {
    // The family furthest behind its share (kept / wanted) runs next; ties go to the earlier family.
    let next = -1;
    for (let f = 0; f < synths.length; f++) {
      if (synths[f].finished) continue;
      if (next === -1 || synths[f].accepted / wanted[f] < synths[next].accepted / wanted[next]) next = f;
    }
    if (next === -1) break;
    const item = await synths[next].step();
    episodes++;
    if (item !== null) {
      window.push(item);
      if (window.length > windowSize) write(takeRandom(window, rng));
    }
    opts.onProgress?.({ accepted: synths.map((s) => s.accepted), wanted, episodes });
  }
  while (window.length > 0) write(takeRandom(window, rng));
  return { stats: synths.map((s) => s.result()), rejectedExamples: synths.map((s) => s.rejectedExamples), wanted };
}

/** Removes and returns a random element (swap with the last: O(1)). */
function takeRandom<T>(items: T[], rng: Rng): T {
  const i = rng.int(0, items.length - 1);
  const picked = items[i];
  items[i] = items[items.length - 1];
  items.pop();
  return picked;
}

/** Synthesises n conversations split over the mix by share, mixed as streamMix writes them. */
export async function synthesizeMix(parts: readonly MixPart[], opts: SynthOptions): Promise<MixSynthResult> {
  const items: SynthItem[] = [];
  const rest = await streamMix(parts, opts, (item) => items.push(item));
  return { items, ...rest };
}
