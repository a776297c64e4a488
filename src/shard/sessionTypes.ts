// What a swarm session (session.ts) is given — its link, transport, election, device, store and
// timings — and what it shows the page (SwarmView).
import type { GpuRuntime } from '../gpu/runtime';
import type { CheckpointBackend } from '../storage/backend';
import type { RolloutActorSpec } from '../train/rl/async/actors';
import type { RolloutHandle } from '../train/rl/async/handles';
import type { PackedWeights } from '../train/rl/async/weights';
import type { SwarmLink } from './link';
import type { Lifecycle } from './protocol';
import type { SchedulerStats } from './rolloutScheduler';
import type { MemberInfo, MemberStatus } from './swarmNode';
import type { SwarmTransport } from './transport';

/** The part of the Web Locks API the election needs (navigator.locks; a memory version in Node tests). */
export interface LockManagerLike {
  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<void>): Promise<unknown>;
}

export interface SessionOptions {
  link: SwarmLink;
  transport: SwarmTransport;
  /** Tabs: leader election through these locks. Null: `lead` decides (machines). */
  locks: LockManagerLike | null;
  /** Machines: this member started the run and leads it. */
  lead?: boolean;
  /** This member's device (acquired when first needed: leading or playing a job). */
  runtime: () => Promise<GpuRuntime>;
  /** Where the leader's checkpoints go (tabs: one IndexedDB per run, shared by its tabs). */
  store: () => Promise<CheckpointBackend>;
  /** A rollout actor for a job (default: RolloutActor on this member's device). */
  makeActor?: (spec: RolloutActorSpec, weights: PackedWeights) => Promise<RolloutHandle>;
  /** Whether the page is visible (heartbeats say so; hidden tabs are throttled). */
  visible?: () => boolean;
  /** The page's lifecycle (pageLifecycle.ts; default 'active'). */
  lifecycle?: () => Lifecycle;
  heartbeatMs?: number;
  silenceMs?: number;
  chunkDeadlineMs?: number;
  /** Data parallel: how long a rank waits for another's gradients before the run fails (default 120 s). */
  collectiveTimeoutMs?: number;
  /** Remembers that the run finished (tabs: localStorage), so no tab takes over a finished run. */
  finished?: { get(): boolean; set(): void };
  /** Checkpoint every N GRPO/SFT steps (default 1: a takeover loses at most one step). */
  checkpointEvery?: number;
  log?: (line: string) => void;
}

/** rollout / leader: rollout tabs feeding one trainer; rank: one of a data-parallel run's trainers. */
export type SessionRole = 'rollout' | 'leader' | 'rank';

/** What the page shows. */
export interface SwarmView {
  runId: string;
  selfId: string;
  role: SessionRole;
  /** The member leading now (null: not known yet). */
  leaderId: string | null;
  members: MemberInfo[];
  self: MemberStatus;
  /** Steps done of the GRPO stage running, and its length. */
  step: number;
  steps: number;
  /** Trajectories the leader trained on per member id (leader only). */
  trajectoriesBy: Record<string, number>;
  scheduler: SchedulerStats | null;
  /** Things a person should know (takeovers, refusals, drops), newest last. */
  notes: string[];
  state: 'joining' | 'running' | 'done' | 'failed' | 'refused';
  error: string | null;
  /** Data-parallel runs: the world size from the link, and once started this tab's rank and the rank order. */
  dp: { world: number; rank: number | null; ranks: string[] } | null;
}
