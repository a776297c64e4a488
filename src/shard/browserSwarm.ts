// The swarm in a page: builds a SwarmSession from a link with the browser's parts — tabs
// (BroadcastChannel + Web Locks) or machines (js-libp2p through a relay) — a GPU device on the page
// thread for the leader's trainer and the rollout actor, checkpoints in one IndexedDB per run, the
// "finished" mark in localStorage, and the page's visibility for heartbeats.
import { acquireDevice, type FeatureLevelChoice } from '../gpu/device';
import { GpuRuntime } from '../gpu/runtime';
import type { PipelineConfig } from '../pipeline/config';
import type { ModelConfig } from '../model/config';
import { IdbBackend } from '../storage/idbBackend';
import { newMemberId, newRunId, newSecret } from './auth';
import type { Libp2pTransport } from './libp2pTransport';
import { machinesDataParallelProblem, type SwarmLink, swarmUrl } from './link';
import { watchPageLifecycle } from './pageLifecycle';
import type { Lifecycle } from './protocol';
import { type LockManagerLike, SwarmSession } from './session';
import { TabTransport } from './tabTransport';

/** Dials of the leader a joining page makes before it reports that the leader cannot be reached. */
const JOIN_DIAL_ATTEMPTS = 3;

export interface BrowserSwarmOptions {
  featureLevel: FeatureLevelChoice;
  log?: (line: string) => void;
  /** Test knobs (heartbeats, silence window, chunk deadline), ms. */
  timing?: { heartbeatMs?: number; silenceMs?: number; chunkDeadlineMs?: number; collectiveTimeoutMs?: number };
}

export interface BrowserSwarm {
  session: SwarmSession;
  link: SwarmLink;
  /** The "join this run" URL. */
  url: string;
  transport: TabTransport | Libp2pTransport;
}

/**
 * Holds the Web Lock "this tab leads run `run` across machines" for the page's life; false when another
 * tab of this browser holds it (true where there is no Web Locks API: nothing to guard with).
 */
function holdLeadLock(run: string): Promise<boolean> {
  const locks = (navigator as Navigator & { locks?: { request(name: string, o: { ifAvailable: boolean }, f: (lock: unknown) => Promise<void> | undefined): Promise<unknown> } }).locks;
  if (!locks) return Promise.resolve(true);
  return new Promise((resolve) => {
    void locks.request(`tabforge-swarm-lead/${run}`, { ifAvailable: true }, (lock) => {
      resolve(lock !== null);
      return lock === null ? undefined : new Promise<void>(() => {}); // held until the page goes
    });
  });
}

const visible = () => typeof document === 'undefined' || document.visibilityState === 'visible';

/** A new run's link: tabs only (no relay), or machines through `relay` with this page's peer id as leader. */
export function newLink(config: PipelineConfig, extra: { model?: ModelConfig; relay?: string; leader?: string; dp?: { world: number } } = {}): SwarmLink {
  return {
    v: 1, run: newRunId(), secret: newSecret(), config, ...(extra.model ? { model: extra.model } : {}), ...(extra.relay ? { relay: extra.relay, leader: extra.leader } : {}),
    ...(extra.dp ? { dp: extra.dp } : {}),
  };
}

/**
 * Joins (or, as `lead`, starts) the run of `link`. Machines: `lead` starts a node on the relay and
 * puts its own peer id into the link; a joiner dials the link's leader.
 */
