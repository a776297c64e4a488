// Data-parallel runs through SwarmSession (memory transport and locks, llvmpipe): the tab holding the
// lock calls for ranks, a tab whose link differs (another seed) is refused with the difference named,
// two agreeing tabs give one tab's SFT losses (≤ 1e-5 relative) and bit-identical weights on both
// ranks; their GRPO stage plays the same rollouts as the one tab, each rank half of them (the micro
// model earns no reward in so few steps, so every GRPO step is skipped here: the equivalence on
// rewards that vary is dataParallelGrpo.test.ts's); a rank that vanishes mid-run fails the other
// with its name, rank 0's checkpoints kept; the stopped run resumes from them on two new tabs and
// ends with the uninterrupted run's weights; a run stopped in its GRPO stage resumes on 2 tabs and
// on 1 (a smaller world). Across 3 machines (joiners linked to rank 0 only, a store each): one tab's
// losses; stopped, the run resumes with rank 0's checkpoint sent to the other machines' stores.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { PIPELINE_CONFIG_VERSION, parsePipelineConfig, type PipelineConfig } from '../pipeline/config';
import { MemoryBackend } from '../storage/memoryBackend';
import { MICRO_MODEL } from '../train/testing/microModel';
import { dataParallelProblem, digestDifference, runDigest } from './dataParallelRun';
import { type SwarmLink } from './link';
import { MemoryHub } from './memoryTransport';
import { SwarmSession } from './session';
import { MemoryLocks } from './testing/memoryLocks';

