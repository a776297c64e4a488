// A swarm run across two browser instances (separate profiles, as two machines would be) through a
// circuit-relay-v2 node on 127.0.0.1 (scripts/lib/relayNode.ts, what `npm run relay` starts): the
// second browser joins through the link, plays rollouts over WebRTC, and the leader's metrics count
// its trajectories; a link with a wrong secret is refused with a clear message on the page. Then data
// parallel across three browsers: their SFT losses are one tab's at the same global batch, their
// gradients crossing the WebRTC links via rank 0 every step; and a run stopped by a closed page
// resumes when the leader's page reloads and a new machine joins (the checkpoint sent to it).
import { type Browser, chromium, expect, type Page, test } from '@playwright/test';
import { startRelay } from '../scripts/lib/relayNode';
import { expectOneTabsRun, MICRO_MODEL, swarmRunConfig, swarmSftConfig } from './swarmFixtures';

const CONFIG = swarmRunConfig(6, 200);
const TIMING = [250, 4000, 30000] as const;

const view = (p: Page) => p.evaluate(() => window.tabforgeSwarm.view());
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
/** The leader keys this page's browser keeps (leaderIdentity.ts), run in the page. */
const leaderKeys = () => Object.keys(localStorage).filter((k) => k.startsWith('tabforge-swarm-leader-key/'));

test('two browsers through a local relay: the second joins by the link and plays rollouts; a wrong secret is refused', async ({}, info) => {
  const { launchOptions, baseURL } = info.project.use as { launchOptions: Parameters<typeof chromium.launch>[0]; baseURL: string };
  const level = info.project.metadata.featureLevel as string;
  const query = `?adapter=${level}&swarmTiming=${TIMING.join(',')}`;
  const relay = await startRelay({ host: '127.0.0.1', port: 0 }); // a free port the system picks
  const browsers: Browser[] = [];
  const lines: string[] = [];
  try {
    const open = async (name: string) => {
      const browser = await chromium.launch(launchOptions);
      browsers.push(browser);
      const page = await (await browser.newContext({ baseURL })).newPage();
      page.on('console', (m) => lines.push(`${name}: ${m.text()}`));
      return page;
    };
    const a = await open('a');
    await a.goto(`/${query}`);
    await a.waitForFunction(() => window.tabforgeSwarm !== undefined);
    const url = await a.evaluate(([config, model, relayAddr, t]) => window.tabforgeSwarm.start({ config: config as never, model: model as never, relay: relayAddr, timing: { heartbeatMs: t[0], silenceMs: t[1], chunkDeadlineMs: t[2] } }), [CONFIG, MICRO_MODEL, relay.addresses[0], TIMING] as const);
    const hash = new URL(url).hash;
    // the leader keeps its libp2p key while the run goes on (to lead it again after a reload) …
    expect(await a.evaluate(leaderKeys)).toHaveLength(1);
    const b = await open('b');
    await b.goto(`/${query}${hash}`);
    await b.waitForFunction(() => window.tabforgeSwarm?.view()?.role === 'rollout', undefined, { timeout: 60_000 });
    const bId = (await view(b))!.selfId;
    await a.waitForFunction((id) => { const v = window.tabforgeSwarm.view()!; return v.state === 'done' || (v.trajectoriesBy[id] ?? 0) > 0; }, bId, { timeout: 120_000 });
    expect((await view(a))!.trajectoriesBy[bId]).toBeGreaterThan(0);
    // the same link with another secret: refused, and the page says why
    const link = JSON.parse(Buffer.from(hash.replace('#swarm=', ''), 'base64url').toString('utf8')) as { secret: string };
    const wrong = `#swarm=${b64(JSON.stringify({ ...link, secret: `${link.secret}x` }))}`;
    const c = await open('c');
    await c.goto(`/${query}${wrong}`);
    await c.waitForFunction(() => window.tabforgeSwarm?.view()?.state === 'refused', undefined, { timeout: 60_000 });
    await expect(c.getByTestId('swarm-error')).toContainText(/secret/i);
    await a.waitForFunction(() => window.tabforgeSwarm.view()!.state === 'done', undefined, { timeout: 300_000 });
    expect((await view(a))!.error).toBeNull();
    // … and removes it once the run has finished (nobody leads a finished run)
    await a.waitForFunction(() => Object.keys(localStorage).every((k) => !k.startsWith('tabforge-swarm-leader-key/')), undefined, { timeout: 10_000 });
  } catch (e) {
    await info.attach('console of the pages', { body: lines.join('\n'), contentType: 'text/plain' });
    console.log(lines.filter((l) => !/grpo step/.test(l)).join('\n'));
    throw e;
  } finally {
    for (const b of browsers) await b.close().catch(() => {});
    await relay.stop();
  }
});

