// A swarm run across three tabs of one browser (src/shard through the page's swarm panel): Web Locks
// elect the first tab, the two others play its rollouts over BroadcastChannel; a rollout tab closes
// mid-run (the run goes on), then the leader closes and the next tab resumes from the newest
// checkpoint in IndexedDB and finishes. Every GRPO step's tasks are trained exactly once along the
// run's history. The micro model (1 layer, hidden 32) keeps it to ~10 s on llvmpipe (it does not
// learn here: the point is who plays, who trains, and that nothing is lost or trained twice).
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { MICRO_MODEL, swarmRunConfig } from './swarmFixtures';

const STEPS = 60; // the leader plays alone (fast) until the rollout tabs have joined: enough steps that they join mid-run
const CONFIG = swarmRunConfig(5, STEPS);
/** heartbeat, silence window, chunk deadline (ms): the query string's test knob (swarmHooks.ts). */
const TIMING = [250, 4000, 30000] as const;

const view = (p: Page) => p.evaluate(() => window.tabforgeSwarm.view());

test('three tabs: elect, two rollout tabs, a rollout tab and then the leader close; the run finishes, each step trained once', async ({ context }, info) => {
  const lines: string[] = []; // the pages' console (swarm log lines), attached when the test fails
  context.on('console', (m) => lines.push(m.text()));
  context.on('weberror', (e) => lines.push(`page error: ${e.error().message}`));
  try {
    await threeTabs(context, info.project.metadata.featureLevel as string);
  } catch (e) {
    await info.attach('console of the pages', { body: lines.join('\n'), contentType: 'text/plain' });
    console.log(lines.filter((l) => !/grpo step/.test(l)).join('\n'));
    throw e;
  }
});

async function threeTabs(context: BrowserContext, level: string): Promise<void> {
  const query = `?adapter=${level}&swarmTiming=${TIMING.join(',')}`;
  const a = await context.newPage();
  await a.goto(`/${query}`);
  await a.waitForFunction(() => window.tabforgeSwarm !== undefined);
  const url = await a.evaluate(([config, model, t]) => window.tabforgeSwarm.start({ config: config as never, model: model as never, timing: { heartbeatMs: t[0], silenceMs: t[1], chunkDeadlineMs: t[2] } }), [CONFIG, MICRO_MODEL, TIMING] as const);
  const hash = new URL(url).hash;
  expect(hash).toMatch(/^#swarm=/);
  await expect(a.getByTestId('swarm-link')).toHaveValue(url);
  const [b, c] = [await context.newPage(), await context.newPage()];
  for (const p of [b, c]) await p.goto(`/${query}${hash}`);
  for (const p of [b, c]) await p.waitForFunction(() => window.tabforgeSwarm?.view()?.role === 'rollout', undefined, { timeout: 60_000 });
  const [bId, cId] = [(await view(b))!.selfId, (await view(c))!.selfId];
  // the leader trains with both rollout tabs' trajectories
  await a.waitForFunction(([x, y]) => { const v = window.tabforgeSwarm.view()!; return v.step >= 2 && (v.trajectoriesBy[x] ?? 0) > 0 && (v.trajectoriesBy[y] ?? 0) > 0; }, [bId, cId], { timeout: 120_000 });
  expect((await view(a))!.role).toBe('leader');
  await expect(a.getByTestId('swarm-members').locator(`tr[data-member="${bId}"]`)).toContainText('rollout');
  // a rollout tab closes mid-run: the run goes on
  const stepAtClose = (await view(a))!.step;
  await c.close();
  await a.waitForFunction((s) => window.tabforgeSwarm.view()!.step >= s + 2, stepAtClose, { timeout: 120_000 });
  expect((await view(a))!.state).toBe('running');
  // the leader closes: b takes over from the newest checkpoint and finishes
  const aTrained = await a.evaluate(() => window.tabforgeSwarm.trained());
  await a.close();
  await b.waitForFunction(() => ['done', 'failed'].includes(window.tabforgeSwarm.view()!.state), undefined, { timeout: 180_000 });
  const vb = (await view(b))!;
  expect(vb.error).toBeNull();
  expect(vb.state).toBe('done');
  expect(vb.role).toBe('leader');
  expect(vb.notes.join('\n')).toMatch(/this tab took over as leader: resuming from checkpoint rl-\d+/);
  await expect(b.getByTestId('swarm-notes')).toContainText('took over as leader');
  const bTrained = await b.evaluate(() => window.tabforgeSwarm.trained());
  const resumedAt = Math.min(...bTrained.map(([s]) => s)) - 1;
  expect(resumedAt).toBeGreaterThanOrEqual(1);
  const history = new Map([...aTrained.filter(([s]) => s <= resumedAt), ...bTrained]);
  expect([...history.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
  for (const [step, ids] of history) {
    expect(ids.length, `step ${step}`).toBe(4); // 2 tasks × G 2, none lost, none twice
    expect(new Set(ids).size, `step ${step}`).toBe(2);
  }
  // different steps train different tasks (a step trained twice with one chunk's tasks would repeat them)
  const allTasks = [...history.values()].flatMap((ids) => [...new Set(ids)]);
  expect(new Set(allTasks).size).toBe(allTasks.length);
}
