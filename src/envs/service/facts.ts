// Checks whether the agent told the user the facts an information request needs. Matching is by
// normalised substring; a message that also names two or more wrong alternatives (other statuses,
// other products) does not count, so listing every possible answer earns nothing.

import type { Database, ServiceTask } from './types';

const STATUSES = ['pending', 'processed', 'delivered', 'cancelled', 'return requested', 'exchange requested'];

/** Lower-case, drop "$" and thousands commas, collapse whitespace. */
export function normalizeForFacts(text: string): string {
  return text
    .toLowerCase()
    .replace(/\$/g, '')
    .replace(/(\d),(\d{3})/g, '$1$2')
    .replace(/\s+/g, ' ');
}

/** Wrong answers to the task's question that a guessing agent might list (normalised). */
export function distractorsFor(task: ServiceTask, db: Database): string[] {
  const goal = task.goal;
  if (goal.kind !== 'info') return [];
  const facts = new Set(task.requiredFacts.map(normalizeForFacts));
  const pool = goal.question === 'status' ? STATUSES : goal.question === 'items' ? Object.values(db.products).map((p) => p.name) : [];
  return pool.map(normalizeForFacts).filter((d) => !facts.has(d));
}

/** Marks in `told` the required facts that `message` states (mutates and returns `told`). */
export function recordFactsTold(message: string, requiredFacts: string[], distractors: string[], told: boolean[]): boolean[] {
  if (requiredFacts.length === 0) return told;
  const text = normalizeForFacts(message);
  const wrong = distractors.filter((d) => text.includes(d)).length;
  if (wrong >= 2) return told;
  requiredFacts.forEach((fact, i) => {
    if (!told[i] && text.includes(normalizeForFacts(fact))) told[i] = true;
  });
  return told;
}
