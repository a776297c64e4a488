// The leader's side of remote rollouts: the async coordinator (train/rl/async/coordinator.ts) asks
// for a batch; the scheduler cuts it into chunks of whole task groups, hands each chunk to an idle
// rollout member (lowest slot first), checks what comes back (trajectoryWire.ts) and puts the batch
// back together in task order. Membership changes under it at any time:
//   - a member that leaves, goes silent or is dropped: its chunk goes back to the front of the queue;
//   - a chunk past its deadline (a frozen or throttled tab): re-queued; the member stays busy until
//     it answers, and that late answer is ignored — so no trajectory is counted twice;
//   - a tab that announces it is frozen (page lifecycle): its chunk is re-queued at once and it gets
//     no weights or work until it says it is back; its answer to the old chunk is then ignored;
//   - a result for a chunk that is not (or no longer) this member's: ignored and counted;
//   - a result played with weights older than the chunk asked for (a tab that waited for weights
//     while frozen, then played what it had): rejected by version, the chunk re-queued, the member kept;
//   - a result that fails validation: the member is dropped and logged, its chunk re-queued.
// With no rollout member at all, an optional local actor (the leader's own device) plays chunks, so
// a swarm of one tab still trains.
import type { EnvFamily } from '../envs/types';
import { rolloutFamily, type RolloutActorSpec, type RolloutJob, type RolloutResult } from '../train/rl/async/actors';
import type { RolloutHandle } from '../train/rl/async/handles';
import type { PackedWeights } from '../train/rl/async/weights';
import { generatedTokens } from '../train/rl/rlMetrics';
import type { Trajectory } from '../train/rl/trajectory';
import { mixSeeds } from '../util/seeds';
import { floatBytes, type HeaderOf } from './protocol';
import { checkTableOrder, jobTaskIds } from './swarmSpec';
import type { SwarmNode } from './swarmNode';
import { decodeTrajectories } from './trajectoryWire';

export interface SchedulerOptions {
  node: SwarmNode;
  spec: RolloutActorSpec;
  /** Index of the GRPO stage in the run's config (members derive the spec from it). */
  stage: number;
  /** An actor on the leader's own device, used only while no rollout member is connected. */
  local?: () => Promise<RolloutHandle>;
  /** A chunk not answered within this long is handed to someone else (ms). */
  chunkDeadlineMs?: number;
  log?: (line: string) => void;
}

interface Chunk {
  id: number;
  slot: number;
  firstTask: number;
  tasks: number;
  seed: number;
  /** Offset of its first task in the job (group renumbering on merge). */
  offset: number;
  resolve: (r: RolloutResult) => void;
  reject: (e: Error) => void;
  cancelled: boolean;
}

interface Worker {
  id: string;
  /** The chunk it is playing (also while that chunk was re-queued after its deadline). */
  busyWith: number | null;
  /** Newest weights version sent to it. */
  sentVersion: number;
}

/** Counters of everything the scheduler had to work around (shown on the page, checked by tests). */
export interface SchedulerStats {
  chunksSent: number;
  chunksDone: number;
  reassigned: number;
  lateOrDuplicateResults: number;
  rejectedResults: number;
  /** Results played with weights older than their chunk's minimum version (re-queued, member kept). */
  staleResults: number;
  /** Chunks taken back from a tab that announced it froze. */
  frozenReassigned: number;
  failedChunks: number;
  localChunks: number;
  /** Trajectories accepted per member id ('local' for the leader's own actor). */
  trajectoriesBy: Record<string, number>;
  /** Tokens sampled in accepted chunks (the swarm bench's tokens/s). */
  generatedTokens: number;
}

