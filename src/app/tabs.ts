// One run per browser storage: the tab that trains holds a Web Lock ("tabforge-run") for as long as
// its run lasts, and announces the run and its events on a BroadcastChannel. Another tab sees the
// lock, asks who holds it, and can watch the run live (its history comes from the shared run store,
// what happens next from the channel) or join it (swarmHooks.ts). Starting a second run while the
// lock is held is refused, never done silently. Messages from other tabs are schema-checked and
// size-bounded like any peer input.
import { z } from 'zod';
import type { PipelineConfig } from '../pipeline/config';
import type { PageRunEvent } from '../workers/runEvents';

export const RUN_LOCK = 'tabforge-run';
export const RUN_CHANNEL = 'tabforge-runs';
/** Largest message accepted from another tab (JSON characters). */
export const MAX_TAB_MESSAGE_CHARS = 2_000_000;

export interface RunAnnouncement {
  runId: string;
  title: string;
  config: PipelineConfig;
  startedAt: number;
  /** The announcing tab. */
  tab: string;
}

export type TabMessage =
  | { type: 'who'; tab: string }
  | ({ type: 'running' } & RunAnnouncement)
  /** seq: the event's index in the run's stored events (−1: episodes, stored apart and not counted). */
  | { type: 'event'; runId: string; seq: number; event: PageRunEvent }
  | { type: 'ended'; runId: string; status: string };

const id = z.string().min(1).max(200);
// The config and events were produced by this page's own code in another tab; their inner shape is
// checked where they are used (validatePipelineConfig, the event switch), the envelope here.
const messageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('who'), tab: id }),
  z.object({ type: z.literal('running'), runId: id, title: z.string().max(200), config: z.object({ version: z.number() }).passthrough(), startedAt: z.number(), tab: id }),
  z.object({ type: z.literal('event'), runId: id, seq: z.number().int().min(-1), event: z.object({ kind: z.string().max(40) }).passthrough() }),
  z.object({ type: z.literal('ended'), runId: id, status: z.string().max(40) }),
]);

/** A message from another tab, or null when it is not one of ours (wrong shape, too big). */
export function parseTabMessage(data: unknown): TabMessage | null {
  let size = 0;
  try {
    size = JSON.stringify(data)?.length ?? 0;
  } catch {
    return null;
  }
  if (size > MAX_TAB_MESSAGE_CHARS) return null;
  const r = messageSchema.safeParse(data);
  return r.success ? (r.data as unknown as TabMessage) : null;
}

export class TabLink {
  readonly tab = `tab-${Math.random().toString(36).slice(2, 10)}`;
  private readonly channel: BroadcastChannel | null;
  private listeners: ((m: TabMessage) => void)[] = [];
  /** What this tab answers to 'who' while it runs. */
  private announcing: RunAnnouncement | null = null;
  /** Called when another tab asks who runs (this tab then writes its pending history, for the watcher to read). */
  onAsked: () => Promise<void> = async () => {};

  constructor() {
    this.channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(RUN_CHANNEL);
    this.channel?.addEventListener('message', (ev) => {
      const m = parseTabMessage(ev.data);
      if (!m) return;
      if (m.type === 'who' && this.announcing) {
        const a = this.announcing;
        void this.onAsked().catch(() => undefined).finally(() => this.post({ type: 'running', ...a }));
      }
      for (const l of this.listeners) l(m);
    });
  }

  onMessage(cb: (m: TabMessage) => void): void {
    this.listeners.push(cb);
  }

  private post(m: TabMessage): void {
    this.channel?.postMessage(m);
  }

  /** Is the run lock held (by any tab, this one included)? */
  static async lockHeld(): Promise<boolean> {
    if (!navigator.locks) return false;
    const q = await navigator.locks.query();
    return (q.held ?? []).some((l) => l.name === RUN_LOCK);
  }

  /** The run another tab announces (it answers within `waitMs`), or null. */
  async whoIsRunning(waitMs = 1500): Promise<RunAnnouncement | null> {
    if (!this.channel) return null;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(null), waitMs);
      const done = (a: RunAnnouncement | null) => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listen);
        resolve(a);
      };
      const listen = (m: TabMessage) => {
        if (m.type === 'running' && m.tab !== this.tab) done({ runId: m.runId, title: m.title, config: m.config, startedAt: m.startedAt, tab: m.tab });
      };
      this.listeners.push(listen);
      this.post({ type: 'who', tab: this.tab });
    });
  }

  /**
   * Takes the run lock if no tab holds it; resolves with a release function, or null when another
   * tab is running (the caller must not start). Without Web Locks (old browsers) it always succeeds.
   */
  async acquire(run: Omit<RunAnnouncement, 'tab'>): Promise<(() => void) | null> {
    const announce = () => {
      this.announcing = { ...run, tab: this.tab };
      this.post({ type: 'running', ...this.announcing });
    };
    if (!navigator.locks) {
      announce();
      return () => (this.announcing = null);
    }
    return new Promise((resolve) => {
      void navigator.locks.request(RUN_LOCK, { ifAvailable: true }, (lock) => {
        if (!lock) {
          resolve(null);
          return undefined;
        }
        announce();
        return new Promise<void>((release) => resolve(() => {
          this.announcing = null;
          release();
        }));
      });
    });
  }

  /** Sends one of this tab's run events to watching tabs (`seq`: see TabMessage). */
  broadcast(runId: string, event: PageRunEvent, seq: number): void {
    if (this.announcing?.runId === runId) this.post({ type: 'event', runId, seq, event });
  }

  ended(runId: string, status: string): void {
    this.post({ type: 'ended', runId, status });
  }
}