export async function startBrowserSwarm(linkIn: SwarmLink | { config: PipelineConfig; model?: ModelConfig; relay?: string; dp?: { world: number } }, o: BrowserSwarmOptions & { lead?: boolean }): Promise<BrowserSwarm> {
  const log = o.log ?? (() => {});
  let link: SwarmLink;
  let transport: TabTransport | Libp2pTransport;
  let forgetLeaderKey = () => {}; // a finished run is never led again: its key goes (machines only)
  const overMachines = 'relay' in linkIn && linkIn.relay;
  const machines = overMachines && linkIn.dp ? machinesDataParallelProblem(linkIn.dp.world) : null;
  if (machines) throw new Error(`this run cannot start: ${machines}`);
  if (overMachines) {
    const { Libp2pTransport } = await import('./libp2pTransport'); // libp2p loads only for runs across machines
    const identity = await import('./leaderIdentity');
    // The page that started the run leads it again after a reload (its checkpoints are in its IndexedDB):
    // with the key of the link's leader id, kept in localStorage, while no other tab of this browser leads.
    const kept = 'run' in linkIn ? identity.leaderKeyOf(localStorage, linkIn.run) : null;
    const key = 'run' in linkIn ? (kept && (await holdLeadLock(linkIn.run)) ? kept : undefined) : await identity.newLeaderKey();
    const t = await Libp2pTransport.start({ relay: linkIn.relay!, log, privateKey: key });
    transport = t;
    link = 'run' in linkIn ? linkIn : newLink(linkIn.config, { model: linkIn.model, relay: linkIn.relay, leader: t.selfId, dp: linkIn.dp });
    if (!('run' in linkIn) && key) {
      identity.keepLeaderKey(localStorage, link.run, key);
      await holdLeadLock(link.run);
    }
    forgetLeaderKey = () => identity.forgetLeaderKey(localStorage, link.run);
    if (kept && link.leader === t.selfId) log(`this browser started run ${link.run}: it leads it again (the same peer id, ${t.selfId})`);
  } else {
    link = 'run' in linkIn ? linkIn : newLink(linkIn.config, { model: linkIn.model, dp: linkIn.dp });
    transport = new TabTransport(newMemberId(), link.run);
  }
  const locks = overMachines ? null : ((navigator as Navigator & { locks?: LockManagerLike }).locks ?? null);
  if (!overMachines && !locks) throw new Error('this browser has no Web Locks API (navigator.locks), which tabs need to elect a leader: use a current Chrome, Edge, Firefox or Safari');
  const finishedKey = `tabforge-swarm-finished/${link.run}`;
  let rt: Promise<GpuRuntime> | null = null;
  let announce = (_now: Lifecycle) => {};
  const lifecycle = watchPageLifecycle(document, (now, before) => {
    log(`this tab is ${now} (was ${before})`);
    announce(now);
  });
  const session = new SwarmSession({
    link, transport, locks, lead: overMachines ? link.leader === transport.selfId : undefined,
    runtime: () => (rt ??= acquireDevice({ featureLevel: o.featureLevel }).then((ctx) => new GpuRuntime(ctx, { timing: false }))),
    store: () => IdbBackend.open(`tabforge-swarm-${link.run}`),
    finished: {
      get: () => localStorage.getItem(finishedKey) === '1',
      set: () => {
        localStorage.setItem(finishedKey, '1');
        forgetLeaderKey();
      },
    },
    visible, lifecycle: () => lifecycle.now(), log, ...o.timing,
  });
  announce = (now) => session.lifecycleChanged(now);
  // A closing tab turns hidden first (hidden tabs are kept 70 s without a heartbeat): it says bye as it
  // unloads, so the others know at once (a data-parallel rank stops, a rollout chunk is re-assigned).
  // The post goes out synchronously, before the page is gone; a page kept in the back-forward cache stays.
  addEventListener('pagehide', (e) => {
    if (!(e as PageTransitionEvent).persisted) void session.node.stop('its tab closed');
  });
  await session.start();
  if (overMachines && link.leader !== transport.selfId) {
    const t = transport as Libp2pTransport;
    // a WebRTC dial through the relay now and then never completes (seen on loopback): try again before giving up
    for (let attempt = 1; ; attempt++) {
      try {
        await t.connect(link.leader!);
        break;
      } catch (e) {
        if (attempt >= JOIN_DIAL_ATTEMPTS) throw new Error(`could not reach the run's leader through the relay after ${attempt} tries (${(e as Error).message}): is the leader's page still open?`);
        log(`dialling the leader failed (${(e as Error).message}); trying again (${attempt + 1}/${JOIN_DIAL_ATTEMPTS})`);
      }
    }
    await session.node.hello(link.leader!, false);
  }
  if (overMachines) (transport as Libp2pTransport).onRelayLost((why) => session.note(`${why}: members already connected keep working over WebRTC; new members cannot join until it is back`));
  return { session, link, url: swarmUrl(location.href, link), transport };
}