export class RolloutScheduler {
  private latest: PackedWeights | null = null;
  private readonly queue: Chunk[] = [];
  private readonly inFlight = new Map<number, { chunk: Chunk; worker: string; timer: ReturnType<typeof setTimeout> | null; minVersion: number }>();
  private readonly workers = new Map<string, Worker>();
  private readonly family: EnvFamily;
  private nextChunk = 1;
  private localActor: Promise<RolloutHandle> | null = null;
  private localBusy = false;
  private closed = false;
  readonly stats: SchedulerStats = { chunksSent: 0, chunksDone: 0, reassigned: 0, lateOrDuplicateResults: 0, rejectedResults: 0, staleResults: 0, frozenReassigned: 0, failedChunks: 0, localChunks: 0, trajectoriesBy: {}, generatedTokens: 0 };
  private readonly log: (line: string) => void;

  constructor(private readonly o: SchedulerOptions) {
    this.log = o.log ?? (() => {});
    this.family = rolloutFamily(o.spec);
    o.node.on('result', (from, m) => this.onResult(from, m.h, m.p!));
    o.node.on('jobFailed', (from, m) => this.onFailed(from, m.h));
    o.node.onLeave((id) => this.onLeave(id));
    o.node.onJoin(() => this.pump());
    o.node.onLifecycle((id, now) => this.onLifecycle(id, now));
  }

  /** Rollout members now connected and not frozen. */
  rolloutMembers(): string[] {
    return [...this.o.node.members.values()].filter((m) => m.role === 'rollout' && m.lifecycle !== 'frozen').map((m) => m.id);
  }

  private frozen(id: string): boolean {
    return this.o.node.members.get(id)?.lifecycle === 'frozen';
  }

  /** Newer weights for every member (older or equal versions are ignored). */
  publish(p: PackedWeights): void {
    if (this.latest && p.version <= this.latest.version) return;
    checkTableOrder(this.o.spec.model, p);
    this.latest = p;
    for (const w of this.workers.values()) if (w.busyWith === null && !this.frozen(w.id)) void this.sendWeights(w); // a frozen tab would only queue them
    void this.localActor?.then((a) => a.setWeights(p));
  }

  get latestVersion(): number {
    return this.latest?.version ?? -1;
  }

  /** Plays one coordinator job on the swarm; resolves with the whole batch in task order. */
  run(job: RolloutJob): Promise<RolloutResult> {
    const members = Math.max(1, this.rolloutMembers().length);
    const n = Math.min(job.tasks, members);
    const parts: Promise<RolloutResult>[] = [];
    let offset = 0;
    for (let i = 0; i < n; i++) {
      const tasks = Math.floor(job.tasks / n) + (i < job.tasks % n ? 1 : 0);
      const firstTask = job.firstTask + offset;
      const at = offset;
      parts.push(new Promise<RolloutResult>((resolve, reject) => {
        this.queue.push({ id: this.nextChunk++, slot: job.slot, firstTask, tasks, seed: mixSeeds(job.seed, firstTask), offset: at, resolve, reject, cancelled: false });
      }));
      offset += tasks;
    }
    this.queue.sort((a, b) => a.slot - b.slot || a.firstTask - b.firstTask);
    this.pump();
    return Promise.all(parts).then((rs) => merge(job.slot, rs));
  }

  /** Cancels everything not yet answered (the coordinator gave up on its jobs, or the run ended). */
  cancelAll(reason: string): void {
    for (const c of this.queue.splice(0)) c.reject(new Error(reason));
    for (const [id, f] of this.inFlight) {
      if (f.timer) clearTimeout(f.timer);
      f.chunk.cancelled = true;
      f.chunk.reject(new Error(reason));
      this.inFlight.delete(id);
    }
  }

  private worker(id: string): Worker {
    let w = this.workers.get(id);
    if (!w) this.workers.set(id, (w = { id, busyWith: null, sentVersion: -1 }));
    return w;
  }

