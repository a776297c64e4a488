// The gate every swarm message passes (memory transport, CPU): the join secret, schemas, size
// bounds, fragments, NaN weights, repeated versions and skewed clocks — each detected, logged and
// survived, never acted on.
import { describe, expect, it } from 'vitest';
import { initialWeights } from '../model/weights';
import { PIPELINE_CONFIG_VERSION, parsePipelineConfig } from '../pipeline/config';
import { packWeights } from '../train/rl/async/weights';
import { MICRO_MODEL } from '../train/testing/microModel';
import { helloProof, newNonce } from './auth';
import { decodeFrame, encodeFrame, fragmentsOf, Reassembler } from './framing';
import { MemoryHub } from './memoryTransport';
import { FRAGMENT_BYTES, floatBytes, SWARM_PROTOCOL_VERSION } from './protocol';
import { RolloutMember } from './rolloutMember';
import { payloadLimits, swarmRolloutSpec } from './swarmSpec';
import { type MemberStatus, SwarmNode } from './swarmNode';
import { scriptedActor } from './testing/scriptedActor';

const CFG = parsePipelineConfig({
  version: PIPELINE_CONFIG_VERSION, preset: 'nano', seed: 3, tasks: [{ family: 'function-calling', level: 'route4' }],
  context: { maxTotalTokens: 288, maxNewTokensPerTurn: 12, maxTurns: 1 },
  stages: [{ kind: 'grpo', steps: 2, tasksPerStep: 2, groupSize: 2, lr: 1e-3 }],
});
const LIMITS = payloadLimits(CFG, MICRO_MODEL);
const RUN = 'run-x';
const SECRET = 'right-secret';
const status = (role: MemberStatus['role']) => () => ({ role, version: -1, rolloutsPerSec: 0, busy: false, visible: true, stage: -1, step: 0 });

function node(hub: MemoryHub, id: string, logs: string[], secret = SECRET) {
  return new SwarmNode({ transport: hub.join(id), runId: RUN, secret, status: status('rollout'), limits: LIMITS, heartbeatMs: 30, silenceMs: 300, log: (l) => logs.push(`${id}: ${l}`) });
}

