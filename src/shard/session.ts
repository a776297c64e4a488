// One member's part in a swarm run, whatever carries it (tabs or libp2p):
//   - every member is a rollout member (RolloutMember) until it leads;
//   - tabs elect the leader with the Web Locks API: the holder of `tabforge-swarm-leader/<run>`
//     leads; when its tab closes the browser hands the lock to the next tab, which resumes the run
//     from the newest complete checkpoint in IndexedDB and tells everyone ("took over from …");
//   - across machines the link's creator leads (its checkpoints are on its own disk, so no other
//     machine can take over; members are told the run stopped when it leaves).
// The leader runs the PipelineConfig with the runner (SFT and evaluations on its own device, GRPO
// through the async coordinator with the swarm's rollout actors), checkpointing every step. What a
// session is given and what it shows the page: sessionTypes.ts.
import type { GpuRuntime } from '../gpu/runtime';
import { type ModelConfig, PRESETS } from '../model/config';
import type { PipelineConfig } from '../pipeline/config';
import { type PipelineResumeFound, resumePipeline } from '../pipeline/resume';
import { runPipeline } from '../pipeline/runner';
import { RolloutActor, type RolloutActorSpec } from '../train/rl/async/actors';
import { inProcessPool, type RolloutHandle } from '../train/rl/async/handles';
import type { PackedWeights } from '../train/rl/async/weights';
import type { RlStepRecord } from '../train/rl/rlMetrics';
import { payloadLimits, swarmRolloutSpec } from './swarmSpec';
import { RolloutMember } from './rolloutMember';
import { RolloutScheduler } from './rolloutScheduler';
import { type MemberStatus, SwarmNode } from './swarmNode';
import { swarmPool } from './swarmPool';
import type { Lifecycle } from './protocol';
import { DataParallelRun, dataParallelProblem, type DataParallelStart, rankRolloutsPerSec, weightsFingerprint } from './dataParallelRun';
import type { Collective } from './collective';
import { gradientShard, type GradientShardStats } from './dataParallel';
import { shareCheckpoint } from './checkpointShare';
import type { GradientShard } from '../train/optimizerState';
import type { SessionOptions, SessionRole, SwarmView } from './sessionTypes';

export type { LockManagerLike, SessionOptions, SessionRole, SwarmView } from './sessionTypes';

export class SwarmSession {
  readonly node: SwarmNode;
  readonly member: RolloutMember;
  private readonly model: ModelConfig;
  private readonly cfg: PipelineConfig;
  private role: SessionRole = 'rollout';
  private leaderId: string | null = null;
  /** A leader another took over from while it was still listed (its leave is still news). */
  private formerLeader: string | null = null;
  private scheduler: RolloutScheduler | null = null;
  private readonly trajectoriesBy: Record<string, number> = {};
  private readonly notes: string[] = [];
  private state: SwarmView['state'] = 'joining';
  private error: string | null = null;
  private grpoStage = -1;
  private step = 0;
  private steps = 0;
  private version = -1;
  private rt: Promise<GpuRuntime> | null = null;
  private readonly stopElection = new AbortController();
  private readonly listeners: ((v: SwarmView) => void)[] = [];
  readonly records: RlStepRecord[] = [];
  /** Data parallel, rank 0: the checkpoint every rank resumes from (loaded before the ranks are called). */
  private dpResume: PipelineResumeFound | null = null;
  /** Task ids trained at each GRPO step this member led (the ledger tests read: nothing lost or counted twice). */
  readonly trained = new Map<number, string[]>();
  private abandoned = false;
  private readonly log: (line: string) => void;
  /** Resolves when this member's leadership ends (run done or failed). */
  leading: Promise<void> | null = null;
  /** Data-parallel runs (link.dp): the rank agreement; null for rollout-tab runs. */
  readonly dp: DataParallelRun | null;
  /** Data-parallel runs: this rank's training, once started (resolves when it ends). */
  training: Promise<void> | null = null;
  /** SFT losses of every step this member trained (data-parallel ranks; the e2e compares them). */
  readonly sftLosses: number[] = [];
  /** Data parallel: SHA-256 of the final weights (float32, parameter-table order), and the weights when small (≤ 4 M parameters, for drivers). */
  finalWeights: { sha256: string; values: Float32Array | null } | null = null;
  /** Data parallel: this rank's gradient exchange so far (null: no shard — rollout runs, or world 1). */
  gradientExchange: GradientShardStats | null = null;

