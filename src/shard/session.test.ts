// A swarm run end to end in one process (llvmpipe for the leader's trainer, CPU scripted actors for
// the rollout members, memory transport and memory locks): three members elect a leader, the two
// others play its rollouts; the leader "closes" mid-run, the next in line resumes from the newest
// checkpoint and finishes; every GRPO step's tasks are trained exactly once along the run's history.
import { describe, expect, it } from 'vitest';
import { testRuntime } from '../gpu/testDevice';
import { PIPELINE_CONFIG_VERSION, parsePipelineConfig } from '../pipeline/config';
import { grpoLoopConfig } from '../pipeline/loopSettings';
import { MemoryBackend } from '../storage/memoryBackend';
import { MICRO_MODEL } from '../train/testing/microModel';
import { MemoryHub } from './memoryTransport';
import { type SwarmLink } from './link';
import { SwarmSession } from './session';
import { rolloutFamily } from '../train/rl/async/actors';
import { jobTaskIds, swarmRolloutSpec } from './swarmSpec';
import { MemoryLocks } from './testing/memoryLocks';
import { scriptedActor } from './testing/scriptedActor';

const CFG = parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 4, tasks: [{ family: 'function-calling', level: 'route4' }],
  context: { maxTotalTokens: 288, maxNewTokensPerTurn: 8, maxTurns: 1 },
  stages: [{ kind: 'grpo', steps: 6, tasksPerStep: 2, groupSize: 2, lr: 1e-3, staleness: 1, samplingRounds: 1, klCoef: 0 }],
});
const LINK: SwarmLink = { v: 1, run: 'run-session-test', secret: 'secret-session-test', config: CFG, model: MICRO_MODEL };

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const t0 = performance.now();
  while (!ok()) {
    if (performance.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('swarm session (memory transport, memory locks)', () => {
  it('elects one leader, trains with two rollout members, survives the leader leaving mid-run', async () => {
    const rt = await testRuntime('opengles');
    const hub = new MemoryHub();
    const locks = new MemoryLocks();
    const store = new MemoryBackend();
    let finished = false;
    const logs: string[] = [];
    const sessions = ['tab-a', 'tab-b', 'tab-c'].map((id) => new SwarmSession({
      link: LINK, transport: hub.join(id), locks, runtime: async () => rt, store: async () => store,
      makeActor: async (spec, w) => scriptedActor(spec, w, { delayMs: 30 }),
      finished: { get: () => finished, set: () => void (finished = true) },
      heartbeatMs: 50, silenceMs: 500, log: (l) => logs.push(`${id}: ${l}`),
    }));
    for (const s of sessions) await s.start();
    const [a, b, c] = sessions;
    await until('a leads', () => a.view().role === 'leader');
    expect(b.view().role).toBe('rollout');
    expect(c.view().role).toBe('rollout');
    await until('a trained 3 steps', () => a.records.length >= 3);
    a.abandon(() => hub.vanish('tab-a')); // the leader's tab closes: no bye
    await until('b leads and finishes', () => b.view().state === 'done' || b.view().state === 'failed', 120_000);
    expect(b.view().error).toBeNull();
    expect(b.view().role).toBe('leader');
    const bNotes = b.view().notes.join('\n');
    expect(bNotes).toMatch(/this tab took over as leader: resuming from checkpoint rl-\d+/);
    await until('c heard of it', () => c.view().notes.some((n) => /tab-b took over as leader from checkpoint/.test(n)));
    // c's own silence timer and b's takeover race (under load b's announcement can come first, and then c
    // never sees a silent leader: seen once in CI); either way c must not keep tab-a as its leader
    const cNotes = c.view().notes.join('\n');
    if (!/the leader tab-a left \(silent/.test(cNotes)) expect(cNotes.indexOf('tab-b took over as leader')).toBeGreaterThan(cNotes.indexOf('tab-a leads the run'));
    // the run's history: a's steps up to its last checkpoint, then b's — each step once, with its own tasks
    const resumedAt = b.records[0].step - 1;
    const history = new Map([...[...a.trained].filter(([s]) => s <= resumedAt), ...b.trained]);
    expect([...history.keys()].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(b.records.map((r) => r.step)).toEqual(Array.from({ length: 6 - resumedAt }, (_, i) => resumedAt + 1 + i));
    const spec = swarmRolloutSpec(CFG, 0, MICRO_MODEL);
    const loop = grpoLoopConfig(CFG, CFG.stages[0] as never, 0);
    for (const [step, ids] of history) {
      const want = jobTaskIds(rolloutFamily(spec), spec.taskSeed, (step - 1) * loop.tasksPerStep, loop.tasksPerStep).flatMap((id) => [id, id]);
      expect(ids, `step ${step}`).toEqual(want);
    }
    const played = b.view().trajectoriesBy;
    expect((played['tab-c'] ?? 0) + (played.local ?? 0)).toBeGreaterThan(0);
    await until('c heard the run finished', () => c.view().state === 'done');
    expect(c.view().role).toBe('rollout'); // a finished run is not taken over again
    for (const s of [b, c]) await s.stop();
  }, 300_000);
});