  /** Hands queued chunks to idle members (or the local actor when there are none). */
  private pump(): void {
    if (this.closed || !this.latest) return;
    const members = this.rolloutMembers();
    for (const id of members) {
      if (this.queue.length === 0) return;
      const w = this.worker(id);
      if (w.busyWith !== null) continue;
      void this.assign(w, this.queue.shift()!);
    }
    if (members.length === 0 && this.o.local && !this.localBusy && this.queue.length > 0) void this.playLocally(this.queue.shift()!);
  }

  private async sendWeights(w: Worker): Promise<void> {
    const p = this.latest;
    if (!p || w.sentVersion >= p.version) return;
    w.sentVersion = p.version;
    await this.o.node.say(w.id, { h: { t: 'weights', version: p.version, stage: this.o.stage, floats: p.data.length }, p: floatBytes(p.data) })
      .catch((e: unknown) => this.log(`weights to ${w.id} failed: ${(e as Error).message}`));
  }

  private async assign(w: Worker, chunk: Chunk): Promise<void> {
    w.busyWith = chunk.id;
    const deadline = this.o.chunkDeadlineMs ?? 120_000;
    const timer = setTimeout(() => this.expire(chunk.id), deadline);
    this.inFlight.set(chunk.id, { chunk, worker: w.id, timer, minVersion: this.latest!.version });
    this.stats.chunksSent++;
    try {
      await this.sendWeights(w);
      const h: HeaderOf<'job'> = { t: 'job', id: chunk.id, stage: this.o.stage, slot: chunk.slot, firstTask: chunk.firstTask, tasks: chunk.tasks, seed: chunk.seed, minVersion: this.latest!.version };
      await this.o.node.say(w.id, { h });
    } catch (e) {
      this.log(`job ${chunk.id} to ${w.id} could not be sent: ${(e as Error).message}`);
      this.requeue(chunk.id);
      w.busyWith = null;
    }
  }

  /** A chunk past its deadline: someone else plays it; the slow member stays busy until it answers. */
  private expire(chunkId: number): void {
    const f = this.inFlight.get(chunkId);
    if (!f) return;
    this.log(`chunk ${chunkId} (slot ${f.chunk.slot}) on ${f.worker} passed its deadline: re-assigned`);
    this.requeue(chunkId);
  }

  private requeue(chunkId: number): void {
    const f = this.inFlight.get(chunkId);
    if (!f) return;
    if (f.timer) clearTimeout(f.timer);
    this.inFlight.delete(chunkId);
    if (f.chunk.cancelled) return;
    this.stats.reassigned++;
    // A fresh job id: members ignore a job id they have seen, and the same member may get it again (stale result, rejoin).
    f.chunk.id = this.nextChunk++;
    this.queue.unshift(f.chunk);
    this.queue.sort((a, b) => a.slot - b.slot || a.firstTask - b.firstTask);
    this.pump();
  }

  /** A tab froze: its chunk goes to others now (its late answer is ignored); back: it may work again. */
  private onLifecycle(id: string, now: string): void {
    const w = this.workers.get(id);
    if (now === 'frozen' && w?.busyWith != null && this.inFlight.get(w.busyWith)?.worker === id) {
      this.log(`${id} froze while playing chunk ${w.busyWith}: re-assigned`);
      this.stats.frozenReassigned++;
      this.requeue(w.busyWith);
    }
    this.pump();
  }

  private onLeave(id: string): void {
    const w = this.workers.get(id);
    this.workers.delete(id);
    if (w?.busyWith != null) this.requeue(w.busyWith);
    this.pump();
  }

