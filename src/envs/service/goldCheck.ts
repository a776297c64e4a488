// Decides "the final database equals the gold database" (hashes of canonical JSON, the gold one
// replayed from the task's gold actions on the initial database) while hashing as little as
// possible: nothing while no write succeeded, each hash at most once per change.

import { databaseHash, seedDatabase } from './database';
import { executeTool } from './tools';
import type { Database, WriteAction } from './types';

export class GoldCheck {
  private initial: string | null = null;
  private gold: string | null = null;
  private current: string | null = null;
  /** True once a write succeeded (the database may differ from the initial one). */
  private touched = false;
  /** True when `current` is stale (a write succeeded since it was computed). */
  private dirty = false;

  constructor(
    private readonly db: Database,
    private readonly dbSeed: number,
    private readonly goldActions: WriteAction[],
  ) {}

  /** Call after every successful write to the episode database. */
  onWrite(): void {
    this.touched = true;
    this.dirty = true;
  }

  /** Hash of the database as seeded. */
  initialHash(): string {
    this.initial ??= databaseHash(seedDatabase(this.dbSeed));
    return this.initial;
  }

  /** Hash of the initial database after replaying the gold actions. */
  goldHash(): string {
    if (this.gold === null) {
      if (this.goldActions.length === 0) {
        this.gold = this.initialHash();
      } else {
        const gold = seedDatabase(this.dbSeed);
        for (const action of this.goldActions) executeTool(gold, action.name, action.arguments);
        this.gold = databaseHash(gold);
      }
    }
    return this.gold;
  }

  /** Hash of the episode database now. */
  currentHash(): string {
    if (!this.touched) return this.initialHash();
    if (this.dirty || this.current === null) {
      this.current = databaseHash(this.db);
      this.dirty = false;
    }
    return this.current;
  }

  /** Whether the episode database equals the gold database. */
  matches(): boolean {
    if (!this.touched && this.goldActions.length === 0) return true; // untouched, and nothing was to be done
    return this.currentHash() === this.goldHash();
  }
}