const config = (seed: number, sftSteps: number, grpoSteps: number): PipelineConfig => parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed, tasks: [{ family: 'function-calling', level: 'route4' }],
  context: { maxTotalTokens: 288, maxNewTokensPerTurn: 8, maxTurns: 1 },
  stages: [
    { kind: 'sft', data: { source: 'synthetic', examples: 16 }, steps: sftSteps, batchSize: 4, lr: 3e-3, warmupSteps: 0 },
    ...(grpoSteps ? [{ kind: 'grpo', steps: grpoSteps, tasksPerStep: 2, groupSize: 2, lr: 1e-3, samplingRounds: 1, klCoef: 0, warmupSteps: 0 }] : []),
  ],
});

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const t0 = performance.now();
  while (!ok()) {
    if (performance.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-12);

/** A copy of a store's checkpoints (two resumes of one stopped run, each writing its own). */
function copyStore(from: MemoryBackend): MemoryBackend {
  const to = new MemoryBackend();
  for (const [k, v] of from.chunks) to.chunks.set(k, v.slice());
  for (const [k, v] of from.manifests) to.manifests.set(k, v);
  return to;
}

/**
 * Machines through a relay: no Web Locks (machine 0 leads by the link), each joiner linked to machine 0
 * only (a star hub: a send between joiners throws), each machine its own store.
 */
function machines(link: SwarmLink, stores: MemoryBackend[], silenceMs: number) {
  const hub = MemoryHub.star('machine-0');
  return {
    hub, stores,
    sessions: stores.map((store, i) => new SwarmSession({
      link, transport: hub.join(`machine-${i}`), locks: null, lead: i === 0, runtime: () => testRuntime('opengles'), store: async () => store,
      heartbeatMs: 50, silenceMs, collectiveTimeoutMs: 30_000,
    })),
  };
}

/** Tabs on one hub and one lock manager; the first one started holds the lock (rank 0). */
function tabs(links: SwarmLink[], silenceMs: number, store = new MemoryBackend()) {
  const hub = new MemoryHub();
  const locks = new MemoryLocks();
  return {
    hub, store,
    sessions: links.map((link, i) => new SwarmSession({
      link, transport: hub.join(`tab-${i}`), locks, runtime: () => testRuntime('opengles'), store: async () => store,
      heartbeatMs: 50, silenceMs, collectiveTimeoutMs: 30_000,
    })),
  };
}

describe('data parallel across tabs (SwarmSession)', () => {
  it('digests name the fields that differ; configs that cannot split are refused', () => {
    const a = runDigest(config(4, 3, 2), MICRO_MODEL, 2);
    expect(digestDifference(a, a, 'me', 'them')).toBeNull();
    expect(digestDifference(a, runDigest(config(5, 3, 2), MICRO_MODEL, 2), 'me', 'them')).toBe('config.seed is 5 in them, 4 in me');
    expect(digestDifference(a, runDigest(config(4, 3, 2), MICRO_MODEL, 3), 'me', 'them')).toBe('world is 3 in them, 2 in me');
    expect(digestDifference(a, runDigest(config(4, 4, 2), MICRO_MODEL, 2), 'me', 'them')).toMatch(/^config\.stages\.0 is #[0-9a-f]{16} in them, #[0-9a-f]{16} in me$/);
    expect(dataParallelProblem(config(4, 3, 0), 3)).toBeNull(); // 4 rows over 3 tabs: 1, 1 and 2
    expect(dataParallelProblem(config(4, 3, 2), 5)).toMatch(/stage 0 \(sft\): its batch of 4 rows cannot give each of 5 tabs a row: choose a batch of at least 5 rows/);
    const grpoWith = (o: object) => ({ ...config(4, 3, 2), stages: config(4, 3, 2).stages.map((s) => (s.kind === 'grpo' ? { ...s, ...o } : s)) });
    expect(dataParallelProblem(grpoWith({ staleness: 1 }), 2)).toMatch(/stage 1 \(grpo\): .*remove its staleness/);
    expect(dataParallelProblem(grpoWith({ tasksPerStep: 2 }), 4)).toMatch(/stage 1 \(grpo\): its 2 tasks per step cannot give each of 4 tabs a group/);
  });

  it('two tabs = one tab (SFT losses ≤ 1e-5 relative, same weights, same GRPO rollouts); a tab with another seed is refused', async () => {
    const cfg = config(4, 3, 2);
    const one = tabs([{ v: 1, run: 'run-dp-one', secret: 'secret-dp-test-0001', config: cfg, model: MICRO_MODEL, dp: { world: 1 } }], 10_000);
    await one.sessions[0].start();
    await until('one tab finished', () => ['done', 'failed'].includes(one.sessions[0].view().state), 120_000);
    expect(one.sessions[0].view().error).toBeNull();
    const link: SwarmLink = { v: 1, run: 'run-dp-two', secret: 'secret-dp-test-0002', config: cfg, model: MICRO_MODEL, dp: { world: 2 } };
    const two = tabs([link, { ...link, config: config(5, 3, 2) }, link], 10_000); // nobody leaves: a wide window
    const [r0, other, r1] = two.sessions;
    await r0.start();
    await until('rank 0 waits', () => r0.view().role === 'leader');
    await other.start();
    await until('the other seed refused', () => other.view().state === 'refused');
    expect(other.view().error).toMatch(/this tab would train a different run than rank 0 \(tab-0\): config\.seed is 5 in this tab's link, 4 in rank 0's run/);
    await r1.start();
    await until('both ranks finished', () => [r0, r1].every((s) => ['done', 'failed'].includes(s.view().state)), 120_000);
    for (const s of [r0, r1]) expect(s.view().error).toBeNull();
    expect(r0.view().dp).toEqual({ world: 2, rank: 0, ranks: ['tab-0', 'tab-2'] });
    expect(r1.view().dp?.rank).toBe(1);
    const want = one.sessions[0];
    expect(want.sftLosses).toHaveLength(3);
    expect(want.records).toHaveLength(2);
    for (const s of [r0, r1]) {
      for (const [i, l] of want.sftLosses.entries()) expect(rel(s.sftLosses[i], l), `sft step ${i + 1}`).toBeLessThanOrEqual(1e-5);
      for (const [i, r] of want.records.entries()) {
        expect(s.records[i].skipped).toBe(r.skipped);
        for (const k of ['reward', 'episodes', 'rollout/generated_tokens', 'rollout/episode_tokens']) expect(s.records[i].metrics[k], `grpo step ${i + 1} ${k}`).toBe(r.metrics[k]);
        expect(s.records[i].rank?.episodes, 'each rank plays half of the step\'s groups').toBe(r.metrics.episodes / 2);
      }
      expect(s.view().self.rolloutsPerSec).toBeGreaterThan(0); // the panel's figure: this rank's own episodes per second
      expect(s.view().trajectoriesBy.local).toBe(want.records.reduce((a, r) => a + r.metrics.episodes, 0) / 2); // and its own episodes
      expect(s.view().self.version).toBe(want.records.at(-1)!.version);
    }
    expect(r1.finalWeights!.sha256).toBe(r0.finalWeights!.sha256);
    const [a, b] = [r0.finalWeights!.values!, want.finalWeights!.values!];
    expect(Math.max(...a.map((x, i) => Math.abs(x - b[i])))).toBeLessThanOrEqual(1e-4);
    for (const s of [...one.sessions, ...two.sessions]) await s.stop();
  }, 300_000);

  it('a rank that leaves mid-run stops the other with its name; rank 0 keeps its checkpoints', async () => {
    const link: SwarmLink = { v: 1, run: 'run-dp-leave', secret: 'secret-dp-test-0003', config: config(4, 400, 0), model: MICRO_MODEL, dp: { world: 2 } };
    const { hub, store, sessions: [r0, r1] } = tabs([link, link], 1500);
    await r0.start();
    await r1.start();
    await until('3 steps', () => r0.sftLosses.length >= 3, 120_000);
    r1.abandon(() => hub.vanish('tab-1')); // its tab closes: no bye
    await until('rank 0 stopped', () => r0.view().state !== 'running', 30_000);
    const v = r0.view();
    expect(v.state).toBe('failed');
    expect(v.error).toMatch(/rank 1 \(tab-1\) left \(silent .*\): the data-parallel run cannot go on without it/);
    expect(v.notes.join('\n')).toMatch(/rank 0's checkpoints are intact: .*sft/);
    const steps = r0.sftLosses.length;
    expect((await store.list()).complete.length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(r0.sftLosses.length).toBe(steps); // it does not go on alone
  }, 300_000);

  it('a stopped run resumes on the same number of tabs from rank 0\'s newest checkpoint and ends with the uninterrupted run\'s weights', async () => {
    const cfg = config(4, 7, 1);
    const link = (run: string): SwarmLink => ({ v: 1, run, secret: 'secret-dp-test-0005', config: cfg, model: MICRO_MODEL, dp: { world: 2 } });
    const whole = tabs([link('run-dp-whole'), link('run-dp-whole')], 10_000);
    for (const t of whole.sessions) await t.start();
    await until('the uninterrupted run', () => whole.sessions.every((t) => ['done', 'failed'].includes(t.view().state)), 120_000);
    expect(whole.sessions[0].view().error).toBeNull();
    const want = whole.sessions[0];
    // the same run, stopped after 3 steps: rank 1's tab vanishes
    const first = tabs([link('run-dp-resume'), link('run-dp-resume')], 1500);
    for (const t of first.sessions) await t.start();
    await until('3 steps', () => first.sessions[0].sftLosses.length >= 3, 120_000);
    first.sessions[1].abandon(() => first.hub.vanish('tab-1'));
    await until('rank 0 stopped', () => first.sessions[0].view().state === 'failed', 30_000);
    const done = first.sessions[0].sftLosses.length;
    expect(done).toBeLessThan(7);
    const saved = (await first.store.list()).complete;
    expect(first.sessions[0].view().notes.join('\n')).toMatch(/open the run's link in 2 tabs again to resume from the newest/);
    // two tabs open the link again (same store: the browser's IndexedDB of the run)
    const again = tabs([link('run-dp-resume'), link('run-dp-resume')], 10_000, first.store);
    const [r0, r1] = again.sessions;
    for (const t of again.sessions) await t.start();
    await until('the resumed run', () => again.sessions.every((t) => ['done', 'failed'].includes(t.view().state)), 120_000);
    for (const t of again.sessions) expect(t.view().error).toBeNull();
    expect(r0.view().notes.join('\n')).toMatch(new RegExp(`every rank resumes from checkpoint ${saved.at(-1)} \\(stage 0, step ${done}\\)`));
    expect(r1.view().notes.join('\n')).toMatch(new RegExp(`resuming from rank 0's checkpoint ${saved.at(-1)}`));
    expect(r0.sftLosses).toEqual(want.sftLosses.slice(done)); // the steps after the checkpoint, bit for bit
    expect(r0.records.map((r) => r.metrics.reward)).toEqual(want.records.map((r) => r.metrics.reward));
    expect(r0.finalWeights!.sha256).toBe(want.finalWeights!.sha256);
    expect(r1.finalWeights!.sha256).toBe(want.finalWeights!.sha256);
    for (const t of [...whole.sessions, ...first.sessions, ...again.sessions]) await t.stop();
  }, 300_000);

  it('a run stopped in its GRPO stage resumes from rank 0\'s newest checkpoint on 2 new tabs and on 1 tab (a smaller world)', async () => {
    // The plumbing only (which checkpoint, the GRPO stage's step, a world-1 link taking a world-2
    // run's checkpoint): these GRPO steps are skipped (no reward for the micro model), so the update
    // math after a resume is dataParallelGrpoResume.test.ts's, where every step trains.
    const cfg = config(4, 1, 3);
    const link = (run: string, world: number): SwarmLink => ({ v: 1, run, secret: 'secret-dp-test-0006', config: cfg, model: MICRO_MODEL, dp: { world } });
    const whole = tabs([link('run-dp-grpo', 2), link('run-dp-grpo', 2)], 10_000);
    for (const t of whole.sessions) await t.start();
    await until('the uninterrupted run', () => whole.sessions.every((t) => ['done', 'failed'].includes(t.view().state)), 120_000);
    const want = whole.sessions[0];
    expect(want.view().error).toBeNull();
    expect(want.records.map((r) => r.skipped)).toEqual([true, true, true]);
    const first = tabs([link('run-dp-grpo', 2), link('run-dp-grpo', 2)], 5000); // a wide window: under load a GPU step can hold the event loop past 1.5 s
    for (const t of first.sessions) await t.start();
    await until('a GRPO step', () => first.sessions[0].records.length >= 1, 120_000);
    first.sessions[1].abandon(() => first.hub.vanish('tab-1'));
    await until('rank 0 stopped', () => first.sessions[0].view().state === 'failed', 30_000);
    const done = first.sessions[0].records.length;
    expect(done).toBeLessThan(3);
    const newest = (await first.store.list()).complete.at(-1);
    for (const world of [2, 1]) {
      const again = tabs(Array.from({ length: world }, () => link('run-dp-grpo', world)), 10_000, copyStore(first.store));
      for (const t of again.sessions) await t.start();
      await until(`the run resumed on ${world} tab(s)`, () => again.sessions.every((t) => ['done', 'failed'].includes(t.view().state)), 120_000);
      const r0 = again.sessions[0];
      expect(r0.view().error).toBeNull();
      expect(r0.view().notes.join('\n')).toMatch(new RegExp(`every rank resumes from checkpoint ${newest} \\(stage 1, step ${done}\\)`));
      expect(r0.sftLosses).toEqual([]); // the SFT stage was done before the checkpoint
      expect(r0.records.map((r) => r.step)).toEqual(want.records.slice(done).map((r) => r.step));
      expect(r0.records.map((r) => r.metrics.reward)).toEqual(want.records.slice(done).map((r) => r.metrics.reward));
      for (const t of again.sessions) expect(t.finalWeights!.sha256, `${world} tab(s)`).toBe(want.finalWeights!.sha256);
      for (const t of again.sessions) await t.stop();
    }
    for (const t of [...whole.sessions, ...first.sessions]) await t.stop();
  }, 300_000);

  it('rank 0 leaving stops rank 1, which then holds the lock without starting the run again', async () => {
    const link: SwarmLink = { v: 1, run: 'run-dp-leave-0', secret: 'secret-dp-test-0004', config: config(4, 400, 0), model: MICRO_MODEL, dp: { world: 2 } };
    const { hub, sessions: [r0, r1] } = tabs([link, link], 1500);
    await r0.start();
    await r1.start();
    await until('3 steps', () => r1.sftLosses.length >= 3, 120_000);
    r0.abandon(() => hub.vanish('tab-0'));
    await until('rank 1 stopped', () => r1.view().state !== 'running', 30_000);
    expect(r1.view().error).toMatch(/rank 0 \(tab-0\) left \(silent .*\): the data-parallel run cannot go on without it/);
    expect(r1.view().notes.join('\n')).toMatch(/rank 0's checkpoints are intact: \S+/);
    await r0.leading; // rank 0's own step fails too, and its lock goes to rank 1
    await until('rank 1 holds the lock', () => r1.leading !== null);
    await r1.leading;
    expect(r1.view()).toMatchObject({ state: 'failed', role: 'rank' });
  }, 300_000);

  it('a link whose config cannot split is refused on every member at once, naming machines across machines', async () => {
    const link: SwarmLink = { v: 1, run: 'run-dp-m-split', secret: 'secret-dp-test-0008', config: config(4, 2, 1), model: MICRO_MODEL, dp: { world: 3 } }; // 2 tasks per step
    const { sessions } = machines(link, [new MemoryBackend(), new MemoryBackend(), new MemoryBackend()], 10_000);
    for (const t of sessions) await t.start();
    for (const t of sessions) {
      expect(t.view().state).toBe('failed');
      expect(t.view().error).toMatch(/this run cannot train data parallel: stage 1 \(grpo\): its 2 tasks per step cannot give each of 3 machines a group to play/);
    }
    for (const t of sessions) await t.stop();
  });

  it('across 3 machines (each joiner linked to rank 0 only, own stores): one tab\'s run; stopped, it resumes with rank 0\'s checkpoint sent to the others', async () => {
    // a GRPO step too (3 tasks: one group per machine): its episode summaries are gathered via rank 0 as well
    const base = config(4, 7, 1);
    const cfg = parsePipelineConfig({ ...base, stages: base.stages.map((st) => (st.kind === 'grpo' ? { ...st, tasksPerStep: 3 } : st)) });
    const link = (run: string): SwarmLink => ({ v: 1, run, secret: 'secret-dp-test-0007', config: cfg, model: MICRO_MODEL, dp: { world: 3 } });
    const one = tabs([{ ...link('run-dp-m-one'), dp: { world: 1 } }], 10_000);
    await one.sessions[0].start();
    await until('one tab', () => ['done', 'failed'].includes(one.sessions[0].view().state), 120_000);
    const want = one.sessions[0];
    expect(want.view().error).toBeNull();
    const whole = machines(link('run-dp-m-whole'), [new MemoryBackend(), new MemoryBackend(), new MemoryBackend()], 10_000);
    for (const t of whole.sessions) await t.start();
    await until('the uninterrupted run', () => whole.sessions.every((t) => ['done', 'failed'].includes(t.view().state)), 120_000);
    for (const t of whole.sessions) expect(t.view().error).toBeNull();
    expect(whole.sessions[0].view().dp).toEqual({ world: 3, rank: 0, ranks: ['machine-0', expect.any(String), expect.any(String)] });
    expect(whole.sessions[1].view().notes.join('\n')).toMatch(/data parallel: this machine is rank [12] of 3/); // machines, not tabs, in its words
    for (const t of whole.sessions) {
      expect(t.sftLosses).toHaveLength(7);
      for (const [i, l] of want.sftLosses.entries()) expect(rel(t.sftLosses[i], l), `sft step ${i + 1}`).toBeLessThanOrEqual(1e-5);
      expect(t.finalWeights!.sha256).toBe(whole.sessions[0].finalWeights!.sha256);
      expect(t.records.map((r) => [r.metrics.reward, r.metrics.episodes])).toEqual(want.records.map((r) => [r.metrics.reward, r.metrics.episodes]));
    }
    expect(whole.sessions.map((t) => t.records[0].rank?.episodes)).toEqual([2, 2, 2]); // each machine plays its group (G 2)
    // the same run, stopped after 3 steps: machine 2's page closes (no bye)
    const stores = [new MemoryBackend(), new MemoryBackend(), new MemoryBackend()];
    const first = machines(link('run-dp-m-resume'), stores, 1500);
    for (const t of first.sessions) await t.start();
    await until('3 steps', () => first.sessions[0].sftLosses.length >= 3, 120_000);
    first.sessions[2].abandon(() => first.hub.vanish('machine-2'));
    await until('ranks 0 and 1 stopped', () => first.sessions.slice(0, 2).every((t) => t.view().state === 'failed'), 30_000);
    const done = first.sessions[0].sftLosses.length;
    expect(done).toBeLessThan(7);
    const saved = (await stores[0].list()).complete;
    expect(saved.length).toBeGreaterThan(0);
    expect((await stores[1].list()).complete).toEqual([]); // only rank 0 checkpoints
    expect(first.sessions[0].view().notes.join('\n')).toMatch(/reopen the run's link on this machine, then on 2 other\(s\), to resume from the newest/);
    expect(first.sessions[1].view().notes.join('\n')).toMatch(/its checkpoints are rank 0's, on rank 0's machine/);
    // rank 0's machine opens the link again (its own store), then two machines with empty stores
    const again = machines(link('run-dp-m-resume'), [stores[0], new MemoryBackend(), new MemoryBackend()], 10_000);
    for (const t of again.sessions) await t.start();
    await until('the resumed run', () => again.sessions.every((t) => ['done', 'failed'].includes(t.view().state)), 120_000);
    for (const t of again.sessions) expect(t.view().error).toBeNull();
    const [r0, r1, r2] = again.sessions;
    expect(r0.view().notes.join('\n')).toMatch(new RegExp(`every rank resumes from checkpoint ${saved.at(-1)} \\(stage 0, step ${done}\\), which this machine sends to the others first`));
    expect(r0.view().notes.join('\n')).toMatch(new RegExp(`sent checkpoint ${saved.at(-1)} to the other 2 machine\\(s\\): \\d+ chunks`));
    for (const t of [r1, r2]) expect(t.view().notes.join('\n')).toMatch(new RegExp(`received rank 0's checkpoint ${saved.at(-1)} into this machine's store: \\d+ chunks, \\d+ bytes, every checksum right`));
    for (const st of again.stores.slice(1)) // the copies are removed once loaded (rank 0 keeps its own, under its retention) expect(await st.list()).toEqual({ complete: [], unfinished: [] });
    for (const t of again.sessions) {
      expect(t.sftLosses).toEqual(whole.sessions[0].sftLosses.slice(done)); // the steps after the checkpoint, bit for bit
      expect(t.finalWeights!.sha256).toBe(whole.sessions[0].finalWeights!.sha256);
    }
    for (const t of [...one.sessions, ...whole.sessions, ...first.sessions, ...again.sessions]) await t.stop();
  }, 300_000);
});
