// The seam between the page and sharding (src/shard, the sharding issue): joining a run that another
// tab of this browser (or another machine) is running, to contribute work to it. The page shows a
// "Join" control wherever it sees such a run and calls swarmHooks().join(); this file only defines
// the interface and a default that says joining is not available in this build. The sharding code
// installs the real hooks at start-up with setSwarmHooks() (e.g. from src/shard's page entry).
import type { PipelineConfig } from '../pipeline/config';

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
  join: async () => ({ ok: false, message: 'joining a run from another tab is not available in this build yet (the sharding work provides it); you can watch the run instead' }),
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
