// Judges whether the agent told the user the facts an information request needs, over the whole
// conversation:
// - a fact counts when a message the user saw states it (normalised substring) and the agent had
//   looked the answer up before that message (read the goal order as its authenticated owner):
//   facts come from the tools, never from guessing;
// - every wrong alternative (another status, a product not in the order) named in ANY message the
//   user saw counts against the conversation; once two distinct ones were named, no fact counts.
// So listing the possible answers earns nothing, whether in one message or spread over several.

import type { Database, ServiceTask } from './types';

const STATUSES = ['pending', 'processed', 'delivered', 'cancelled', 'return requested', 'exchange requested'];

/** Distinct wrong alternatives a conversation may name before its facts stop counting (one incidental mention is tolerated). */
export const MAX_DISTRACTORS_NAMED = 1;

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

/** The facts and wrong alternatives of one conversation, as the user heard them. */
export class FactLedger {
  private readonly factsNormalized: string[];
  private readonly stated: boolean[];
  private readonly distractorsNamed = new Set<string>();

  /** `requiredFacts` as the task gives them; `distractors` normalised (distractorsFor). */
  constructor(
    requiredFacts: readonly string[],
    private readonly distractors: readonly string[],
  ) {
    this.factsNormalized = requiredFacts.map(normalizeForFacts);
    this.stated = requiredFacts.map(() => false);
  }

  /** Records one message the user saw; `lookedUp`: the agent had read the answer from the tools before it. */
  hear(message: string, lookedUp: boolean): void {
    if (this.factsNormalized.length === 0) return;
    const text = normalizeForFacts(message);
    for (const d of this.distractors) if (text.includes(d)) this.distractorsNamed.add(d);
    if (!lookedUp) return;
    this.factsNormalized.forEach((fact, i) => {
      if (text.includes(fact)) this.stated[i] = true;
    });
  }

  /** Per required fact, whether it counts as told (none once too many wrong alternatives were named). */
  told(): boolean[] {
    const voided = this.distractorsNamed.size > MAX_DISTRACTORS_NAMED;
    return this.stated.map((s) => s && !voided);
  }

  /** Distinct wrong alternatives named so far (diagnostics). */
  wrongAlternativesNamed(): number {
    return this.distractorsNamed.size;
  }
}
