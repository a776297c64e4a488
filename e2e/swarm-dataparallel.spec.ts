// Data parallel across tabs of one browser (src/shard/dataParallelRun.ts through the page's swarm
// API): two tabs at global batch B give the SFT losses of one tab at batch B (≤ 1e-5 relative) on
// every step and the same final weights (bit-identical on both ranks, ≤ 1e-4 from the one tab); a tab
// whose link names another seed is refused with the difference named. Then a rank closes mid-run:
// the other stops at once (the closing tab says bye), naming it, with rank 0's checkpoints intact, and
// trains no further.
// Micro model (1 layer, hidden 32).
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { readSwarmLink, swarmHash } from '../src/shard/link';
import { expectOneTabsRun, MICRO_MODEL, swarmSftConfig } from './swarmFixtures';

/** heartbeat, silence window, chunk deadline, collective timeout (ms): the swarm's timing (swarmHooks.ts); a wide silence window where nobody leaves. */
const CALM = [250, 8000, 600_000, 60_000] as const;
const LEAVING = [250, 2000, 600_000, 60_000] as const;
type Timing = typeof CALM | typeof LEAVING;
const QUERY = (level: string, t: Timing) => `?adapter=${level}&swarmTiming=${t.join(',')}`;

const view = (p: Page) => p.evaluate(() => window.tabforgeSwarm.view()!);

async function open(context: BrowserContext, level: string, t: Timing, hash = ''): Promise<Page> {
  const p = await context.newPage();
  await p.goto(`/${QUERY(level, t)}${hash}`);
  await p.waitForFunction(() => window.tabforgeSwarm !== undefined);
  return p;
}

async function start(p: Page, config: unknown, world: number, timing: Timing): Promise<string> {
  return p.evaluate(([c, m, w, t]) => window.tabforgeSwarm.start({ config: c as never, model: m as never, dp: { world: w }, timing: { heartbeatMs: t[0], silenceMs: t[1], chunkDeadlineMs: t[2], collectiveTimeoutMs: t[3] } }), [config, MICRO_MODEL, world, timing] as const);
}

const ended = (p: Page, ms = 120_000) => p.waitForFunction(() => ['done', 'failed', 'refused'].includes(window.tabforgeSwarm.view()!.state), undefined, { timeout: ms });

async function withConsole(context: BrowserContext, info: { attach: (n: string, o: { body: string; contentType: string }) => Promise<void> }, f: () => Promise<void>): Promise<void> {
  const lines: string[] = [];
  context.on('console', (m) => lines.push(m.text()));
  context.on('weberror', (e) => lines.push(`page error: ${e.error().message}`));
  try {
    await f();
  } catch (e) {
    await info.attach('console of the pages', { body: lines.join('\n'), contentType: 'text/plain' });
    console.log(lines.join('\n'));
    throw e;
  }
}

test('data parallel: two tabs give one tab\'s SFT losses and weights; a tab with another seed is refused', async ({ context }, info) => {
  const level = info.project.metadata.featureLevel as string;
  await withConsole(context, info, async () => {
    const STEPS = 8;
    const config = swarmSftConfig(3, STEPS);
    const one = await open(context, level, CALM);
    await start(one, config, 1, CALM); // the plain pipeline in one tab (no gradient shard)
    const r0 = await open(context, level, CALM);
    const url = await start(r0, config, 2, CALM);
    const hash = new URL(url).hash;
    // the same run and secret with another seed: refused, naming it
    const read = readSwarmLink(hash);
    if (read.kind !== 'ok') throw new Error('the page wrote an unreadable link');
    const other = await open(context, level, CALM, swarmHash({ ...read.link, config: { ...read.link.config, seed: 4 } }));
    const r1 = await open(context, level, CALM, hash);
    for (const p of [one, r0, r1, other]) await ended(p);
    const vo = await view(other);
    expect(vo.state).toBe('refused');
    expect(vo.error).toMatch(/this tab would train a different run than rank 0 \(.+\): config\.seed is 4 in this tab's link, 3 in rank 0's run/);
    await expect(other.getByTestId('swarm-error')).toContainText('config.seed is 4');
    const [v0, v1] = [await view(r0), await view(r1)];
    for (const v of [v0, v1, await view(one)]) expect(v.error).toBeNull();
    expect(v0.dp).toEqual({ world: 2, rank: 0, ranks: [v0.selfId, v1.selfId] });
    expect(v1.dp?.rank).toBe(1);
    await expect(r1.getByTestId('swarm-status')).toContainText('rank 1 of 2');
    const [want, a, b] = await Promise.all([one, r0, r1].map((p) => p.evaluate(() => window.tabforgeSwarm.result()!)));
    expectOneTabsRun(want, [a, b], STEPS);
  });
});

test('data parallel: a rank that closes mid-run stops the other with its name; rank 0 keeps its checkpoints', async ({ context }, info) => {
  const level = info.project.metadata.featureLevel as string;
  await withConsole(context, info, async () => {
    const r0 = await open(context, level, LEAVING);
    // the panel offers the mode: data parallel asks for the number of tabs
    await expect(r0.getByTestId('swarm-world')).toBeHidden();
    await r0.getByTestId('swarm-mode').selectOption('dp');
    await expect(r0.getByTestId('swarm-world')).toBeVisible();
    const url = await start(r0, swarmSftConfig(5, 2000), 2, LEAVING);
    const r1 = await open(context, level, LEAVING, new URL(url).hash);
    await r0.waitForFunction(() => window.tabforgeSwarm.result()!.sftLosses.length >= 3, undefined, { timeout: 60_000 });
    const r1Id = (await view(r1)).selfId;
    const t0 = Date.now();
    await r1.close();
    await ended(r0, 30_000);
    const stoppedAfter = Date.now() - t0;
    const v = await view(r0);
    expect(v.state).toBe('failed');
    expect(v.error).toContain(`rank 1 (${r1Id}) left (said bye: its tab closed)`); // pagehide: no silence window to wait out
    expect(v.error).toContain('the data-parallel run cannot go on without it');
    expect(v.notes.join('\n')).toMatch(/rank 0's checkpoints are intact: \S+/);
    await expect(r0.getByTestId('swarm-error')).toContainText(`rank 1 (${r1Id}) left`);
    const steps = (await r0.evaluate(() => window.tabforgeSwarm.result()!)).sftLosses.length;
    await r0.waitForTimeout(500);
    expect((await r0.evaluate(() => window.tabforgeSwarm.result()!)).sftLosses.length).toBe(steps); // it does not go on alone
    console.log(`rank 0 stopped ${stoppedAfter} ms after rank 1 closed (silence window ${LEAVING[1]} ms), after ${steps} steps`);
  });
});
