// A swarm run across two browser instances (separate profiles, as two machines would be) through a
// circuit-relay-v2 node on 127.0.0.1 (scripts/lib/relayNode.ts, what `npm run relay` starts): the
// second browser joins through the link, plays rollouts over WebRTC, and the leader's metrics count
// its trajectories; a link with a wrong secret is refused with a clear message on the page.
import { type Browser, chromium, expect, type Page, test } from '@playwright/test';
import { startRelay } from '../scripts/lib/relayNode';
import { MICRO_MODEL, swarmRunConfig } from './swarmFixtures';

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