  private onResult(from: string, h: HeaderOf<'result'>, payload: Uint8Array): void {
    const w = this.workers.get(from);
    const f = this.inFlight.get(h.id);
    if (w && w.busyWith === h.id) w.busyWith = null; // answered: free again, even when the answer is late
    if (!f || f.worker !== from) {
      this.stats.lateOrDuplicateResults++;
      this.log(`ignored a result for chunk ${h.id} from ${from}: not (or no longer) its chunk`);
      return this.pump();
    }
    const { chunk } = f;
    if (h.policyVersion < f.minVersion) {
      this.stats.staleResults++;
      this.log(`rejected ${from}'s result for chunk ${h.id}: played with weights v${h.policyVersion}, the chunk asked for ≥ v${f.minVersion}; re-queued`);
      this.requeue(h.id);
      return this.pump();
    }
    try {
      if (h.slot !== chunk.slot) throw new Error(`result for chunk ${h.id} says slot ${h.slot}, the chunk is slot ${chunk.slot}`);
      const trajectories = decodeTrajectories(payload, {
        vocabSize: this.o.spec.model.vocabSize, maxTotalTokens: this.o.spec.rollout.maxTotalTokens, maxTurns: this.o.spec.rollout.maxTurns,
        groupSize: this.o.spec.rollout.groupSize, taskIds: jobTaskIds(this.family, this.o.spec.taskSeed, chunk.firstTask, chunk.tasks),
        policyVersion: h.policyVersion, latestVersion: this.latestVersion,
      });
      if (f.timer) clearTimeout(f.timer);
      this.inFlight.delete(h.id);
      this.stats.chunksDone++;
      this.stats.trajectoriesBy[from] = (this.stats.trajectoriesBy[from] ?? 0) + trajectories.length;
      this.stats.generatedTokens += generatedTokens(trajectories); // counted from what arrived, not from what the member says
      chunk.resolve({ slot: chunk.slot, policyVersion: h.policyVersion, trajectories, seconds: h.seconds, generatedTokens: h.generatedTokens });
    } catch (e) {
      this.stats.rejectedResults++;
      this.requeue(h.id);
      this.o.node.drop(from, `sent an invalid result: ${(e as Error).message}`);
    }
    this.pump();
  }

  private onFailed(from: string, h: HeaderOf<'jobFailed'>): void {
    const w = this.workers.get(from);
    if (w && w.busyWith === h.id) w.busyWith = null;
    const f = this.inFlight.get(h.id);
    if (f && f.worker === from) {
      this.stats.failedChunks++;
      this.log(`${from} could not play chunk ${h.id}: ${h.reason}`);
      this.requeue(h.id);
    }
    this.pump();
  }

  private async playLocally(chunk: Chunk): Promise<void> {
    this.localBusy = true;
    try {
      this.localActor ??= this.o.local!().then(async (a) => (this.latest && (await a.setWeights(this.latest)), a));
      const actor = await this.localActor;
      const r = await actor.rollout({ slot: chunk.slot, firstTask: chunk.firstTask, tasks: chunk.tasks, seed: chunk.seed });
      this.stats.localChunks++;
      this.stats.chunksDone++;
      this.stats.trajectoriesBy.local = (this.stats.trajectoriesBy.local ?? 0) + r.trajectories.length;
      this.stats.generatedTokens += r.generatedTokens;
      chunk.resolve(r);
    } catch (e) {
      this.localActor = null;
      chunk.reject(e instanceof Error ? e : new Error(String(e)));
    } finally {
      this.localBusy = false;
      this.pump();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cancelAll('the run ended');
    const local = this.localActor;
    this.localActor = null;
    await local?.then((a) => a.terminate()).catch(() => {});
  }
}

/** The chunks of one job as one batch: trajectories in task order, groups renumbered, the oldest version. */
function merge(slot: number, parts: RolloutResult[]): RolloutResult {
  const trajectories: Trajectory[] = [];
  let groups = 0;
  for (const r of parts) {
    let most = -1;
    for (const t of r.trajectories) {
      trajectories.push({ ...t, group: t.group + groups });
      most = Math.max(most, t.group);
    }
    groups += most + 1;
  }
  return {
    slot, trajectories,
    policyVersion: Math.min(...parts.map((r) => r.policyVersion)),
    seconds: Math.max(...parts.map((r) => r.seconds)),
    generatedTokens: parts.reduce((a, r) => a + r.generatedTokens, 0),
  };
}
