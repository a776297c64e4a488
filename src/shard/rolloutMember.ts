// A member that plays rollout jobs for the leader: it keeps the newest weights each leader sent,
// runs one job at a time on its own rollout actor (its own GPU device: a Web Worker in the page, the
// actor class in Node tests) and sends the trajectories back. Weights are keyed by the leader that
// sent them: after a failover the new leader's versions restart from its checkpoint, and they
// replace the old leader's even when their numbers are lower. A repeated version from the same
// leader is ignored (logged), never loaded twice; a non-finite weight drops the sender.
import type { RolloutActorSpec } from '../train/rl/async/actors';
import type { RolloutHandle } from '../train/rl/async/handles';
import type { PackedWeights } from '../train/rl/async/weights';
import { finiteFloats, type HeaderOf } from './protocol';
import { weightsFromFloats } from './swarmSpec';
import type { SwarmNode } from './swarmNode';
import { encodeTrajectories } from './trajectoryWire';

export interface RolloutMemberOptions {
  node: SwarmNode;
  /** The rollout spec of a GRPO stage (swarmSpec.ts, from the run's config). */
  specFor: (stage: number) => RolloutActorSpec;
  /** A fresh rollout actor holding `weights` (page: a rollout worker with its own device). */
  makeActor: (spec: RolloutActorSpec, weights: PackedWeights) => Promise<RolloutHandle>;
  /** How long a job waits for weights ≥ its minVersion before it runs with what it has (ms). */
  weightsWaitMs?: number;
  log?: (line: string) => void;
}

interface HeldWeights {
  leader: string;
  stage: number;
  weights: PackedWeights;
}

export class RolloutMember {
  private held: HeldWeights | null = null;
  private actor: { handle: RolloutHandle; stage: number; leader: string; version: number } | null = null;
  private readonly queue: { from: string; job: HeaderOf<'job'> }[] = [];
  private readonly seenJobs = new Set<string>();
  private running = false;
  private weightsArrived: () => void = () => {};
  /** Jobs finished and trajectories played, for the heartbeat's rollouts/s. */
  private readonly recent: { at: number; trajectories: number; seconds: number }[] = [];
  jobsDone = 0;
  duplicateWeights = 0;
  private readonly log: (line: string) => void;

  constructor(private readonly o: RolloutMemberOptions) {
    this.log = o.log ?? (() => {});
    o.node.on('weights', (from, m) => this.onWeights(from, m.h, m.p!));
    o.node.on('job', (from, m) => this.onJob(from, m.h));
  }

  /** Newest weights version held (−1: none). */
  get version(): number {
    return this.held?.weights.version ?? -1;
  }

  get busy(): boolean {
    return this.running;
  }

  /** Trajectories per second over the last few jobs (their own play time). */
  get rolloutsPerSec(): number {
    const n = this.recent.reduce((a, r) => a + r.trajectories, 0);
    const s = this.recent.reduce((a, r) => a + r.seconds, 0);
    return s > 0 ? n / s : 0;
  }

  private onWeights(from: string, h: HeaderOf<'weights'>, payload: Uint8Array): void {
    const sameLeader = this.held?.leader === from;
    if (sameLeader && h.version <= this.held!.weights.version) {
      this.duplicateWeights++;
      this.log(`ignored weights version ${h.version} from ${from}: already hold version ${this.held!.weights.version}`);
      return;
    }
    let data: Float32Array;
    try {
      data = finiteFloats(payload, `weights version ${h.version}`).slice(); // own copy: the payload's buffer is shared with the reassembler's
    } catch (e) {
      return this.o.node.drop(from, (e as Error).message);
    }
    const spec = this.o.specFor(h.stage);
    this.held = { leader: from, stage: h.stage, weights: weightsFromFloats(spec.model, h.version, data) };
    this.weightsArrived();
  }

  private onJob(from: string, job: HeaderOf<'job'>): void {
    const key = `${from}#${job.id}`;
    if (this.seenJobs.has(key)) return this.log(`ignored job ${job.id} from ${from}: already received`);
    this.seenJobs.add(key);
    this.queue.push({ from, job });
    if (!this.running) void this.drain();
  }

  private async waitForWeights(from: string, minVersion: number): Promise<void> {
    const deadline = performance.now() + (this.o.weightsWaitMs ?? 30_000);
    while (!(this.held?.leader === from && this.held.weights.version >= minVersion) && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 250);
        this.weightsArrived = () => (clearTimeout(timer), resolve());
      });
    }
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) await this.play(next.from, next.job);
    } finally {
      this.running = false;
    }
  }

  private async play(from: string, job: HeaderOf<'job'>): Promise<void> {
    const t0 = performance.now();
    try {
      await this.waitForWeights(from, job.minVersion);
      const held = this.held;
      if (!held || held.leader !== from) throw new Error(`no weights from ${from} arrived within the wait`);
      const a = await this.actorFor(from, job.stage, held.weights);
      const r = await a.rollout({ slot: job.slot, firstTask: job.firstTask, tasks: job.tasks, seed: job.seed });
      const seconds = (performance.now() - t0) / 1000;
      this.recent.push({ at: performance.now(), trajectories: r.trajectories.length, seconds });
      if (this.recent.length > 8) this.recent.shift();
      this.jobsDone++;
      await this.o.node.say(from, {
        h: { t: 'result', id: job.id, slot: job.slot, policyVersion: r.policyVersion, seconds: r.seconds, generatedTokens: r.generatedTokens },
        p: encodeTrajectories(r.trajectories),
      });
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      this.log(`job ${job.id} (slot ${job.slot}) failed: ${reason}`);
      await this.o.node.say(from, { h: { t: 'jobFailed', id: job.id, reason: reason.slice(0, 2000) } }).catch(() => {});
      await this.dropActor(); // a failed actor (lost device, crashed worker) is not reused
    }
  }

  /** The actor for this leader and stage, with the newest held weights queued. */
  private async actorFor(leader: string, stage: number, weights: PackedWeights): Promise<RolloutHandle> {
    if (this.actor && (this.actor.stage !== stage || this.actor.leader !== leader)) await this.dropActor();
    if (!this.actor) {
      const handle = await this.o.makeActor(this.o.specFor(stage), weights);
      this.actor = { handle, stage, leader, version: weights.version };
    } else if (weights.version > this.actor.version) {
      await this.actor.handle.setWeights(weights);
      this.actor.version = weights.version;
    }
    return this.actor.handle;
  }

  private async dropActor(): Promise<void> {
    const a = this.actor;
    this.actor = null;
    await a?.handle.terminate().catch(() => {});
  }

  async close(): Promise<void> {
    this.queue.length = 0;
    await this.dropActor();
  }
}
