// The task-set names and the mix-entry type, without the families behind them (taskSets.ts), so
// configs and share links can name task sets without loading any environment code.

/**
 * Task sets:
 *   route4 / route8 — one call from a short request, 4 or 8 tools (function calling, single turn);
 *   bfcl            — the BFCL-style mix: simple, multiple, parallel, parallel_multiple, irrelevance;
 *   service         — τ-bench-style retail with a simulated user (multi-turn);
 *   coding          — write a function, run its tests in a sandbox (multi-turn).
 */
export const TASK_SETS = ['route4', 'route8', 'bfcl', 'service', 'coding'] as const;
export type TaskSetName = (typeof TASK_SETS)[number];

/** One entry of a task mix: a task set, its difficulty level (where the set has levels) and its relative share. */
export interface TaskMixEntry {
  set: TaskSetName;
  level?: number;
  weight: number;
}
