// Rollout actors on other members (memory transport, CPU: scripted actors and a trainer that only
// counts): the async coordinator runs unchanged over the swarm pool; members that join, vanish, stall
// or lie are worked around, and every task of every step is trained exactly once.
import { describe, expect, it } from 'vitest';
import { initialWeights } from '../model/weights';
import { PIPELINE_CONFIG_VERSION, parsePipelineConfig } from '../pipeline/config';
import { grpoLoopConfig } from '../pipeline/loopSettings';
import { runAsyncRl } from '../train/rl/async/coordinator';
import type { TrainerHandle } from '../train/rl/async/handles';
import { packWeights } from '../train/rl/async/weights';
import type { Trajectory } from '../train/rl/trajectory';
import { MICRO_MODEL } from '../train/testing/microModel';
import type { RawMessage } from './framing';
import { MemoryHub, MemoryTransport } from './memoryTransport';
import { RolloutMember } from './rolloutMember';
import { RolloutScheduler } from './rolloutScheduler';
import { swarmPool } from './swarmPool';
import { payloadLimits, swarmRolloutSpec } from './swarmSpec';
import { type MemberStatus, SwarmNode } from './swarmNode';
import { type ScriptedActorOptions, scriptedActor } from './testing/scriptedActor';

const CFG = parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 3, tasks: [{ family: 'function-calling', level: 'route4' }],
  context: { maxTotalTokens: 288, maxNewTokensPerTurn: 12, maxTurns: 1 },
  stages: [{ kind: 'grpo', steps: 6, tasksPerStep: 4, groupSize: 2, lr: 1e-3, staleness: 1 }],
});
const STAGE = 0;
const SPEC = swarmRolloutSpec(CFG, STAGE, MICRO_MODEL);
const LIMITS = payloadLimits(CFG, MICRO_MODEL);
const RUN = 'run-test';
const SECRET = 'secret-test';
const FAST = { heartbeatMs: 40, silenceMs: 400 };

function status(role: MemberStatus['role'], extra: () => Partial<MemberStatus> = () => ({})): () => MemberStatus {
  return () => ({ role, version: -1, rolloutsPerSec: 0, busy: false, visible: true, stage: -1, step: 0, ...extra() });
}

async function member(hub: MemoryHub, id: string, actor: ScriptedActorOptions = {}, secret = SECRET) {
  const node = new SwarmNode({ transport: hub.join(id), runId: RUN, secret, status: status('rollout'), limits: LIMITS, ...FAST });
  const m = new RolloutMember({ node, specFor: (s) => swarmRolloutSpec(CFG, s, MICRO_MODEL), makeActor: async (spec, w) => scriptedActor(spec, w, actor) });
  await node.start();
  return { node, m };
}

/** A memory transport that can be frozen: while frozen, what it sends and receives waits, in order. */
class FreezableTransport extends MemoryTransport {
  frozen = false;
  private readonly held: (() => void)[] = [];

  protected override async post(to: string | null, piece: RawMessage): Promise<void> {
    if (this.frozen) this.held.push(() => void super.post(to, piece));
    else await super.post(to, piece);
  }

  override deliver(from: string, piece: RawMessage): void {
    if (this.frozen) this.held.push(() => super.deliver(from, piece));
    else super.deliver(from, piece);
  }

  thaw(): void {
    this.frozen = false;
    for (const f of this.held.splice(0)) f();
  }
}

/** A trainer that applies nothing but counts versions and records which tasks it trained on. */
function countingTrainer(trained: Trajectory[]): TrainerHandle {
  const base = initialWeights(MICRO_MODEL, 1);
  let version = 0;
  return {
    async train(trajs) {
      trained.push(...trajs);
      version++;
      return { skipped: false, metrics: {}, trainedTokens: 0, processedTokens: 0, episodeTokens: 0, rewards: trajs.map((t) => t.reward.total), keptGroups: trajs.filter((t) => t.sample === 0).map(() => true), version, seconds: 0 };
    },
    snapshot: async () => packWeights(base, version),
    terminate: async () => {},
  };
}

async function leader(hub: MemoryHub, logs: string[], opts: { chunkDeadlineMs?: number } = {}) {
  const node = new SwarmNode({ transport: hub.join('leader'), runId: RUN, secret: SECRET, status: status('leader'), limits: LIMITS, ...FAST, log: (l) => logs.push(l) });
  await node.start();
  const scheduler = new RolloutScheduler({ node, spec: SPEC, stage: STAGE, log: (l) => logs.push(l), ...opts });
  return { node, scheduler };
}

