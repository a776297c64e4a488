// A swarm run across two browser instances (separate profiles, as two machines would be) through a
// circuit-relay-v2 node on 127.0.0.1 (scripts/lib/relayNode.ts, what `npm run relay` starts): the
// second browser joins through the link, plays rollouts over WebRTC, and the leader's metrics count
// its trajectories; a link with a wrong secret is refused with a clear message on the page. Then data
// parallel across the two browsers: their SFT losses are one tab's at the same global batch, their
// gradients crossing the WebRTC link every step.
import { type Browser, chromium, expect, type Page, test } from '@playwright/test';
import { startRelay } from '../scripts/lib/relayNode';
import { expectOneTabsRun, MICRO_MODEL, swarmRunConfig, swarmSftConfig } from './swarmFixtures';

const CONFIG = swarmRunConfig(6, 200);
const TIMING = [250, 4000, 30000] as const;

const view = (p: Page) => p.evaluate(() => window.tabforgeSwarm.view());
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

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

test('data parallel across two browsers through a local relay: one tab\'s SFT losses and weights, the gradients over WebRTC', async ({}, info) => {
  const { launchOptions, baseURL } = info.project.use as { launchOptions: Parameters<typeof chromium.launch>[0]; baseURL: string };
  const level = info.project.metadata.featureLevel as string;
  const query = `?adapter=${level}&swarmTiming=${DP_TIMING.join(',')}`;
  const relay = await startRelay({ host: '127.0.0.1', port: 0 });
  const browsers: Browser[] = [];
  const lines: string[] = [];
  const STEPS = 6;
  const config = swarmSftConfig(7, STEPS);
  const start = (p: Page, opts: { relay?: string; world: number }) => p.evaluate(([c, m, r, w, t]) => window.tabforgeSwarm.start({
    config: c as never, model: m as never, relay: r || undefined, dp: { world: w }, timing: { heartbeatMs: t[0], silenceMs: t[1], chunkDeadlineMs: t[2], collectiveTimeoutMs: t[3] },
  }), [config, MICRO_MODEL, opts.relay ?? '', opts.world, DP_TIMING] as const);
  const ended = (p: Page) => p.waitForFunction(() => ['done', 'failed', 'refused'].includes(window.tabforgeSwarm.view()!.state), undefined, { timeout: 180_000 });
  try {
    const open = async (name: string, hash = '') => {
      const browser = await chromium.launch(launchOptions);
      browsers.push(browser);
      const page = await (await browser.newContext({ baseURL })).newPage();
      page.on('console', (m) => lines.push(`${name}: ${m.text()}`));
      await page.goto(`/${query}${hash}`);
      await page.waitForFunction(() => window.tabforgeSwarm !== undefined);
      return page;
    };
    const a = await open('a');
    const url = await start(a, { relay: relay.addresses[0], world: 2 });
    const b = await open('b', new URL(url).hash);
    // the reference: the plain pipeline in one tab (world 1, no gradient shard), in a third browser
    const one = await open('one');
    await start(one, { world: 1 });
    for (const p of [a, b, one]) await ended(p);
    const [va, vb] = [await view(a), await view(b)];
    for (const v of [va, vb, await view(one)]) expect(v!.error).toBeNull();
    expect(va!.dp).toEqual({ world: 2, rank: 0, ranks: [va!.selfId, vb!.selfId] });
    expect(vb!.dp?.rank).toBe(1);
    await expect(b.getByTestId('swarm-status')).toContainText('rank 1 of 2');
    const [want, ra, rb] = await Promise.all([one, a, b].map((p) => p.evaluate(() => window.tabforgeSwarm.result()!)));
    expectOneTabsRun(want, [ra, rb], STEPS);
    // every step each rank sent its whole gradient (4 bytes a parameter) to the other and got the other's back
    const bytes = STEPS * 4 * ra.weights!.length;
    for (const r of [ra, rb]) expect(r.gradientExchange).toEqual({ steps: STEPS, bytesSent: bytes, bytesReceived: bytes });
    expect(want.gradientExchange).toBeNull(); // one tab: the plain pipeline
    // a link over the relay for three machines is refused before anything starts, saying why
    const fresh = await (await browsers[2].newContext({ baseURL })).newPage(); // a tab in no run
    await fresh.goto(`/${query}`);
    await fresh.waitForFunction(() => window.tabforgeSwarm !== undefined);
    const three = await fresh.evaluate(([c, m, r]) => window.tabforgeSwarm.start({ config: c as never, model: m as never, relay: r, dp: { world: 3 } }).then(() => 'started', (e: Error) => e.message), [config, MICRO_MODEL, relay.addresses[0]] as const);
    expect(three).toMatch(/at most 2 members/);
  } catch (e) {
    await info.attach('console of the pages', { body: lines.join('\n'), contentType: 'text/plain' });
    console.log(lines.join('\n'));
    throw e;
  } finally {
    for (const b of browsers) await b.close().catch(() => {});
    await relay.stop();
  }
});