const settle = (ms = 60) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, ms = 3000): Promise<void> {
  const t0 = performance.now();
  while (!ok()) {
    if (performance.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await settle(10);
  }
}

/** A valid hello from `from` (to everyone), as a hostile test peer would forge it with the secret. */
async function hello(from: string, secret = SECRET) {
  const nonce = newNonce();
  return { t: 'hello', v: SWARM_PROTOCOL_VERSION, run: RUN, to: '*', role: 'rollout', nonce, proof: await helloProof(secret, RUN, from, '*', nonce), reply: false };
}

describe('swarm membership and message checks', () => {
  it('members with the secret see each other; a wrong secret is refused with a clear message and learns why', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const a = node(hub, 'tab-a', logs);
    const b = node(hub, 'tab-b', logs);
    await a.start();
    await b.start();
    await until('a and b', () => a.members.has('tab-b') && b.members.has('tab-a'));
    const intruder = node(hub, 'tab-evil', logs, 'wrong-secret');
    const refusals: string[] = [];
    intruder.onRefused((r) => refusals.push(r));
    await intruder.start();
    await until('refusal', () => refusals.length > 0);
    expect(refusals[0]).toMatch(/wrong join secret: this link does not carry the secret of this run; ask the person who started the run for a fresh "join this run" link/);
    expect(a.members.has('tab-evil')).toBe(false);
    expect(a.banned.get('tab-evil')).toMatch(/wrong join secret/);
    expect(intruder.members.size).toBe(0);
    for (const n of [a, b, intruder]) await n.stop();
  });

  it('drops and logs a member that sends a malformed header, an unknown kind, an oversized or misdeclared payload', async () => {
    const bad = [
      { h: { t: 'heartbeat', role: 'rollout' } }, // fields missing
      { h: { t: 'launch-missiles' } },
      { h: { t: 'heartbeat', role: 'rollout', version: 0, rolloutsPerSec: Number.NaN, busy: false, visible: true, sentAt: 0, stage: 0, step: 0 } },
      { h: { t: 'weights', version: 1, stage: 0, floats: LIMITS.parameters + 1 }, p: new Uint8Array(4 * (LIMITS.parameters + 1)) },
      { h: { t: 'weights', version: 1, stage: 0, floats: LIMITS.parameters }, p: new Uint8Array(8) },
      { h: { t: 'job', id: 1, stage: 0, slot: 0, firstTask: 0, tasks: 1, seed: 1, minVersion: 0 }, p: new Uint8Array(3) },
      { h: { t: 'bye', reason: 'x'.repeat(100_000) } },
    ];
    for (const [i, raw] of bad.entries()) {
      const hub = new MemoryHub();
      const logs: string[] = [];
      const a = node(hub, 'tab-a', logs);
      await a.start();
      const evil = `tab-evil${i}`;
      hub.inject(evil, 'tab-a', { h: await hello(evil) });
      await until('evil joined', () => a.members.has(evil));
      hub.inject(evil, 'tab-a', raw);
      await until(`message ${i} dropped`, () => a.banned.has(evil));
      expect(a.members.has(evil)).toBe(false);
      expect(logs.some((l) => l.startsWith(`tab-a: dropped ${evil}:`)), logs.join('\n')).toBe(true);
      // and nothing it sends afterwards is heard
      hub.inject(evil, 'tab-a', { h: await hello(evil) });
      await settle();
      expect(a.members.has(evil)).toBe(false);
      await a.stop();
    }
  });

  it('ignores messages from peers that never proved the secret (and asks them to introduce themselves)', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const a = node(hub, 'tab-a', logs);
    const jobs: unknown[] = [];
    a.on('job', (_f, m) => jobs.push(m));
    await a.start();
    hub.inject('tab-stranger', 'tab-a', { h: { t: 'job', id: 1, stage: 0, slot: 0, firstTask: 0, tasks: 1, seed: 1, minVersion: 0 } });
    await settle();
    expect(jobs).toHaveLength(0);
    await a.stop();
  });

  it('refuses another protocol version or another run, saying what to do', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const a = node(hub, 'tab-a', logs);
    await a.start();
    hub.inject('tab-old', 'tab-a', { h: { ...(await hello('tab-old')), v: 0 } });
    hub.inject('tab-other', 'tab-a', { h: { ...(await hello('tab-other')), run: 'another-run' } });
    await until('both refused', () => a.banned.size === 2);
    expect(a.banned.get('tab-old')).toMatch(new RegExp(`swarm protocol ${SWARM_PROTOCOL_VERSION}, the joining page 0: reload both pages`));
    expect(a.banned.get('tab-other')).toMatch(/the link is for run another-run/);
    await a.stop();
  });

  it('a member that stops answering is removed after the silence window; a skewed clock changes nothing', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const a = node(hub, 'tab-a', logs);
    await a.start();
    hub.inject('tab-skewed', 'tab-a', { h: await hello('tab-skewed') });
    await until('joined', () => a.members.has('tab-skewed'));
    const beat = (sentAt: number) => hub.inject('tab-skewed', 'tab-a', { h: { t: 'heartbeat', role: 'rollout', version: 0, rolloutsPerSec: 1, busy: false, visible: true, lifecycle: 'active', sentAt, stage: -1, step: 0 } });
    for (const sentAt of [Date.now() + 3.6e6, Date.now() - 8.64e7, 0]) {
      beat(sentAt); // an hour ahead, a day behind, the epoch: shown, never used
      await settle(100);
      expect(a.members.has('tab-skewed')).toBe(true);
    }
    await until('removed for silence', () => !a.members.has('tab-skewed'), 2000);
    expect(logs.some((l) => /tab-skewed left \(silent for \d/.test(l))).toBe(true);
    expect(a.banned.has('tab-skewed')).toBe(false); // silent is not hostile: it may come back
    await a.stop();
  });

  it('a tab that said it is frozen (hidden) stays listed past the silence window until frozenSilenceMs (hiddenSilenceMs); after its own timers stopped, a member judges nobody', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    let skip = 0; // ms added to tab-a's clock: its timers "stopped" for that long (frozen itself)
    const a = new SwarmNode({ transport: hub.join('tab-a'), runId: RUN, secret: SECRET, status: status('leader'), limits: LIMITS, heartbeatMs: 30, silenceMs: 300, frozenSilenceMs: 1200, hiddenSilenceMs: 800, now: () => performance.now() + skip, log: (l) => logs.push(l) });
    const changes: string[] = [];
    a.onLifecycle((id, now, before) => changes.push(`${id}: ${before} → ${now}`));
    await a.start();
    hub.inject('tab-f', 'tab-a', { h: await hello('tab-f') });
    await until('joined', () => a.members.has('tab-f'));
    hub.inject('tab-f', 'tab-a', { h: { t: 'heartbeat', role: 'rollout', version: 0, rolloutsPerSec: 1, busy: true, visible: false, lifecycle: 'frozen', sentAt: 0, stage: -1, step: 0 } });
    await until('frozen', () => a.members.get('tab-f')?.lifecycle === 'frozen');
    expect(changes).toEqual(['tab-f: active → frozen']);
    await settle(700); // more than twice the silence window, and not a word from tab-f
    expect(a.members.has('tab-f')).toBe(true);
    await until('removed after the frozen window', () => !a.members.has('tab-f'), 2000);
    expect(logs.some((l) => /tab-f left \(silent for [\d.]+ s after it said it was frozen\)/.test(l))).toBe(true);
    // a hidden tab (throttled timers): kept past the silence window, removed after hiddenSilenceMs
    hub.inject('tab-h', 'tab-a', { h: await hello('tab-h') });
    await until('h joined', () => a.members.has('tab-h'));
    hub.inject('tab-h', 'tab-a', { h: { t: 'heartbeat', role: 'rollout', version: 0, rolloutsPerSec: 1, busy: true, visible: false, lifecycle: 'hidden', sentAt: 0, stage: -1, step: 0 } });
    await until('hidden', () => a.members.get('tab-h')?.lifecycle === 'hidden');
    await settle(500);
    expect(a.members.has('tab-h')).toBe(true);
    await until('h removed after the hidden window', () => !a.members.has('tab-h'), 2000);
    expect(logs.some((l) => /tab-h left \(silent for [\d.]+ s after it said it was hidden\)/.test(l))).toBe(true);
    // tab-a itself stops for 5 s (its clock jumps between two ticks): tab-g, silent as long, is not judged for it
    hub.inject('tab-g', 'tab-a', { h: await hello('tab-g') });
    await until('g joined', () => a.members.has('tab-g'));
    skip = 5000;
    await settle(100);
    expect(a.members.has('tab-g')).toBe(true);
    expect(logs.some((l) => /timers stopped for 5\.\d s \(frozen or suspended\): every member gets a fresh silence window/.test(l))).toBe(true);
    await until('g removed after a real silence', () => !a.members.has('tab-g'), 2000);
    await a.stop();
  });

  it('weights: a repeated version is ignored, NaN weights drop the sender, a new leader replaces the old one\'s versions', async () => {
    const hub = new MemoryHub();
    const logs: string[] = [];
    const m = node(hub, 'tab-m', logs);
    const member = new RolloutMember({ node: m, specFor: (s) => swarmRolloutSpec(CFG, s, MICRO_MODEL), makeActor: async (spec, w) => scriptedActor(spec, w), log: (l) => logs.push(l) });
    await m.start();
    for (const id of ['leader-1', 'leader-2']) hub.inject(id, 'tab-m', { h: await hello(id) });
    await until('leaders joined', () => m.members.size === 2);
    const w = packWeights(initialWeights(MICRO_MODEL, 1), 0).data;
    const send = (from: string, version: number, data: Float32Array) => hub.inject(from, 'tab-m', { h: { t: 'weights', version, stage: 0, floats: data.length }, p: floatBytes(data) });
    send('leader-1', 5, w);
    await until('v5', () => member.version === 5);
    send('leader-1', 5, w.map(() => 0.5)); // same version again (a replay, or a buggy leader)
    send('leader-1', 3, w);
    await settle();
    expect(member.version).toBe(5);
    expect(member.duplicateWeights).toBe(2);
    send('leader-2', 2, w); // failover: the new leader's versions restart from its checkpoint
    await until('leader-2 v2', () => member.version === 2);
    const nan = w.slice();
    nan[17] = Number.NaN;
    send('leader-2', 3, nan);
    await until('dropped', () => m.banned.has('leader-2'));
    expect(m.banned.get('leader-2')).toMatch(/weights version 3: value 17 is NaN/);
    expect(member.version).toBe(2);
    await member.close();
    await m.stop();
  });
});