async function waitFor(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const t0 = performance.now();
  while (!ok()) {
    if (performance.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every task of slots 0…steps−1 trained exactly G times (no trajectory lost, none counted twice). */
function expectEachTaskOnce(trained: Trajectory[], steps: number): void {
  const loop = grpoLoopConfig(CFG, CFG.stages[STAGE] as never, STAGE);
  const counts = new Map<string, number>();
  for (const t of trained) counts.set(t.taskId, (counts.get(t.taskId) ?? 0) + 1);
  expect(counts.size).toBe(steps * loop.tasksPerStep);
  for (const [, n] of counts) expect(n).toBe(loop.rollout.groupSize);
}

function asyncConfig(steps = 6) {
  const loop = grpoLoopConfig(CFG, CFG.stages[STAGE] as never, STAGE);
  return { ...loop, steps, staleness: 1, rolloutActors: 2, hangTimeoutMs: 60_000, maxRestarts: 0 };
}

describe('remote rollout actors over the swarm (memory transport)', () => {
  it('two rollout members feed one trainer: every step trained once, both members used', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const { node, scheduler } = await leader(hub, logs);
    const a = await member(hub, 'tab-a', { delayMs: 20 });
    const b = await member(hub, 'tab-b', { delayMs: 20 });
    await waitFor('both members', () => scheduler.rolloutMembers().length === 2);
    const trained: Trajectory[] = [];
    const records = await runAsyncRl(swarmPool(countingTrainer(trained), scheduler, async () => {}), asyncConfig());
    expect(records.map((r) => r.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expectEachTaskOnce(trained, 6);
    expect(scheduler.stats.trajectoriesBy['tab-a']).toBeGreaterThan(0);
    expect(scheduler.stats.trajectoriesBy['tab-b']).toBeGreaterThan(0);
    expect(a.m.jobsDone + b.m.jobsDone).toBe(scheduler.stats.chunksDone);
    for (const r of records) expect(r.stalenessHistogram.length).toBeLessThanOrEqual(2);
    for (const x of [node, a.node, b.node]) await x.stop();
  });

  it('a member that vanishes mid-run: its chunk is re-assigned, nothing lost or counted twice', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const { node, scheduler } = await leader(hub, logs);
    const a = await member(hub, 'tab-a', { delayMs: 30 });
    const b = await member(hub, 'tab-b', { delayMs: 150 });
    await waitFor('both members', () => scheduler.rolloutMembers().length === 2);
    // tab-b vanishes (a closed tab: no bye) while it holds a chunk
    void waitFor('tab-b busy', () => b.m.busy).then(() => hub.vanish('tab-b'), () => {}); // the assertions below say whether it happened
    const trained: Trajectory[] = [];
    const records = await runAsyncRl(swarmPool(countingTrainer(trained), scheduler, async () => {}), asyncConfig());
    expect(records).toHaveLength(6);
    expectEachTaskOnce(trained, 6);
    expect(scheduler.stats.reassigned).toBeGreaterThanOrEqual(1);
    expect(logs.some((l) => /tab-b left \(silent/.test(l))).toBe(true);
    for (const x of [node, a.node]) await x.stop();
  });

  it('a stalled member: its chunk goes elsewhere after the deadline, its late answer is ignored', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const { node, scheduler } = await leader(hub, logs, { chunkDeadlineMs: 200 });
    const a = await member(hub, 'tab-a', { delayMs: 10 });
    const slow = await member(hub, 'tab-slow', { delayMs: 600 }); // heartbeats go on: it is slow, not gone
    await waitFor('both members', () => scheduler.rolloutMembers().length === 2);
    const trained: Trajectory[] = [];
    await runAsyncRl(swarmPool(countingTrainer(trained), scheduler, async () => {}), asyncConfig());
    expectEachTaskOnce(trained, 6);
    await waitFor('the late answer', () => scheduler.stats.lateOrDuplicateResults >= 1, 3000);
    expect(scheduler.stats.reassigned).toBeGreaterThanOrEqual(1);
    expect(logs.some((l) => /passed its deadline: re-assigned/.test(l))).toBe(true);
    for (const x of [node, a.node, slow.node]) await x.stop();
  });

  it('a tab that announces it froze: its chunk is re-assigned at once, it gets nothing while frozen, its late answer is ignored, and it plays again once back', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const { node, scheduler } = await leader(hub, logs); // chunk deadline 120 s: only the announcement can re-assign in time
    const a = await member(hub, 'tab-a', { delayMs: 20 });
    let lifecycle: 'active' | 'frozen' = 'active';
    let thaw = () => {};
    let jobsWhileFrozen = 0;
    let froze = false;
    const fNode = new SwarmNode({ transport: hub.join('tab-f'), runId: RUN, secret: SECRET, status: status('rollout', () => ({ lifecycle })), limits: LIMITS, ...FAST });
    fNode.on('job', () => void (lifecycle === 'frozen' && jobsWhileFrozen++));
    // Its first job freezes the tab mid-play (as Chrome would): the freeze heartbeat goes out, then nothing until thawed.
    const freezer = async (spec: never, w: never) => {
      const inner = scriptedActor(spec, w, { delayMs: 20 });
      return { ...inner, rollout: async (job: never) => {
        const r = await inner.rollout(job);
        if (!froze) {
          froze = true;
          lifecycle = 'frozen';
          await fNode.beat();
          await new Promise<void>((resume) => (thaw = resume));
        }
        return r;
      } };
    };
    const f = new RolloutMember({ node: fNode, specFor: (st) => swarmRolloutSpec(CFG, st, MICRO_MODEL), makeActor: freezer as never });
    await fNode.start();
    await waitFor('both members', () => scheduler.rolloutMembers().length === 2);
    const trained: Trajectory[] = [];
    const run = runAsyncRl(swarmPool(countingTrainer(trained), scheduler, async () => {}), asyncConfig(8));
    await waitFor('the freeze to be seen', () => scheduler.stats.frozenReassigned === 1);
    expect(scheduler.rolloutMembers()).toEqual(['tab-a']);
    await waitFor('steps without it', () => trained.length >= 3 * 8, 10_000); // the run goes on with tab-a alone
    expect(node.members.has('tab-f')).toBe(true); // frozen, not gone: kept past the 400 ms silence window
    lifecycle = 'active';
    await fNode.beat();
    thaw();
    const records = await run;
    expect(records).toHaveLength(8);
    expectEachTaskOnce(trained, 8);
    expect(jobsWhileFrozen).toBe(0);
    await waitFor('the late answer', () => scheduler.stats.lateOrDuplicateResults >= 1, 3000);
    expect(logs.some((l) => /tab-f froze while playing chunk \d+: re-assigned/.test(l))).toBe(true);
    expect(node.banned.size).toBe(0);
    expect(f.jobsDone).toBeGreaterThanOrEqual(1);
    for (const x of [node, a.node, fNode]) await x.stop();
  });

  it('a tab frozen without a word: removed after the silence window, its chunk re-assigned; when it resumes it rejoins and plays, its old answer ignored', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const { node, scheduler } = await leader(hub, logs);
    const a = await member(hub, 'tab-a', { delayMs: 20 });
    // A frozen tab: nothing it sends or receives moves (queued, as a frozen page's tasks are), and its actor stops too.
    const t = new FreezableTransport('tab-z', hub);
    hub.members.set('tab-z', t);
    let thaw = () => {};
    let froze = false;
    const zNode = new SwarmNode({ transport: t, runId: RUN, secret: SECRET, status: status('rollout'), limits: LIMITS, ...FAST });
    const z = new RolloutMember({ node: zNode, specFor: (st) => swarmRolloutSpec(CFG, st, MICRO_MODEL), makeActor: async (spec, w) => {
      const inner = scriptedActor(spec, w, { delayMs: 20 });
      return { ...inner, rollout: async (job) => {
        if (!froze) {
          froze = true;
          t.frozen = true;
          await new Promise<void>((resume) => (thaw = resume));
        }
        return inner.rollout(job);
      } };
    } });
    await zNode.start();
    await waitFor('both members', () => scheduler.rolloutMembers().length === 2);
    const trained: Trajectory[] = [];
    const run = runAsyncRl(swarmPool(countingTrainer(trained), scheduler, async () => {}), asyncConfig(16));
    await waitFor('removed for silence', () => logs.some((l) => /tab-z left \(silent/.test(l)));
    await waitFor('steps without it', () => trained.length >= 4 * 8, 10_000);
    const before = scheduler.stats.trajectoriesBy['tab-z'] ?? 0;
    t.thaw();
    thaw();
    await waitFor('rejoined', () => node.members.has('tab-z'), 5000);
    const records = await run;
    expect(records).toHaveLength(16);
    expectEachTaskOnce(trained, 16);
    expect(scheduler.stats.reassigned).toBeGreaterThanOrEqual(1);
    expect(node.banned.size).toBe(0);
    expect(before).toBe(0); // nothing accepted from it while frozen (its held answer came from a non-member)
    expect(scheduler.stats.trajectoriesBy['tab-z']).toBeGreaterThan(0); // back: it played new chunks
    expect(z.jobsDone).toBeGreaterThanOrEqual(2);
    for (const x of [node, a.node, zNode]) await x.stop();
  });

  it('a result played with weights older than its chunk asked for is rejected by version and re-queued; the member stays', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const { node, scheduler } = await leader(hub, logs);
    let tampered = 0;
    // One result claims the version before the chunk's (a tab that waited for weights while frozen, then played what it had).
    const stale = (r: { policyVersion: number; trajectories: Trajectory[] }) => {
      if (tampered === 0 && r.policyVersion >= 1) {
        tampered++;
        r.policyVersion -= 1;
        for (const t of r.trajectories) t.policyVersion = r.policyVersion;
      }
      return r;
    };
    const a = await member(hub, 'tab-a', { delayMs: 10, tamper: stale as never });
    await waitFor('the member', () => scheduler.rolloutMembers().length === 1);
    const trained: Trajectory[] = [];
    await runAsyncRl(swarmPool(countingTrainer(trained), scheduler, async () => {}), asyncConfig(4));
    expectEachTaskOnce(trained, 4);
    expect(tampered).toBe(1);
    expect(scheduler.stats.staleResults).toBe(1);
    expect(node.banned.size).toBe(0);
    expect(logs.some((l) => /rejected tab-a's result for chunk \d+: played with weights v\d+, the chunk asked for ≥ v\d+/.test(l))).toBe(true);
    for (const x of [node, a.node]) await x.stop();
  });

  it('a member that sends NaN log-probs or foreign tasks is dropped and logged; the run goes on without it', async () => {
    for (const tamper of [
      (r: { trajectories: Trajectory[] }) => (r.trajectories[0].behaviourLogprobs[r.trajectories[0].lossMask.indexOf(1)] = Number.NaN, r),
      (r: { trajectories: Trajectory[] }) => (r.trajectories.forEach((t) => (t.taskId = 'some-other-task')), r),
    ]) {
      const hub = new MemoryHub();
      const logs: string[] = [];
      const { node, scheduler } = await leader(hub, logs);
      const good = await member(hub, 'tab-good', { delayMs: 30 });
      const bad = await member(hub, 'tab-bad', { tamper: tamper as never });
      await waitFor('both members', () => scheduler.rolloutMembers().length === 2);
      const trained: Trajectory[] = [];
      await runAsyncRl(swarmPool(countingTrainer(trained), scheduler, async () => {}), asyncConfig(3));
      expectEachTaskOnce(trained, 3);
      expect(node.banned.has('tab-bad')).toBe(true);
      expect(scheduler.stats.rejectedResults).toBe(1);
      expect(logs.find((l) => l.startsWith('dropped tab-bad'))).toMatch(/invalid result: trajectory \d+(: behaviourLogprobs| played task)/);
      for (const t of trained) expect(t.behaviourLogprobs.every(Number.isFinite)).toBe(true);
      for (const x of [node, good.node, bad.node]) await x.stop();
    }
  });

  it('no rollout member at all: the leader plays its chunks itself', async () => {
    const hub = new MemoryHub();
    const { node } = await leader(hub, []);
    const scheduler = new RolloutScheduler({ node, spec: SPEC, stage: STAGE, local: async () => scriptedActor(SPEC, packWeights(initialWeights(MICRO_MODEL, 1), 0)) });
    const trained: Trajectory[] = [];
    await runAsyncRl(swarmPool(countingTrainer(trained), scheduler, async () => {}), asyncConfig(3));
    expectEachTaskOnce(trained, 3);
    expect(scheduler.stats.trajectoriesBy.local).toBe(trained.length);
    await scheduler.close();
    await node.stop();
  });
});
