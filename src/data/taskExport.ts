// Tasks as JSONL for auditing a split from outside the code (`npm run tasks`): one object per line
// with the task exactly as the agent sees it (the environment's opening messages and tools) and
// the expected answer (what the expert does and what the checker accepts). Schema of a line:
//   {"id", "family", "level", "split", "seed", "index", "category",
//    "messages": [{"role", "content"}, …], "tools": [ToolSpec, …], "expected": {…}}
// expected, per family:
//   function-calling: {"check", "calls": [{"name", "arguments"}] (the expert's calls; [] = answer
//     in text), "acceptable": BFCL possible answers (per call: {function: {param: [values]}})}
//   service: {"goal", "gold_actions", "required_facts", "db_seed"} (db_seed rebuilds the database)
//   coding: {"entry", "solution", "public_tests", "hidden_tests"}
import type { CodingTask } from '../envs/coding/types';
import { canonicalCall } from '../envs/functionCalling/expertPolicy';
import type { FunctionCallingTask } from '../envs/functionCalling/types';
import type { ServiceTask } from '../envs/service/types';
import type { TaskSet } from '../envs/taskSets';
import type { ChatMessage, Split, TaskBase, ToolSpec } from '../envs/types';
import { toHfMessage } from './chatJsonl';

export interface TaskRecord {
  id: string;
  family: TaskBase['family'];
  level: string;
  split: Split;
  seed: number;
  index: number;
  category: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  expected: Record<string, unknown>;
}

function expectedOf(task: TaskBase): Record<string, unknown> {
  switch (task.family) {
    case 'function-calling': {
      const t = task as FunctionCallingTask;
      return { check: t.check, calls: t.groundTruth.map((g) => canonicalCall(g, t.tools)), acceptable: t.groundTruth };
    }
    case 'service': {
      const t = task as ServiceTask;
      return { goal: t.goal, gold_actions: t.goldActions, required_facts: t.requiredFacts, db_seed: t.dbSeed };
    }
    case 'coding': {
      const t = task as CodingTask;
      return { entry: t.entry, solution: t.solution, public_tests: t.publicTests, hidden_tests: t.hiddenTests };
    }
  }
}

/** Tasks index … index + n − 1 of `split` of a task set, as records. Throws (clearly) for a split the set does not have. */
export function exportTasks(set: TaskSet, split: Split, n: number, seed: number): TaskRecord[] {
  if (!set.splits.includes(split)) throw new Error(`${set.family} level ${set.level} has no ${split} split; use ${set.splits.join(' or ')}`);
  const env = set.envFamily.createEnv();
  return Array.from({ length: n }, (_, index) => {
    const task = set.envFamily.generateTask(seed, index, split);
    const opening = env.reset(task); // the same opening the agent gets in a rollout
    return {
      id: task.id,
      family: task.family,
      level: set.level,
      split,
      seed,
      index,
      category: task.category,
      messages: opening.messages.map(toHfMessage),
      tools: opening.tools,
      expected: expectedOf(task),
    };
  });
}

/** One JSON object per line. */
export function tasksJsonl(records: readonly TaskRecord[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}
