// The seam between the page and sharding (src/shard): the page's "Join" control on a run another tab
// is running calls swarmHooks().join() (the default says joining that way is not available: runs are
// shared through the swarm panel's link instead), and installSwarm() — called once by main.ts — mounts
// the swarm panel, joins the run of a `#swarm=…` link on load (every tab opened with the link joins;
// the first one leads), starts a new swarm run from the panel, and exposes `window.tabforgeSwarm` for
// headless drivers and the e2e tests.
import type { FeatureLevelChoice } from '../gpu/device';
import { type ModelConfig } from '../model/config';
import { parsePipelineConfig, type PipelineConfig } from '../pipeline/config';
import { SEEDED_DEMO, demoConfig } from '../pipeline/demoPipeline';
import { type BrowserSwarm, startBrowserSwarm } from '../shard/browserSwarm';
import { dataParallelProblem } from '../shard/dataParallelRun';
import { readSwarmLink, swarmHash } from '../shard/link';
import type { SwarmView } from '../shard/session';
import { createSwarmPanel } from './ui/swarmPanel';

/** A run the page can offer to join. */
export interface JoinTarget {
  /** The run's id in the run history (the tab running it announced it). */
  runId: string;
  config: PipelineConfig;
  /** Where the run is: another tab of this browser (BroadcastChannel), or a peer. */
  origin: 'tab' | 'peer';
}

export interface JoinOutcome {
  ok: boolean;
  /** One sentence for the page ("joined as rollout worker 2", "joining is not available …"). */
  message: string;
}

export interface SwarmHooks {
  /** Whether this build can join runs (the Join button says so when not). */
  available(): boolean;
  /** Joins `target`; `log` adds lines to the page's run log. Resolves once joined (or refused). */
  join(target: JoinTarget, log: (line: string) => void): Promise<JoinOutcome>;
  /** Leaves a joined run (no-op when none). */
  leave(): Promise<void>;
}

/** The default: nothing to join with yet. */
export const NO_SWARM: SwarmHooks = {
  available: () => false,
  join: async () => ({ ok: false, message: 'a run started from the form trains in its own tab; watch it here, or start a shared run from the Swarm panel and open its link in other tabs to train together' }),
  leave: async () => {},
};

let current: SwarmHooks = NO_SWARM;

/** Installs the sharding implementation (call once at start-up, before the page offers Join). */
export function setSwarmHooks(hooks: SwarmHooks): void {
  current = hooks;
}

export function swarmHooks(): SwarmHooks {
  return current;
}

export interface SwarmHost {
  /** Puts the panel on the page. */
  mount(el: HTMLElement): void;
  /** The adapter level the page uses (?adapter=…). */
  featureLevel(): FeatureLevelChoice;
}

/**
 * What the panel's Start runs: the demo pipeline from the seeded init — with asynchronous GRPO (k = 1) for rollout tabs;
 * for data parallel over `world` tabs with synchronous GRPO and an SFT batch that splits over them.
 */
export function defaultSwarmConfig(world?: number): PipelineConfig {
  // the seeded demo: a shared run loads no start weights (the runner refuses one there)
  const cfg = demoConfig({ ...SEEDED_DEMO, rlSteps: 20, ...(world ? { sftBatch: 2 * world } : {}) });
  return { ...cfg, stages: cfg.stages.map((s) => (s.kind === 'grpo' && !world ? { ...s, staleness: 1 } : s)) };
}

/** A data-parallel rank's results (what the e2e compares between tab counts). */
export interface SwarmResult {
  sftLosses: number[];
  /** GRPO loss per step (NaN for a skipped step). */
  grpoLosses: number[];
  /** SHA-256 of the final weights and the weights themselves (≤ 4 M parameters); null until the run finished. */
  weightsSha256: string | null;
  weights: number[] | null;
  /** Data parallel: this rank's gradient exchange (bytes it sent to and received from the other ranks, steps); null without a shard. */
  gradientExchange: { bytesSent: number; bytesReceived: number; steps: number } | null;
}