  constructor(private readonly o: SessionOptions) {
    this.log = o.log ?? (() => {});
    this.cfg = o.link.config;
    this.model = o.link.model ?? PRESETS[this.cfg.preset];
    this.node = new SwarmNode({
      transport: o.transport, runId: o.link.run, secret: o.link.secret, limits: payloadLimits(this.cfg, this.model),
      status: () => this.status(), heartbeatMs: o.heartbeatMs, silenceMs: o.silenceMs, log: (l) => this.log(l),
    });
    this.member = new RolloutMember({
      node: this.node,
      specFor: (s) => swarmRolloutSpec(this.cfg, s, this.model),
      makeActor: o.makeActor ?? (async (spec, w) => this.inProcessActor(spec, w)),
      log: (l) => this.log(l),
    });
    this.node.onJoin(() => this.changed());
    this.node.onLeave((id, why) => {
      if (id === this.leaderId) {
        this.leaderId = null;
        this.note(o.locks ? `the leader ${id} left (${why}); the next tab in line takes over from the newest checkpoint` : `the leader ${id} left (${why}): this run cannot go on without it (its checkpoints are on its own machine)`);
      } else if (id === this.formerLeader) this.note(`the leader ${id} left (${why}); ${this.leaderId} had taken over already`); // the lock moved before its silence ran out
      if (id === this.formerLeader) this.formerLeader = null;
      this.changed();
    });
    this.node.onRefused((reason) => {
      this.state = 'refused';
      this.error = reason;
      this.note(`refused: ${reason}`);
    });
    this.node.on('leader', (from, m) => {
      if (this.leaderId && this.leaderId !== from && this.node.members.has(this.leaderId)) this.formerLeader = this.leaderId;
      this.leaderId = from;
      this.note(m.h.resumedFrom ? `${from} took over as leader from checkpoint ${m.h.resumedFrom} (step ${m.h.step})` : `${from} leads the run`);
    });
    this.dp = o.link.dp ? new DataParallelRun({ node: this.node, cfg: this.cfg, model: this.model, world: o.link.dp.world, note: (l) => this.note(l), timeoutMs: o.collectiveTimeoutMs, acrossMachines: !o.locks }) : null;
    this.dp?.onStarted((s) => {
      this.training = this.trainDataParallel(s);
    });
    this.node.on('done', (from, m) => {
      this.state = 'done';
      this.note(`${from}: ${m.h.text}`);
      this.stopElection.abort();
    });
  }

  private async inProcessActor(spec: RolloutActorSpec, w: PackedWeights): Promise<RolloutHandle> {
    const actor = await RolloutActor.create(await this.runtime(), spec, w);
    return { setWeights: async (p) => actor.setWeights(p), rollout: (job) => actor.rollout(job), terminate: async () => actor.destroy() };
  }

  private runtime(): Promise<GpuRuntime> {
    this.rt ??= this.o.runtime();
    return this.rt;
  }

  private status(): MemberStatus {
    const leading = this.role === 'leader';
    return {
      role: this.role === 'rank' ? 'rank' : leading ? 'leader' : this.dp ? 'candidate' : 'rollout', version: leading || this.role === 'rank' ? this.version : this.member.version,
      rolloutsPerSec: this.role === 'rank' ? rankRolloutsPerSec(this.records) : this.member.rolloutsPerSec, busy: leading ? this.state === 'running' : this.member.busy,
      visible: this.o.visible?.() ?? true, lifecycle: this.o.lifecycle?.() ?? 'active', stage: leading ? this.grpoStage : -1, step: this.step,
    };
  }

