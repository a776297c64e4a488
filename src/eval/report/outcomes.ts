// One episode's result in the form every report reads, whatever produced it (the per-episode
// evaluator here, the batched model rollouts of src/train, a baseline rule): the task's breakdown
// keys (tool, category, …), success, total reward and reward components. Model-agnostic: a caller
// with its own rollout builds outcomes with outcomeOf(task, success, reward).
import type { CodingTask } from '../../envs/coding/types';
import type { FunctionCallingTask } from '../../envs/functionCalling/types';
import type { TaskBase } from '../../envs/types';
import type { Episode } from '../rollout';

export interface Outcome {
  taskId: string;
  /** Breakdown keys → the task's values (a task asking for two tools counts under both). */
  keys: Record<string, string[]>;
  success: boolean;
  /** Total reward. */
  reward: number;
  components: Record<string, number>;
}

/** The value a function-calling task without an expected call is listed under. */
export const NO_CALL = '(no call)';

/**
 * The breakdowns of a task: every family by category; function calling also by expected tool
 * (the function names of the expected calls; irrelevance: NO_CALL) and, for generated routing tasks,
 * by request phrasing (a split holds 2 per tool, so this shows how much of a figure one phrasing
 * carries); coding also by template.
 */
export function taskKeys(task: TaskBase): Record<string, string[]> {
  const keys: Record<string, string[]> = { category: [task.category] };
  if (task.family === 'function-calling') {
    const names = [...new Set((task as FunctionCallingTask).groundTruth.map((g) => Object.keys(g)[0]))].sort();
    keys.tool = names.length > 0 ? names : [NO_CALL];
    const phrasings = (task as FunctionCallingTask).phrasings;
    if (phrasings?.length) keys.phrasing = [...new Set(phrasings)].sort();
  }
  if (task.family === 'coding') keys.template = [(task as CodingTask).template];
  return keys;
}

/** An outcome from any rollout: the task, its verdict and its reward. */
export function outcomeOf(task: TaskBase, success: boolean, reward: { total: number; components: Record<string, number> }): Outcome {
  return { taskId: task.id, keys: taskKeys(task), success, reward: reward.total, components: { ...reward.components } };
}

/** Outcomes of evaluated episodes; `tasks` are the tasks the episodes played, matched by id. */
export function outcomesFromEpisodes(tasks: readonly TaskBase[], episodes: readonly Episode[]): Outcome[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return episodes.map((e) => {
    const task = byId.get(e.taskId);
    if (task === undefined) throw new Error(`outcomesFromEpisodes: episode of task ${e.taskId} has no task among the ${tasks.length} given`);
    return outcomeOf(task, e.success, e.reward);
  });
}
