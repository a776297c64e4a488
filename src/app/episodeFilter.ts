// The trajectory browser's filters and grouping: by source (GRPO samples, evaluations, final samples
// and the expert's), failed only, by task (id, category or task set), by GRPO step; episodes grouped
// as GRPO groups (the G samples of one task) or per evaluation. DOM-free.
import type { EpisodeView } from '../workers/runEvents';

export interface EpisodeFilter {
  source: 'all' | EpisodeView['source'] | 'final';
  failedOnly: boolean;
  /** Matches the task id, category or task set (case-insensitive substring); '' matches all. */
  task: string;
  /** A GRPO step (rollouts and validation points), or null for every step. */
  step: number | null;
}

export const NO_FILTER: EpisodeFilter = { source: 'all', failedOnly: false, task: '', step: null };

export function matches(e: EpisodeView, f: EpisodeFilter): boolean {
  if (f.source === 'final' ? e.source !== 'sample' && e.source !== 'expert' : f.source !== 'all' && e.source !== f.source) return false;
  if (f.failedOnly && e.success) return false;
  if (f.step !== null && e.step !== f.step) return false;
  const t = f.task.trim().toLowerCase();
  if (t && ![e.taskId, e.category, e.taskSet].some((s) => s.toLowerCase().includes(t))) return false;
  return true;
}

export interface EpisodeGroup {
  key: string;
  /** "GRPO step 3 · task 2", "after SFT", "final model". */
  title: string;
  episodes: EpisodeView[];
}

const groupKey = (e: EpisodeView) => (e.source === 'rollout' ? `r:${e.stage}:${e.step}:${e.group}` : `${e.source}:${e.stage}:${e.label}`);

/** Filtered episodes in groups, newest group first. A GRPO group keeps its G samples together. */
export function groupEpisodes(all: readonly EpisodeView[], f: EpisodeFilter): EpisodeGroup[] {
  const groups = new Map<string, EpisodeGroup>();
  for (const e of all) {
    if (!matches(e, f)) continue;
    const key = groupKey(e);
    let g = groups.get(key);
    if (!g) {
      const title = e.source === 'rollout' ? `GRPO step ${e.step} · group ${e.group + 1} · ${e.taskId}` : e.source === 'eval' ? `evaluation: ${e.label}` : e.label === 'expert' ? 'expert (reference)' : e.label;
      g = { key, title, episodes: [] };
      groups.set(key, g);
    }
    g.episodes.push(e);
  }
  return [...groups.values()].reverse();
}

/** The GRPO steps that have episodes (for the step filter). */
export function stepsOf(all: readonly EpisodeView[]): number[] {
  return [...new Set(all.filter((e) => e.step > 0).map((e) => e.step))].sort((a, b) => a - b);
}