  view(): SwarmView {
    const members = [...this.node.members.values()];
    for (const m of members) if (m.role === 'leader' && this.role !== 'leader') this.leaderId ??= m.id;
    return {
      runId: this.o.link.run, selfId: this.node.selfId, role: this.role, leaderId: this.role === 'leader' ? this.node.selfId : this.leaderId,
      members, self: this.status(), step: this.step, steps: this.steps, trajectoriesBy: { ...this.trajectoriesBy },
      scheduler: this.scheduler ? { ...this.scheduler.stats, trajectoriesBy: { ...this.scheduler.stats.trajectoriesBy } } : null,
      notes: [...this.notes], state: this.state, error: this.error,
      dp: this.dp ? { world: this.o.link.dp!.world, rank: this.dp.joined?.rank ?? null, ranks: [...(this.dp.joined?.ranks ?? [])] } : null,
    };
  }

  onChange(f: (v: SwarmView) => void): void {
    this.listeners.push(f);
  }

  private changed(): void {
    const v = this.view();
    for (const f of this.listeners) f(v);
  }

  /** Adds a line to what the page shows about the run. */
  note(line: string): void {
    this.notes.push(line);
    if (this.notes.length > 50) this.notes.shift();
    this.log(line);
    this.changed();
  }

  /** The page's lifecycle changed (hidden, frozen, back): tell everyone now, before a freeze stops this tab. */
  lifecycleChanged(now: Lifecycle): void {
    void this.node.beat();
    if (now !== 'frozen') this.changed(); // a frozen tab draws nothing
  }

  /** Joins the run: announces itself, plays jobs, and (tabs) waits in line to lead. */
  async start(): Promise<void> {
    // every member checks the split, not only rank 0: a joiner would otherwise wait for a run that never starts
    const problem = this.o.link.dp ? dataParallelProblem(this.cfg, this.o.link.dp.world, this.o.locks ? 'tab' : 'machine') : null;
    if (problem) {
      this.fail(new Error(`this run cannot train data parallel: ${problem}`));
      this.changed();
      return;
    }
    await this.node.start();
    if (this.o.locks) {
      const name = `tabforge-swarm-leader/${this.o.link.run}`;
      void this.o.locks.request(name, { signal: this.stopElection.signal }, () => this.lead()).catch((e: unknown) => {
        if ((e as Error).name !== 'AbortError') this.fail(e);
      });
    } else if (this.o.lead) {
      void this.lead();
    }
    if (this.state === 'joining') this.state = 'running';
    this.changed();
  }

  private fail(e: unknown): void {
    this.state = 'failed';
    this.error = e instanceof Error ? e.message : String(e);
    this.note(`run failed: ${this.error}`);
  }

  /** Becomes the leader, unless the run has finished already (then says so and returns false). */
  private takeLead(finishedNote: string): boolean {
    if (this.o.finished?.get()) {
      this.state = 'done';
      this.note(finishedNote);
      return false;
    }
    this.role = 'leader';
    this.leaderId = this.node.selfId;
    return true;
  }