/** heartbeat, silence window, chunk deadline, collective timeout (ms): nobody leaves; generous waits for a loaded machine. */
const DP_TIMING = [250, 8000, 600_000, 60_000] as const;

test('data parallel across three browsers through a local relay: one tab\'s SFT losses and weights; stopped, the leader\'s page reloads and resumes with a new machine', async ({}, info) => {
  const { launchOptions, baseURL } = info.project.use as { launchOptions: Parameters<typeof chromium.launch>[0]; baseURL: string };
  const level = info.project.metadata.featureLevel as string;
  const query = `?adapter=${level}&swarmTiming=${DP_TIMING.join(',')}`;
  const relay = await startRelay({ host: '127.0.0.1', port: 0 });
  const browsers: Browser[] = [];
  const lines: string[] = [];
  const STEPS = 6;
  const config = swarmSftConfig(7, STEPS);
  const start = (p: Page, opts: { relay?: string; world: number; config?: unknown }) => p.evaluate(([c, m, r, w, t]) => window.tabforgeSwarm.start({
    config: c as never, model: m as never, relay: r || undefined, dp: { world: w }, timing: { heartbeatMs: t[0], silenceMs: t[1], chunkDeadlineMs: t[2], collectiveTimeoutMs: t[3] },
  }), [opts.config ?? config, MICRO_MODEL, opts.relay ?? '', opts.world, DP_TIMING] as const);
  const ended = (p: Page) => p.waitForFunction(() => ['done', 'failed', 'refused'].includes(window.tabforgeSwarm.view()!.state), undefined, { timeout: 180_000 });
  const result = (p: Page) => p.evaluate(() => window.tabforgeSwarm.result()!);
  try {
    /** A page in a new browser (a machine of its own), or in `browser` (the same profile). */
    const open = async (name: string, hash = '', browser?: Browser) => {
      if (!browser) browsers.push((browser = await chromium.launch(launchOptions)));
      const page = await (browser.contexts()[0] ?? (await browser.newContext({ baseURL }))).newPage();
      page.on('console', (m) => lines.push(`${name}: ${m.text()}`));
      await page.goto(`/${query}${hash}`);
      await page.waitForFunction(() => window.tabforgeSwarm !== undefined);
      return page;
    };
    const a = await open('a');
    const url = await start(a, { relay: relay.addresses[0], world: 3 });
    const b = await open('b', new URL(url).hash);
    const c = await open('c', new URL(url).hash);
    // the reference: the plain pipeline in one tab (world 1, no gradient shard), in a fourth browser
    const one = await open('one');
    await start(one, { world: 1 });
    for (const p of [a, b, c, one]) await ended(p);
    const [va, vb, vc] = [await view(a), await view(b), await view(c)];
    for (const v of [va, vb, vc, await view(one)]) expect(v!.error).toBeNull();
    expect(va!.dp).toEqual({ world: 3, rank: 0, ranks: [va!.selfId, expect.any(String), expect.any(String)] });
    expect(new Set([vb!.dp?.rank, vc!.dp?.rank])).toEqual(new Set([1, 2]));
    expect(new Set(va!.dp!.ranks.slice(1))).toEqual(new Set([vb!.selfId, vc!.selfId]));
    await expect(b.getByTestId('swarm-status')).toContainText('of 3');
    const [want, ra, rb, rc] = await Promise.all([one, a, b, c].map(result));
    expectOneTabsRun(want, [ra, rb, rc], STEPS);
    // the gradients are reduced at rank 0 (dataParallel.ts, collective.ts reduceAtRank0): every step a
    // joiner sent its gradient (4 bytes a parameter) to rank 0 and got the sum back; rank 0 got 2
    // gradients and sent the sum twice — not the 4 copies forwarding every gradient would cost
    const bytes = STEPS * 4 * ra.weights!.length;
    expect(ra.gradientExchange).toEqual({ steps: STEPS, bytesSent: 2 * bytes, bytesReceived: 2 * bytes });
    for (const r of [rb, rc]) expect(r.gradientExchange).toEqual({ steps: STEPS, bytesSent: bytes, bytesReceived: bytes });
    expect(want.gradientExchange).toBeNull(); // one tab: the plain pipeline

    // Stop and resume across machines: a 2-machine run of 16 steps; b's page closes after 3 steps (the
    // run stops); a's page reloads (it leads again: its peer id is kept) and resumes from its newest
    // checkpoint with a machine that never saw the run (c's browser), which gets the checkpoint over
    // WebRTC; the steps after it are the one tab's.
    const LONG = 16;
    const long = swarmSftConfig(8, LONG);
    const a2 = await open('a2', '', browsers[0]);
    const url2 = await start(a2, { relay: relay.addresses[0], world: 2, config: long });
    const b2 = await open('b2', new URL(url2).hash, browsers[1]);
    const one2 = await open('one2', '', browsers[3]);
    await start(one2, { world: 1, config: long });
    await a2.waitForFunction(() => window.tabforgeSwarm.result()!.sftLosses.length >= 3, undefined, { timeout: 120_000 });
    await b2.close(); // gone without a word: its WebRTC connection closes
    await ended(a2);
    const stopped = await view(a2);
    expect(stopped!.error).toMatch(/rank 1 .* left/);
    const done = (await result(a2)).sftLosses.length;
    expect(done).toBeLessThan(LONG);
    expect(stopped!.notes.join('\n')).toMatch(/reopen the run's link on this machine, then on 1 other\(s\), to resume from the newest/);
    const leader = stopped!.selfId;
    await a2.reload();
    await a2.waitForFunction(() => window.tabforgeSwarm?.view()?.role === 'leader' || window.tabforgeSwarm?.view()?.state === 'failed', undefined, { timeout: 60_000 });
    expect((await view(a2))!.selfId).toBe(leader); // the same peer id: the link still names it
    const d = await open('d', new URL(url2).hash, browsers[2]);
    for (const p of [a2, d, one2]) await ended(p);
    const [vr0, vr1] = [await view(a2), await view(d)];
    for (const v of [vr0, vr1]) expect(v!.error).toBeNull();
    expect(vr0!.notes.join('\n')).toMatch(/sent checkpoint \S+ to the other 1 machine\(s\)/);
    expect(vr1!.notes.join('\n')).toMatch(/received rank 0's checkpoint \S+ into this machine's store: \d+ chunks, \d+ bytes, every checksum right/);
    const [want2, r0, r1] = await Promise.all([one2, a2, d].map(result));
    const after = want2.sftLosses.slice(done);
    expect(r0.sftLosses.length).toBe(after.length);
    expectOneTabsRun({ ...want2, sftLosses: after }, [r0, r1], after.length);
  } catch (e) {
    await info.attach('console of the pages', { body: lines.join('\n'), contentType: 'text/plain' });
    console.log(lines.join('\n'));
    throw e;
  } finally {
    for (const b of browsers) await b.close().catch(() => {});
    await relay.stop();
  }
});
