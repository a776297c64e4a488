// The learn CLI's paired gap between arms (armDifference.ts): outcomes pair by task id, not by the
// order they were stored in; evaluations of different tasks are refused; the pooled figure is the
// interval over all seeds' tasks. Expected values: Newcombe's method 10 worked apart (see
// src/eval/pairedDifference.test.ts, case a 12, b 9, c 2, d 4 → +25.9 [+1.9, +46.1]: 0.2593 [0.0192, 0.4615]).
import { describe, expect, it } from 'vitest';
import { armDifference, formatArmDifference, pairOutcomes, pooledArmDifference } from './armDifference';
import type { TaskSetEval } from './evalSummary';

/** A task set's evaluation holding only what pairing reads (the task ids and their success). */
function evalOf(successByTask: Record<string, boolean>, taskSet = 'function-calling/route4'): TaskSetEval {
  return { taskSet, successByTask } as TaskSetEval;
}

/** (a both, b x only, c y only, d neither) as two evaluations; y stores its tasks in reverse order. */
function arms(a: number, b: number, c: number, d: number, seed = 1): { x: TaskSetEval; y: TaskSetEval } {
  const rows: [boolean, boolean][] = [
    ...Array<[boolean, boolean]>(a).fill([true, true]), ...Array<[boolean, boolean]>(b).fill([true, false]),
    ...Array<[boolean, boolean]>(c).fill([false, true]), ...Array<[boolean, boolean]>(d).fill([false, false]),
  ];
  const ids = rows.map((_, i) => `route4-test-${seed}-${i}`);
  const x = Object.fromEntries(ids.map((id, i) => [id, rows[i][0]]));
  const y = Object.fromEntries(ids.map((id, i) => [id, rows[i][1]]).reverse());
  return { x: evalOf(x), y: evalOf(y) };
}

describe('armDifference: the gap between two evaluations of the same tasks, paired', () => {
  it('pairs by task id (y stored in another order) and gives Newcombe\'s interval', () => {
    const { x, y } = arms(12, 9, 2, 4);
    const d = armDifference(x, y);
    expect(d.diff).toBeCloseTo(0.2593, 4);
    expect(d.lo).toBeCloseTo(0.0192, 4);
    expect(d.hi).toBeCloseTo(0.4615, 4);
    expect([d.n, d.onlyX, d.onlyY]).toEqual([27, 9, 2]);
    // pairing by stored order instead would see another table (the test can fail)
    const byOrder = { x: Object.values(x.successByTask), y: Object.values(y.successByTask) };
    expect(byOrder.x.filter((v, i) => v && !byOrder.y[i]).length).not.toBe(9);
    expect(formatArmDifference(d, 'the GRPO arm', 'the SFT-only arm')).toBe('+25.9 [+1.9, +46.1] points (paired, n = 27: 9 tasks solved only by the GRPO arm, 2 only by the SFT-only arm)');
  });

  it('refuses evaluations of different tasks or task sets, saying which', () => {
    const { x } = arms(2, 1, 1, 1);
    const other = evalOf({ ...x.successByTask, 'route4-test-1-99': true });
    expect(() => armDifference(x, other)).toThrow(/played different tasks \(5 against 6\)/);
    const renamed = evalOf(Object.fromEntries(Object.entries(x.successByTask).map(([id, v]) => [id.replace('test', 'validation'), v])));
    expect(() => armDifference(x, renamed)).toThrow(/route4-test-1-0, route4-test-1-1, route4-test-1-2 … only in the first/);
    expect(() => armDifference(x, evalOf(x.successByTask, 'function-calling/route8'))).toThrow(/route4 against function-calling\/route8/);
  });

  it('pools seeds by concatenating their tasks', () => {
    const s1 = arms(12, 9, 2, 4, 1);
    const s2 = arms(3, 2, 1, 4, 2);
    const pooled = pooledArmDifference([pairOutcomes(s1.x, s1.y), pairOutcomes(s2.x, s2.y)]);
    const whole = armDifference(arms(15, 11, 3, 8).x, arms(15, 11, 3, 8).y);
    expect(pooled).toEqual(whole);
    expect(formatArmDifference(pooled, 'a', 'b')).toMatch(/^\+21\.6 \[/);
  });
});