export interface SwarmApi {
  /** Starts a new swarm run led by this tab (machines when `relay` is given); resolves with the join URL. */
  start(opts: { config?: PipelineConfig; model?: ModelConfig; relay?: string; timing?: Record<string, number>; dp?: { world: number } }): Promise<string>;
  /** Joins the run of a join URL (what opening the URL does). */
  join(url: string, timing?: Record<string, number>): Promise<void>;
  view(): SwarmView | null;
  /** GRPO steps this tab led: [step, task ids trained]. */
  trained(): [number, string[]][];
  leave(): Promise<void>;
  /** Data parallel: this rank's losses and final weights. */
  result(): SwarmResult | null;
  /** Log lines of the swarm (drops, refusals, takeovers). */
  logs: string[];
}

declare global {
  interface Window {
    tabforgeSwarm: SwarmApi;
  }
}

export function installSwarm(host: SwarmHost): void {
  const panel = createSwarmPanel();
  host.mount(panel.el);
  const logs: string[] = [];
  const log = (line: string) => {
    logs.push(line);
    if (logs.length > 500) logs.shift();
    console.log(`[swarm] ${line}`);
  };
  let current: BrowserSwarm | null = null;
  const attach = (s: BrowserSwarm) => {
    current = s;
    const render = (v: SwarmView) => panel.show(v, s.url);
    s.session.onChange(render);
    render(s.session.view());
    setInterval(() => render(s.session.view()), 1000); // heartbeats change rates and ages
  };
  const run = async (f: () => Promise<BrowserSwarm>) => {
    if (current) throw new Error('this tab is already in a swarm run: open the link in another tab to add one');
    panel.showError(null);
    try {
      attach(await f());
    } catch (e) {
      panel.showError(e instanceof Error ? e.message : String(e));
      throw e;
    }
  };
  const api: SwarmApi = {
    logs,
    async start(opts) {
      const config = parsePipelineConfig(opts.config ?? defaultSwarmConfig(opts.dp?.world));
      await run(async () => {
        const unit = opts.relay ? 'machine' : 'tab';
        const problem = opts.dp ? dataParallelProblem(config, opts.dp.world, unit) : null;
        if (problem) throw new Error(`this run cannot train data parallel over ${opts.dp!.world} ${unit}s: ${problem}`);
        return startBrowserSwarm({ config, model: opts.model, relay: opts.relay || undefined, dp: opts.dp }, { featureLevel: host.featureLevel(), log, lead: true, timing: opts.timing });
      });
      history.replaceState(null, '', swarmHash(current!.link)); // this tab's URL is the join link (no hashchange: the form keeps its settings)
      return current!.url;
    },
    async join(url, timing) {
      const r = readSwarmLink(new URL(url).hash);
      if (r.kind !== 'ok') throw new Error(r.kind === 'invalid' ? r.error : 'that URL has no #swarm= link');
      await run(() => startBrowserSwarm(r.link, { featureLevel: host.featureLevel(), log, timing }));
    },
    view: () => current?.session.view() ?? null,
    trained: () => [...(current?.session.trained ?? [])],
    async leave() {
      await current?.session.stop();
    },
    result() {
      const s = current?.session;
      if (!s) return null;
      return {
        sftLosses: [...s.sftLosses], grpoLosses: s.records.map((r) => r.metrics.loss ?? Number.NaN),
        weightsSha256: s.finalWeights?.sha256 ?? null, weights: s.finalWeights?.values ? [...s.finalWeights.values] : null,
        gradientExchange: s.gradientExchange ? { ...s.gradientExchange } : null,
      };
    },
  };
  window.tabforgeSwarm = api;
  panel.onStart(({ relay, world }) => void api.start({ relay, dp: world ? { world } : undefined }).catch(() => {}));
  panel.onLeave(() => void api.leave());
  const read = readSwarmLink(location.hash);
  if (read.kind === 'invalid') panel.showError(read.error);
  if (read.kind === 'ok') {
    // timing overrides for tests ride in the query string (?swarmTiming=heartbeat,silence,deadline[,collective timeout])
    const t = new URLSearchParams(location.search).get('swarmTiming')?.split(',').map(Number);
    const timing = t && (t.length === 3 || t.length === 4) && t.every((x) => Number.isFinite(x) && x > 0)
      ? { heartbeatMs: t[0], silenceMs: t[1], chunkDeadlineMs: t[2], ...(t[3] ? { collectiveTimeoutMs: t[3] } : {}) } : undefined;
    void run(() => startBrowserSwarm(read.link, { featureLevel: host.featureLevel(), log, timing })).catch(() => {});
  }
}