describe('framing', () => {
  it('fragments and reassembles a large payload exactly; frames round-trip', () => {
    const p = new Uint8Array(2.5 * FRAGMENT_BYTES).map((_, i) => i % 251);
    const pieces = fragmentsOf({ h: { t: 'weights', version: 1 }, p }, 7);
    expect(pieces).toHaveLength(3);
    const r = new Reassembler();
    const outs = pieces.map((x) => r.push('a', decodeFrame(encodeFrame(x))));
    expect(outs.slice(0, 2)).toEqual([null, null]);
    const last = outs[2] as { msg: { h: unknown; p: Uint8Array } };
    expect(last.msg.h).toEqual({ t: 'weights', version: 1 });
    expect(Buffer.from(last.msg.p).equals(Buffer.from(p))).toBe(true); // (toEqual on 2.6 MB takes seconds)
  });

  it('refuses fragments no sender produces: wrong sizes, repeats, too many open, a lying total, a bad frame', () => {
    const p = new Uint8Array(2 * FRAGMENT_BYTES + 10);
    const [f0, f1] = fragmentsOf({ h: { t: 'x' }, p }, 1);
    expect(new Reassembler().push('a', { h: f1.h, p: f1.p!.subarray(1) })).toEqual({ error: expect.stringMatching(/has 1048575 bytes, expected 1048576/) });
    const r = new Reassembler();
    r.push('a', f0);
    expect(r.push('a', f0)).toEqual({ error: expect.stringMatching(/arrived twice/) });
    const r2 = new Reassembler(2);
    r2.push('a', { h: { ...(f0.h as object), msg: 1 }, p: f0.p });
    r2.push('a', { h: { ...(f0.h as object), msg: 2 }, p: f0.p });
    expect(r2.push('a', { h: { ...(f0.h as object), msg: 3 }, p: f0.p })).toEqual({ error: expect.stringMatching(/more than 2 fragmented messages/) });
    expect(new Reassembler().push('a', { h: { ...(f0.h as object), total: 10 * FRAGMENT_BYTES }, p: f0.p })).toEqual({ error: expect.stringMatching(/says \d+ bytes in 3 fragments/) });
    expect(() => decodeFrame(new Uint8Array([255, 255, 255, 255, 1]))).toThrow(/out of bounds/);
    expect(() => decodeFrame(new Uint8Array([2, 0, 0, 0, 0xc3, 0x28]))).toThrow(/not UTF-8 JSON/);
  });
});
