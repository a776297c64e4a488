// A rollout tab frozen mid-run (src/shard through the page): three tabs of one browser, the first
// leads, the two others play its rollouts; one rollout tab goes hidden and frozen as Chrome freezes a
// background tab, stays frozen longer than the silence window, then resumes. Headless Chromium
// neither hides nor freezes a page (measured: Page.setWebLifecycleState 'frozen' is accepted and
// changes nothing, and background or minimised targets stay 'visible'), so the test does what
// Chrome does: the page hears `visibilitychange` (hidden) and `freeze`, then its JavaScript stops
// (CDP Debugger.pause: timers, messages and its rollout actor wait) until `resume`.
// Checks: the leader shows the tab as frozen and gives its chunk to the other tab at once; the run
// finishes with every step trained on 2 tasks × G 2, no task twice; the tab comes back and plays
// again; its late answer is ignored. Micro model: ~20 s on llvmpipe.
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { MICRO_MODEL, swarmRunConfig } from './swarmFixtures';

const STEPS = 120; // ~8 steps/s here: enough that the run outlasts the freeze
const CONFIG = swarmRunConfig(7, STEPS);
/** heartbeat, silence window, chunk deadline (ms): a deadline far beyond the test, so only the freeze announcement re-assigns. */
const TIMING = [250, 2000, 600_000] as const;
const FROZEN_MS = 3500; // longer than the silence window (2 s): a silent tab would have been removed

const view = (p: Page) => p.evaluate(() => window.tabforgeSwarm.view()!);

test('a rollout tab frozen mid-run: its work goes to the other tab, the page shows it frozen, it comes back; every step trained once', async ({ context }, info) => {
  const lines: string[] = [];
  context.on('console', (m) => lines.push(m.text()));
  try {
    await frozenTab(context, info.project.metadata.featureLevel as string);
  } catch (e) {
    await info.attach('console of the pages', { body: lines.join('\n'), contentType: 'text/plain' });
    console.log(lines.filter((l) => !/grpo step/.test(l)).join('\n'));
    throw e;
  }
});

/** What Chrome does to a background tab it freezes: hidden, `freeze`, then no JavaScript runs (here: while it plays a chunk). */
async function freeze(p: Page, cdp: Awaited<ReturnType<BrowserContext['newCDPSession']>>): Promise<void> {
  // In the page's own turn while it plays a chunk (chunks take milliseconds here: a poll from the test would miss them)
  await p.evaluate(() => new Promise<void>((done) => {
    const poll = () => {
      if (!window.tabforgeSwarm.view()!.self.busy) return void setTimeout(poll, 1);
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
      document.dispatchEvent(new Event('freeze'));
      done();
    };
    poll();
  }));
  await cdp.send('Debugger.enable');
  await cdp.send('Debugger.pause');
}

async function thaw(p: Page, cdp: Awaited<ReturnType<BrowserContext['newCDPSession']>>): Promise<void> {
  await cdp.send('Debugger.resume');
  await cdp.send('Debugger.disable');
  await p.evaluate(() => {
    delete (document as { visibilityState?: unknown }).visibilityState; // back to the prototype's getters
    delete (document as { hidden?: unknown }).hidden;
    document.dispatchEvent(new Event('resume'));
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

async function frozenTab(context: BrowserContext, level: string): Promise<void> {
  const query = `?adapter=${level}&swarmTiming=${TIMING.join(',')}`;
  const a = await context.newPage();
  await a.goto(`/${query}`);
  await a.waitForFunction(() => window.tabforgeSwarm !== undefined);
  const url = await a.evaluate(([config, model, t]) => window.tabforgeSwarm.start({ config: config as never, model: model as never, timing: { heartbeatMs: t[0], silenceMs: t[1], chunkDeadlineMs: t[2] } }), [CONFIG, MICRO_MODEL, TIMING] as const);
  const hash = new URL(url).hash;
  const [b, c] = [await context.newPage(), await context.newPage()];
  for (const p of [b, c]) await p.goto(`/${query}${hash}`);
  for (const p of [b, c]) await p.waitForFunction(() => window.tabforgeSwarm?.view()?.role === 'rollout', undefined, { timeout: 60_000 });
  const [bId, cId] = [(await view(b)).selfId, (await view(c)).selfId];
  await a.waitForFunction(([x, y]) => { const v = window.tabforgeSwarm.view()!; return (v.scheduler?.trajectoriesBy[x] ?? 0) > 0 && (v.scheduler?.trajectoriesBy[y] ?? 0) > 0; }, [bId, cId], { timeout: 120_000 });
  // c is frozen while it plays a chunk (a busy tab: the leader must take the chunk back)
  const cdp = await context.newCDPSession(c);
  await freeze(c, cdp);
  const frozenAt = await view(a);
  await a.waitForFunction((id) => window.tabforgeSwarm.view()!.members.find((m) => m.id === id)?.lifecycle === 'frozen', cId, { timeout: 10_000 });
  await expect(a.getByTestId('swarm-members').locator(`tr[data-member="${cId}"]`)).toContainText('frozen');
  const t0 = Date.now();
  await a.waitForFunction((s) => window.tabforgeSwarm.view()!.step >= s + 3, frozenAt.step, { timeout: 60_000 }); // the run goes on without c
  await a.waitForTimeout(Math.max(0, FROZEN_MS - (Date.now() - t0)));
  const whileFrozen = await view(a);
  expect(whileFrozen.members.map((m) => m.id)).toContain(cId); // frozen, not removed after the 2 s silence window
  expect(whileFrozen.scheduler!.trajectoriesBy[cId]).toBe(frozenAt.scheduler!.trajectoriesBy[cId]); // nothing from c while frozen
  expect(whileFrozen.scheduler!.frozenReassigned).toBeGreaterThanOrEqual(1);
  expect(whileFrozen.state).toBe('running');
  await thaw(c, cdp);
  // c is back: listed as visible again, plays again, its answer to the taken-back chunk ignored
  await a.waitForFunction(([id, n]) => { const v = window.tabforgeSwarm.view()!; return v.members.find((m) => m.id === id)?.lifecycle === 'active' && (v.scheduler?.trajectoriesBy[id] ?? 0) > n; }, [cId, whileFrozen.scheduler!.trajectoriesBy[cId]] as const, { timeout: 60_000 });
  await a.waitForFunction(() => ['done', 'failed'].includes(window.tabforgeSwarm.view()!.state), undefined, { timeout: 180_000 });
  const end = await view(a);
  expect(end.error).toBeNull();
  expect(end.state).toBe('done');
  expect(end.scheduler!.lateOrDuplicateResults).toBeGreaterThanOrEqual(1);
  const trained = new Map(await a.evaluate(() => window.tabforgeSwarm.trained()));
  expect([...trained.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
  for (const [step, ids] of trained) {
    expect(ids.length, `step ${step}`).toBe(4); // 2 tasks × G 2: none lost, none twice
    expect(new Set(ids).size, `step ${step}`).toBe(2);
  }
  const tasks = [...trained.values()].flatMap((ids) => [...new Set(ids)]);
  expect(new Set(tasks).size).toBe(tasks.length);
  expect(b.isClosed()).toBe(false);
}
