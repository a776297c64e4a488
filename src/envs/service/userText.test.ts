import { describe, expect, it } from 'vitest';
import { SPLITS } from '../splits';
import { serviceFamily } from './index';
import { SimulatedUser } from './userSim';
import { userPhrasingInventory } from './userText';

describe('simulated user wording', () => {
  it('is seeded per task and varied: hundreds of openings in train, dozens in validation and test, none shared', () => {
    const openings = Object.fromEntries(SPLITS.map((split) => {
      const tasks = Array.from({ length: 600 }, (_, i) => serviceFamily.generateTask(4, i, split));
      expect(new SimulatedUser(tasks[0]).opening()).toBe(new SimulatedUser(tasks[0]).opening());
      return [split, new Set(tasks.map((t) => new SimulatedUser(t).opening()))];
    }));
    console.log(`distinct openings in 600 tasks: ${SPLITS.map((s) => `${s} ${openings[s].size}`).join(', ')} (before the split cut: 25 in all)`);
    expect(openings.train.size).toBeGreaterThan(300);
    expect(openings.validation.size).toBeGreaterThan(40);
    expect(openings.test.size).toBeGreaterThan(40);
    for (const o of [...openings.validation, ...openings.test]) expect(openings.train.has(o), o).toBe(false);
  });

  it('every phrasing list has train, validation and test parts that share no phrasing', () => {
    for (const [name, lists] of Object.entries(userPhrasingInventory())) {
      const nonEmpty = (l: readonly string[]) => l.filter((s) => s.trim() !== '');
      expect(nonEmpty(lists.validation).length, name).toBeGreaterThan(0);
      expect(nonEmpty(lists.test).length, name).toBeGreaterThan(0);
      const train = new Set(nonEmpty(lists.train));
      for (const p of [...nonEmpty(lists.validation), ...nonEmpty(lists.test)]) expect(train.has(p), `${name}: ${p}`).toBe(false);
    }
  });
});
