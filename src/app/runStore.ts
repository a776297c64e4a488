// The page's run history in IndexedDB (through idb): one record per run (its config, status, where
// its checkpoints are, the last save, the result), plus its events and episodes appended in batches,
// so a reload finds the last run with its charts, log and trajectories, and two runs can be compared.
// Checkpoints themselves live in a database per run (storage/idbBackend), named in the record.
import { type DBSchema, deleteDB, type IDBPDatabase, openDB } from 'idb';
import type { PipelineConfig } from '../pipeline/config';
import type { EpisodeView, PageRunEvent, PageRunResult } from '../workers/runEvents';

export type RunStatus = 'running' | 'done' | 'stopped' | 'failed' | 'interrupted';

export interface RunRecord {
  id: string;
  createdAt: number;
  updatedAt: number;
  /** The example it started from, or "custom pipeline". */
  title: string;
  config: PipelineConfig;
  status: RunStatus;
  /** IndexedDB database of its checkpoints (null: not checkpointed). */
  checkpointDb: string | null;
  lastSaved: { stage: number; step: number; at: number; id: string } | null;
  /** Steps trained since the last checkpoint (a reload would lose them). */
  unsavedSteps: number;
  result: PageRunResult | null;
  error: string | null;
  adapter: string;
}

interface RunsDb extends DBSchema {
  runs: { key: string; value: RunRecord };
  events: { key: number; value: { runId: string; event: PageRunEvent }; indexes: { run: string } };
  episodes: { key: number; value: { runId: string; episode: EpisodeView }; indexes: { run: string } };
}

export const RUNS_DB = 'tabforge-runs';
/** Episodes kept per run in the history (the browser shows the newest). */
export const MAX_STORED_EPISODES = 2000;

export class RunStore {
  private constructor(private readonly db: IDBPDatabase<RunsDb>) {}

  static async open(name = RUNS_DB): Promise<RunStore> {
    const db = await openDB<RunsDb>(name, 1, {
      upgrade(d) {
        d.createObjectStore('runs', { keyPath: 'id' });
        d.createObjectStore('events', { autoIncrement: true }).createIndex('run', 'runId');
        d.createObjectStore('episodes', { autoIncrement: true }).createIndex('run', 'runId');
      },
    });
    return new RunStore(db);
  }

  static newId(): string {
    return `run-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 4).toString(36).padStart(4, '0')}`;
  }

  async put(r: RunRecord): Promise<void> {
    await this.db.put('runs', { ...r, updatedAt: Date.now() });
  }

  get(id: string): Promise<RunRecord | undefined> {
    return this.db.get('runs', id);
  }

  /** Newest first. */
  async list(): Promise<RunRecord[]> {
    return (await this.db.getAll('runs')).sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Appends events and episodes of a run in one transaction. */
  async append(runId: string, events: readonly PageRunEvent[], episodes: readonly EpisodeView[]): Promise<void> {
    if (!events.length && !episodes.length) return;
    const tx = this.db.transaction(['events', 'episodes'], 'readwrite');
    const writes: Promise<unknown>[] = [];
    for (const event of events) writes.push(tx.objectStore('events').add({ runId, event }));
    for (const episode of episodes) writes.push(tx.objectStore('episodes').add({ runId, episode }));
    await Promise.all([...writes, tx.done]);
  }

  async events(runId: string): Promise<PageRunEvent[]> {
    return (await this.db.getAllFromIndex('events', 'run', runId)).map((v) => v.event);
  }

  /** The run's newest MAX_STORED_EPISODES episodes, in order. */
  async episodes(runId: string): Promise<EpisodeView[]> {
    return (await this.db.getAllFromIndex('episodes', 'run', runId)).slice(-MAX_STORED_EPISODES).map((v) => v.episode);
  }

  /** Forgets a run: its record, events, episodes and checkpoint database. */
  async remove(runId: string): Promise<void> {
    const r = await this.get(runId);
    const tx = this.db.transaction(['runs', 'events', 'episodes'], 'readwrite');
    const drop = async (store: 'events' | 'episodes') => {
      for (const key of await tx.objectStore(store).index('run').getAllKeys(runId)) await tx.objectStore(store).delete(key);
    };
    await Promise.all([tx.objectStore('runs').delete(runId), drop('events'), drop('episodes'), tx.done]);
    if (r?.checkpointDb) await deleteDB(r.checkpointDb);
  }

  close(): void {
    this.db.close();
  }
}
