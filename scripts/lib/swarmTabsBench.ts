// The tab rows of `npm run bench -- --swarm` (llvmpipe: the swarm's specs run there too), driven
// through Playwright in one headless Chromium:
//   - rollout tokens/s of a real swarm run with 1, 2 and 3 tabs (the leader alone plays its own
//     rollouts; with 2 or 3 tabs the others play them and the leader trains), over the part of the
//     run after every rollout tab has delivered, with the speed-up against 1 tab;
//   - the same 3-tab run with one rollout tab frozen for a while (what Chrome does to a background
//     tab, emulated as e2e/swarm-freeze.spec.ts does: headless Chromium neither hides nor freezes
//     pages itself), tokens/s while it is frozen against the plain 3-tab run, and what the leader saw;
//   - weight broadcast of 10 M parameters (40 MB float32) from one tab to another over the tabs
//     transport and over libp2p (WebRTC through a relay on 127.0.0.1), with ratios to one plain
//     BroadcastChannel post of the same bytes.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { BenchResult } from '../../src/app/bench/registry';
import type { BenchReport } from '../../src/app/bench/report';
import type { SwarmView } from '../../src/shard/session';
import { launchChromium } from './browser';
import { startRelay } from './relayNode';

const row = (name: string, unit: string, value: number | null, samples: number, note?: string, error?: string): BenchResult => ({
  name, unit, value, peers: { 'tfjs-webgpu': null, 'ort-webgpu': null }, samples, ...(note ? { note } : {}), ...(error ? { error } : {}),
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const msg = (e: unknown) => (e instanceof Error ? e.message.split('\n')[0] : String(e));

/** The run every tab count plays: nano from scratch, GRPO only, 4 tasks × G 4 × 32 new tokens per step. */
function swarmConfig(steps: number) {
  return {
    version: 1, preset: 'nano', seed: 11, tasks: [{ family: 'function-calling', level: 'route4' }],
    context: { maxTotalTokens: 288, maxNewTokensPerTurn: 32, maxTurns: 1 },
    stages: [{ kind: 'grpo', steps, tasksPerStep: 4, groupSize: 4, lr: 1e-3, staleness: 1, samplingRounds: 1, klCoef: 0 }],
  };
}
export const SWARM_WORKLOAD = 'nano (0.43 M params), route4, GRPO 4 tasks × G 4 × 32 new tokens per step, staleness 1';

const view = (p: Page) => p.evaluate(() => window.tabforgeSwarm.view()) as Promise<SwarmView>;

interface RolloutRun {
  tokensPerSecond: number;
  seconds: number;
  tokens: number;
  /** Only for the frozen run: tokens/s while the tab was frozen, and what the leader saw. */
  frozen?: { tokensPerSecond: number; seconds: number; detectMs: number; silentSeconds: number; reassigned: number; late: number };
}

async function rolloutRun(context: BrowserContext, base: string, tabs: number, steps: number, freezeMs = 0, log: (l: string) => void = () => {}): Promise<RolloutRun> {
  const config = swarmConfig(steps);
  const query = '?adapter=compatibility';
  const lead = await context.newPage();
  await lead.goto(`${base}/${query}`);
  await lead.waitForFunction(() => window.tabforgeSwarm !== undefined);
  const url = await lead.evaluate((c) => window.tabforgeSwarm.start({ config: c as never }), config);
  const others: Page[] = [];
  for (let i = 1; i < tabs; i++) {
    const p = await context.newPage();
    await p.goto(`${base}/${query}${new URL(url).hash}`);
    others.push(p);
  }
  const ids: string[] = [];
  for (const p of others) {
    await p.waitForFunction(() => window.tabforgeSwarm?.view()?.role === 'rollout', undefined, { timeout: 120_000 });
    ids.push((await view(p)).selfId);
  }
  // the window opens once every rollout tab has delivered (1 tab: once the leader's own actor has)
  const who = ids.length ? ids : ['local'];
  await lead.waitForFunction((w) => { const s = window.tabforgeSwarm.view()!.scheduler; return !!s && w.every((id) => (s.trajectoriesBy[id] ?? 0) > 0); }, who, { timeout: 300_000, polling: 100 });
  const t0 = Date.now();
  const tok0 = (await view(lead)).scheduler!.generatedTokens;
  log(`${tabs} tab(s): all delivering; measuring until the run ends`);
  let frozen: RolloutRun['frozen'];
  if (freezeMs > 0) frozen = await freezeWindow(context, lead, others.at(-1)!, ids.at(-1)!, freezeMs);
  await lead.waitForFunction(() => ['done', 'failed'].includes(window.tabforgeSwarm.view()!.state), undefined, { timeout: 900_000, polling: 100 });
  const end = await view(lead);
  if (end.state !== 'done') throw new Error(`the ${tabs}-tab run failed: ${end.error}`);
  const seconds = (Date.now() - t0) / 1000;
  const tokens = end.scheduler!.generatedTokens - tok0;
  for (const p of [lead, ...others]) await p.close();
  return { tokensPerSecond: tokens / seconds, seconds, tokens, frozen };
}

// As text: tsx would wrap the getter in a helper (__name) the page does not have.
// Frozen while it plays a chunk when it gets one within 5 s (chunks take a second or two here).
const FREEZE_EVENTS = `new Promise(function (done) {
  var until = performance.now() + 5000;
  (function poll() {
    if (!window.tabforgeSwarm.view().self.busy && performance.now() < until) return void setTimeout(poll, 1);
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: function () { return 'hidden'; } });
    document.dispatchEvent(new Event('visibilitychange'));
    document.dispatchEvent(new Event('freeze'));
    done();
  })();
})`;
const RESUME_EVENTS = `delete document.visibilityState;
document.dispatchEvent(new Event('resume'));
document.dispatchEvent(new Event('visibilitychange'));`;

/** Freezes one rollout tab (events, then its JavaScript stops) for `ms`; what the leader saw meanwhile. */
async function freezeWindow(context: BrowserContext, lead: Page, tab: Page, id: string, ms: number): Promise<NonNullable<RolloutRun['frozen']>> {
  const cdp: CDPSession = await context.newCDPSession(tab);
  const pre = await view(lead); // counters before the freeze
  await tab.evaluate(FREEZE_EVENTS);
  const t0 = Date.now();
  const before = await view(lead); // tokens from the freeze on
  await cdp.send('Debugger.enable');
  await cdp.send('Debugger.pause');
  await lead.waitForFunction((x) => window.tabforgeSwarm.view()!.members.find((m) => m.id === x)?.lifecycle === 'frozen', id, { polling: 10, timeout: 30_000 });
  const detectMs = Date.now() - t0;
  await lead.waitForTimeout(Math.max(0, ms - detectMs));
  const during = await view(lead);
  const silentSeconds = await lead.evaluate((x) => (performance.now() - window.tabforgeSwarm.view()!.members.find((m) => m.id === x)!.lastSeen) / 1000, id);
  const seconds = (Date.now() - t0) / 1000;
  await cdp.send('Debugger.resume');
  await cdp.send('Debugger.disable');
  await tab.evaluate(RESUME_EVENTS);
  return {
    tokensPerSecond: (during.scheduler!.generatedTokens - before.scheduler!.generatedTokens) / seconds, seconds, detectMs, silentSeconds,
    reassigned: during.scheduler!.frozenReassigned - pre.scheduler!.frozenReassigned, late: during.scheduler!.lateOrDuplicateResults,
  };
}

const TEN_M = 10_000_000;

async function broadcastRows(browser: Browser, base: string, repeats: number, log: (l: string) => void): Promise<BenchResult[]> {
  const context = await browser.newContext();
  const rows: BenchResult[] = [];
  try {
    const [rx, tx] = [await context.newPage(), await context.newPage()];
    for (const p of [rx, tx]) {
      await p.goto(`${base}/bench.html`);
      await p.waitForFunction(() => window.tabforgeSwarmWire !== undefined);
    }
    const run = `bench-${Date.now()}`;
    await rx.evaluate(([r, n]) => { window.tabforgeSwarmWire.listenTabs(r, 'bench-rx', n); window.tabforgeSwarmWire.listenRaw(r); }, [run, TEN_M] as const);
    const tabs = await tx.evaluate(([r, n, k]) => window.tabforgeSwarmWire.sendTabs(r, 'bench-rx', n, k), [run, TEN_M, repeats + 1] as const);
    const raw = await tx.evaluate(([r, n, k]) => window.tabforgeSwarmWire.sendRaw(r, n, k), [run, TEN_M, repeats + 1] as const);
    const [tabsMs, rawMs] = [median(tabs.slice(1)), median(raw.slice(1))]; // the first send warms up
    log(`broadcast: tabs ${tabsMs.toFixed(0)} ms, raw BroadcastChannel ${rawMs.toFixed(0)} ms per 40 MB`);
    rows.push(row('swarm weight broadcast tabs per 10M params', 'ms', tabsMs, repeats, `40 MB float32 in 40 fragments of 1 MiB over BroadcastChannel, reassembled, schema/size-checked and finite-checked, until the receiver's answer; ${(tabsMs / rawMs).toFixed(2)}× one plain BroadcastChannel post of the same bytes (${rawMs.toFixed(0)} ms)`));
    rows.push(row('swarm weight broadcast tabs / plain BroadcastChannel post', '×', tabsMs / rawMs, repeats));
    let relay: Awaited<ReturnType<typeof startRelay>> | null = null;
    try {
      relay = await startRelay({ host: '127.0.0.1', port: 0 });
      const addr = relay.addresses[0];
      const peer = await rx.evaluate(([a, n]) => window.tabforgeSwarmWire.listenLibp2p(a, n), [addr, TEN_M] as const);
      const p2p = await tx.evaluate(([a, to, n, k]) => window.tabforgeSwarmWire.sendLibp2p(a, to, n, k), [addr, peer, TEN_M, repeats + 1] as const);
      const p2pMs = median(p2p.slice(1));
      log(`broadcast: libp2p ${p2pMs.toFixed(0)} ms per 40 MB`);
      rows.push(row('swarm weight broadcast libp2p per 10M params', 'ms', p2pMs, repeats, `the same message over js-libp2p: WebRTC data channel between two pages of one browser on 127.0.0.1 (signalled through a local circuit relay), noise + yamux, 1 MiB frames; ${(p2pMs / tabsMs).toFixed(2)}× the tabs transport`));
      rows.push(row('swarm weight broadcast libp2p / tabs', '×', p2pMs / tabsMs, repeats));
    } catch (e) {
      rows.push(row('swarm weight broadcast libp2p per 10M params', 'ms', null, 0, undefined, msg(e)));
    } finally {
      await relay?.stop();
    }
  } finally {
    await context.close();
  }
  return rows;
}

export async function swarmTabRows(base: string, opts: { quick: boolean }, log: (l: string) => void): Promise<BenchReport> {
  const browser = await launchChromium({ adapter: 'llvmpipe' });
  const results: BenchResult[] = [];
  try {
    try {
      results.push(...(await broadcastRows(browser, base, opts.quick ? 1 : 3, log)));
    } catch (e) {
      results.push(row('swarm weight broadcast tabs per 10M params', 'ms', null, 0, undefined, msg(e)));
    }
    const steps = opts.quick ? 6 : 12;
    const runs = new Map<number, RolloutRun>();
    for (const tabs of [1, 2, 3]) {
      const context = await browser.newContext();
      try {
        const r = await rolloutRun(context, base, tabs, steps, 0, log);
        runs.set(tabs, r);
        log(`${tabs} tab(s): ${r.tokensPerSecond.toFixed(1)} tokens/s over ${r.seconds.toFixed(0)} s`);
        results.push(row(`swarm rollout tokens/s ${tabs} tab${tabs > 1 ? 's' : ''}`, 'tokens/s', r.tokensPerSecond, 1, `${r.tokens} tokens in ${r.seconds.toFixed(1)} s after every rollout tab delivered; ${SWARM_WORKLOAD}, ${steps} steps; ${tabs === 1 ? 'the leader plays and trains' : `the leader trains, ${tabs - 1} tab${tabs > 2 ? 's play' : ' plays'}`}`));
      } catch (e) {
        results.push(row(`swarm rollout tokens/s ${tabs} tab${tabs > 1 ? 's' : ''}`, 'tokens/s', null, 0, undefined, msg(e)));
      } finally {
        await context.close();
      }
    }
    const one = runs.get(1);
    for (const tabs of [2, 3]) {
      const r = runs.get(tabs);
      results.push(row(`swarm rollout speed-up ${tabs} tabs / 1 tab`, '×', one && r ? r.tokensPerSecond / one.tokensPerSecond : null, 1, undefined, one && r ? undefined : 'a run it needs failed'));
    }
    const context = await browser.newContext();
    try {
      const r = await rolloutRun(context, base, 3, steps + 8, opts.quick ? 4000 : 8000, log);
      const f = r.frozen!;
      const plain = runs.get(3);
      results.push(row('swarm rollout tokens/s 3 tabs, one frozen', 'tokens/s', f.tokensPerSecond, 1,
        `while one of the 2 rollout tabs was frozen for ${f.seconds.toFixed(1)} s: the leader marked it frozen ${f.detectMs} ms after the freeze event (CDP round trips included), heard no heartbeat from it for ${f.silentSeconds.toFixed(1)} s and did not remove it, took back ${f.reassigned} chunk(s); ${plain ? `${(f.tokensPerSecond / plain.tokensPerSecond).toFixed(2)}× the plain 3-tab run` : ''}`));
      results.push(row('swarm rollout one tab frozen / 3 tabs', '×', plain ? f.tokensPerSecond / plain.tokensPerSecond : null, 1, undefined, plain ? undefined : 'the plain 3-tab run failed'));
    } catch (e) {
      results.push(row('swarm rollout tokens/s 3 tabs, one frozen', 'tokens/s', null, 0, undefined, msg(e)));
    } finally {
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return {
    adapter: { kind: 'llvmpipe-tabs', description: 'headless Chromium, llvmpipe (compatibility), one page per tab, pages of one browser context', featureLevel: 'compatibility', vendor: '', architecture: '' },
    results,
  };
}