  /** Leads the run until it ends: resumes from the newest checkpoint when there is one. */
  private lead(): Promise<void> {
    if (this.dp) return (this.leading = this.coordinateDataParallel());
    this.leading = (async () => {
      if (this.state === 'done') return;
      if (!this.takeLead('this run has finished already (another tab led it to its end)')) return;
      try {
        const rt = await this.runtime();
        const store = await this.o.store();
        const found = await resumePipeline(rt, store, this.cfg, this.model);
        for (const n of found?.notes ?? []) this.note(n);
        if (found) this.note(`this tab took over as leader: resuming from checkpoint ${found.id} (stage ${found.stage}, step ${found.step})`);
        else this.note('this member leads the run');
        await this.node.say(null, { h: { t: 'leader', resumedFrom: found?.id ?? null, step: found?.step ?? 0, stage: found?.stage ?? -1 } });
        this.state = 'running';
        const result = await runPipeline(rt, this.cfg, {
          log: (l) => this.log(l),
          onStage: (i, s) => {
            this.grpoStage = s.kind === 'grpo' ? i : -1;
            this.steps = s.kind === 'grpo' || s.kind === 'sft' ? s.steps : 0;
            this.step = found && found.stage === i ? found.step : 0; // a resumed stage continues after its checkpoint
            this.changed();
          },
          onSft: (_i, m) => {
            this.step = m.step;
          },
          onRlStep: (_i, r) => {
            if (this.abandoned) throw new Error('this member was abandoned');
            this.records.push(r);
            this.step = r.step;
            this.version = r.version;
            this.changed();
          },
        }, {
          model: this.model, initial: found?.point.initial, resume: found?.point,
          checkpoints: { store, every: this.o.checkpointEvery ?? 1, keepLast: 2 },
          rolloutPool: ({ stage, spec, trainer, initial }) => {
            const inner = inProcessPool({ rt, spec, trainer, initial });
            const scheduler = new RolloutScheduler({
              node: this.node, spec, stage, chunkDeadlineMs: this.o.chunkDeadlineMs, log: (l) => this.log(l),
              local: async () => this.inProcessActor(spec, await inner.trainer.snapshot()),
            });
            this.scheduler = scheduler;
            return swarmPool({ ...inner.trainer, train: async (trajs, lr) => {
              const out = await inner.trainer.train(trajs, lr);
              this.trained.set(this.step + 1, trajs.map((t) => t.taskId));
              for (const [id, n] of Object.entries(scheduler.stats.trajectoriesBy)) this.trajectoriesBy[id] = n;
              return out;
            } }, scheduler, () => inner.close());
          },
        });
        result.weights.destroy();
        this.state = 'done';
        this.o.finished?.set();
        const text = `run finished: ${result.grpo.reduce((a, g) => a + g.history.length, 0)} GRPO steps${result.evals.length ? `; ${result.evals.map((e) => e.headline).join('; ')}` : ''}`;
        this.note(text);
        await this.node.say(null, { h: { t: 'done', text: text.slice(0, 2000) } });
      } catch (e) {
        this.fail(e);
      }
    })();
    return this.leading;
  }

  /**
   * Data parallel, the tab holding the run's lock (across machines: the link's leader): rank 0. A run
   * that stopped before resumes from its newest complete checkpoint (rank 0
   * names it in dpStart and every rank loads that one from the run's store: the same weights,
   * optimizer moments, KL reference and step on every rank). Then calls for the other ranks.
   */
  private async coordinateDataParallel(): Promise<void> {
    if (this.dp!.joined || this.state === 'done' || this.state === 'failed' || this.state === 'refused') return; // a rank already (the lock came when rank 0 left), or over
    if (!this.takeLead('this data-parallel run has finished already: start a new run from the Swarm panel')) return;
    try {
      const store = await this.o.store(); // (a config that cannot split was refused in start())
      const stoppedAt = (await store.list()).complete;
      if (stoppedAt.length) {
        const found = await resumePipeline(await this.runtime(), store, this.cfg, this.model);
        for (const n of found?.notes ?? []) this.note(n);
        // across machines each rank's IndexedDB is on its own machine: rank 0 sends the checkpoint first (checkpointShare.ts)
        if (found) this.note(`this data-parallel run stopped before: every rank resumes from checkpoint ${found.id} (stage ${found.stage}, step ${found.step})${this.o.locks ? '' : ', which this machine sends to the others first'}`);
        this.dpResume = found;
      }
      this.changed();
      await this.dp!.coordinate(this.stopElection.signal, this.dpResume?.id ?? null);
      await this.training;
    } catch (e) {
      this.fail(e);
    }
  }

  /**
   * One rank's run: the pipeline with this rank's gradient shard (none at world 1: the plain
   * pipeline). Rank 0 checkpoints (one IndexedDB per run, shared by the tabs); when a rank leaves or
   * fails every other rank's step fails with its name, the run stops, rank 0 says which checkpoints
   * it keeps, and this tab says bye so no rank waits for it.
   */
  private async trainDataParallel(s: DataParallelStart): Promise<void> {
    this.role = 'rank';
    this.leaderId = s.ranks[0];
    this.state = 'running';
    this.changed();
    const store = s.rank === 0 ? await this.o.store() : null;
    try {
      const rt = await this.runtime();
      if (s.checkpointShare && s.resumeFrom !== null) {
        const sent = await shareCheckpoint(s.checkpointShare, await this.o.store(), s.resumeFrom);
        this.note(s.rank === 0 ? `sent checkpoint ${s.resumeFrom} to the other ${s.ranks.length - 1} machine(s): ${sent.chunks} chunks, ${sent.bytes} bytes`
          : `received rank 0's checkpoint ${s.resumeFrom} into this machine's store: ${sent.chunks} chunks, ${sent.bytes} bytes, every checksum right`);
      }
      // rank 0 loaded its checkpoint before calling for ranks; the others load the one it named (across machines: their copy)
      const found = s.resumeFrom === null ? null
        : this.dpResume?.id === s.resumeFrom ? this.dpResume
        : await resumePipeline(rt, await this.o.store(), this.cfg, this.model, s.resumeFrom);
      if (found && s.rank !== 0) this.note(`resuming from rank 0's checkpoint ${found.id} (stage ${found.stage}, step ${found.step})`);
      // across machines the copy has done its job once loaded (rank 0 sends its newest again at any later resume)
      if (found && s.checkpointShare && s.rank !== 0) await (await this.o.store()).remove(found.id);
      const result = await runPipeline(rt, this.cfg, {
        log: (l) => this.log(l),
        onStage: (i, st) => {
          this.steps = st.kind === 'grpo' || st.kind === 'sft' ? st.steps : 0;
          this.step = found && found.stage === i ? found.step : 0; // a resumed stage continues after its checkpoint
          this.changed();
        },
        onSft: (_i, m) => {
          this.sftLosses.push(m.loss);
          this.step = m.step;
        },
        onRlStep: (_i, r) => {
          this.records.push(r);
          this.step = r.step;
          this.version = r.version;
          this.trajectoriesBy.local = (this.trajectoriesBy.local ?? 0) + (r.rank?.episodes ?? 0); // the episodes this rank played
        },
      }, {
        model: this.model, shard: s.collective ? this.shardFor(rt, s.collective) : undefined, initial: found?.point.initial, resume: found?.point,
        checkpoints: store ? { store, every: this.o.checkpointEvery ?? 1, keepLast: 2 } : undefined,
      });
      const values = await result.weights.download();
      result.weights.destroy();
      this.finalWeights = await weightsFingerprint(values);
      this.state = 'done';
      this.o.finished?.set();
      this.note(`run finished on rank ${s.rank} of ${s.ranks.length}: ${this.sftLosses.length} SFT and ${this.records.length} GRPO steps; final weights sha256 ${this.finalWeights.sha256.slice(0, 16)}… (the same on every rank)`);
    } catch (e) {
      // every rank of a browser sees rank 0's IndexedDB; listed before 'failed' shows (the page reads both at once).
      // Across machines only rank 0 has the run's checkpoints (on its own machine).
      const overMachines = !this.o.locks;
      const kept = overMachines && s.rank !== 0 ? null : await this.o.store().then((b) => b.list()).then((l) => l.complete, () => null);
      this.fail(e);
      if (overMachines && s.rank !== 0) this.note(`the run stopped; its checkpoints are rank 0's, on rank 0's machine`);
      else if (overMachines && kept) this.note(kept.length ? `the run stopped; its checkpoints on this machine are intact: ${kept.join(', ')} (reopen the run's link on this machine, then on ${s.ranks.length - 1} other(s), to resume from the newest)` : 'the run stopped before its first checkpoint');
      else if (kept) this.note(kept.length ? `the run stopped; rank 0's checkpoints are intact: ${kept.join(', ')} (open the run's link in ${s.ranks.length} tabs again to resume from the newest)` : 'the run stopped before its first checkpoint');
      await this.node.stop(`its data-parallel run stopped: ${this.error}`.slice(0, 500));
    }
  }

  private shardFor(rt: GpuRuntime, collective: Collective): GradientShard {
    const shard = gradientShard(rt, collective);
    this.gradientExchange = shard.stats;
    return shard;
  }

  /** Stops as a closed tab would (tests): no bye, nothing sent or received, the run stops at its next step. */
  abandon(silence: () => void): void {
    this.abandoned = true;
    this.stopElection.abort();
    silence();
  }

  /** Leaves the run: says bye, stops waiting to lead, releases the actor. */
  async stop(reason = 'left the run'): Promise<void> {
    this.stopElection.abort();
    this.scheduler?.cancelAll(reason);
    await this.member.close();
    await this.node.stop(reason);
  }
}
