import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../types';
import { maxWeightAssignment } from './assignment';
import { checkCall, standardizeString } from './bfclChecker';
import { scoreCalls } from './scoring';
import type { FunctionCallingTask, GroundTruthCall } from './types';

const area: ToolSpec = {
  type: 'function',
  function: {
    name: 'calculate_area',
    description: 'Area of a rectangle.',
    parameters: {
      type: 'object',
      properties: {
        width: { type: 'number' },
        height: { type: 'integer' },
        unit: { type: 'string' },
        label: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        exact: { type: 'boolean' },
      },
      required: ['width', 'height'],
    },
  },
};
const fn = area.function;
const gold: GroundTruthCall = { calculate_area: { width: [2.5], height: [4], unit: ['meters', 'm'], label: ['', 'room'], tags: [['a', 'b'], ''], exact: [''] } };
const good = { width: 2.5, height: 4, unit: 'meters' };

function check(args: Record<string, unknown>, name = 'calculate_area') {
  return checkCall(fn, { name, arguments: args }, gold);
}

describe('BFCL AST checker, one call', () => {
  it('accepts the reference call and counts every expected parameter correct', () => {
    const r = check(good);
    expect(r.valid).toBe(true);
    expect(r.paramsCorrect).toBe(r.paramsTotal);
    expect(r.paramsTotal).toBe(6);
  });

  it('rejects a wrong function name', () => {
    const r = check(good, 'calculate_volume');
    expect(r.valid).toBe(false);
    expect(r.error).toMatch(/Function name/);
    expect(r.paramsCorrect).toBe(0);
  });

  it('rejects a missing required parameter', () => {
    const r = check({ width: 2.5, unit: 'm' });
    expect(r.valid).toBe(false);
    expect(r.error).toMatch(/Missing required parameter: 'height'/);
  });

  it('rejects an unknown parameter, and one in the schema but not in the possible answer', () => {
    expect(check({ ...good, colour: 'red' }).error).toMatch(/Unexpected parameter: 'colour'/);
    const noTags: GroundTruthCall = { calculate_area: { width: [2.5], height: [4], unit: ['meters'] } };
    expect(checkCall(fn, { name: 'calculate_area', arguments: { ...good, tags: ['a'] } }, noTags).error).toMatch(/Unexpected parameter: 'tags'/);
  });

  it('accepts an integer for a float parameter (BFCL int→float)', () => {
    const intGold: GroundTruthCall = { calculate_area: { width: [3.0], height: [4], unit: ['m'] } };
    expect(checkCall(fn, { name: 'calculate_area', arguments: { width: 3, height: 4, unit: 'm' } }, intGold).valid).toBe(true);
  });

  it('rejects a float for an integer parameter as a type error', () => {
    const r = check({ ...good, height: 4.5 });
    expect(r.valid).toBe(false);
    expect(r.error).toMatch(/Incorrect type for parameter 'height'/);
  });

  it('rejects a string for a number and a number for a string', () => {
    expect(check({ ...good, width: '2.5' }).error).toMatch(/Incorrect type/);
    expect(check({ ...good, unit: 5 }).error).toMatch(/Incorrect type/);
  });

  it('normalises strings: case, spaces and , . / - _ * ^ are ignored', () => {
    expect(check({ ...good, unit: ' METERS ' }).valid).toBe(true);
    expect(check({ ...good, unit: 'm.' }).valid).toBe(true);
    expect(standardizeString('April 1, 2024')).toBe(standardizeString('april 1 2024'));
    expect(standardizeString("O'Hare")).toBe('o"hare');
    expect(check({ ...good, unit: 'feet' }).error).toMatch(/Invalid value for parameter 'unit'/);
  });

  it('lets optional parameters whose answers include "" be omitted, and requires the others', () => {
    expect(check({ width: 2.5, height: 4, unit: 'm' }).valid).toBe(true); // label, tags, exact omitted
    const r = check({ width: 2.5, height: 4 }); // unit has no "" → must be given
    expect(r.valid).toBe(false);
    expect(r.error).toMatch(/Optional parameter 'unit' not provided/);
  });

  it('"" only: the parameter may be omitted but any sent value must still be listed', () => {
    expect(check({ ...good, exact: true }).valid).toBe(false);
    expect(check({ ...good, label: 'Room' }).valid).toBe(true);
  });

  it('compares lists in order after normalising their strings', () => {
    expect(check({ ...good, tags: ['A', 'b'] }).valid).toBe(true);
    expect(check({ ...good, tags: ['b', 'a'] }).valid).toBe(false);
    expect(check({ ...good, tags: ['a', 1] }).valid).toBe(false);
  });

  it('gives partial argument credit', () => {
    const r = check({ width: 2.5, height: 5, unit: 'm' });
    expect(r.valid).toBe(false);
    expect(r.paramsCorrect).toBe(5); // everything but height
    const extra = check({ ...good, colour: 'red' });
    expect(extra.paramsTotal).toBe(7);
    expect(extra.paramsCorrect).toBe(6);
  });

  it('checks dict parameters key by key, with "" marking optional keys', () => {
    const booking: ToolSpec['function'] = {
      name: 'book',
      description: '',
      parameters: { type: 'object', properties: { details: { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' }, note: { type: 'string' } } } }, required: ['details'] },
    };
    const g: GroundTruthCall = { book: { details: [{ name: ["Luigi's"], size: [4], note: ['', 'window'] }] } };
    const call = (details: unknown) => checkCall(booking, { name: 'book', arguments: { details } }, g);
    expect(call({ name: "LUIGI'S", size: 4 }).valid).toBe(true);
    expect(call({ name: "Luigi's", size: 4, note: 'window' }).valid).toBe(true);
    expect(call({ name: "Luigi's", size: 5 }).error).toMatch(/Invalid value for parameter 'size'/);
    expect(call({ name: "Luigi's" }).error).toMatch(/Missing dict key parameter: 'size'/);
    expect(call({ name: "Luigi's", size: 4, vip: true }).error).toMatch(/Unexpected dict key parameter: 'vip'/);
  });

  it('treats a value of the possible answer\'s type as a variable (compared verbatim)', () => {
    const g: GroundTruthCall = { calculate_area: { width: ['w'], height: [4], unit: ['m'] } };
    expect(checkCall(fn, { name: 'calculate_area', arguments: { width: 'w', height: 4, unit: 'm' } }, g).valid).toBe(true);
    expect(checkCall(fn, { name: 'calculate_area', arguments: { width: 'W', height: 4, unit: 'm' } }, g).valid).toBe(false);
  });

  it('never throws on odd argument values', () => {
    const odd: unknown[] = [null, [], {}, [[[]]], { a: { b: { c: null } } }, NaN, Infinity, -0, '\u0000', 'é'.repeat(1000), true];
    for (const v of odd) for (const p of ['width', 'height', 'unit', 'tags', 'exact', 'zzz']) expect(() => check({ ...good, [p]: v })).not.toThrow();
  });
});

function task(check: FunctionCallingTask['check'], groundTruth: GroundTruthCall[], tools: ToolSpec[] = [area]): Pick<FunctionCallingTask, 'check' | 'tools' | 'groundTruth'> {
  return { check, tools, groundTruth };
}

describe('BFCL AST checker, whole turn', () => {
  const weather: ToolSpec = {
    type: 'function',
    function: { name: 'get_weather', description: '', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] } },
  };
  const parallel = task('parallel', [{ get_weather: { city: ['Paris'], unit: [''] } }, { get_weather: { city: ['Tokyo'], unit: ['', 'celsius'] } }, { calculate_area: { width: [1], height: [2], unit: ['m'] } }], [weather, area]);
  const paris = { name: 'get_weather', arguments: { city: 'Paris' } };
  const tokyo = { name: 'get_weather', arguments: { city: 'tokyo', unit: 'celsius' } };
  const rect = { name: 'calculate_area', arguments: { width: 1, height: 2, unit: 'm' } };

  it('matches parallel calls in any order', () => {
    for (const order of [[paris, tokyo, rect], [rect, tokyo, paris], [tokyo, rect, paris]]) {
      const v = scoreCalls(parallel, order);
      expect(v.valid).toBe(true);
      expect(v.components).toEqual({ function_choice: 1, arguments: 1, exact_match: 1 });
    }
  });

  it('finds the matching a greedy pass would miss', () => {
    // The first expected call accepts both Paris calls' shapes; only one assignment satisfies both.
    const t = task('parallel', [{ get_weather: { city: ['Paris'], unit: ['', 'celsius'] } }, { get_weather: { city: ['Paris'], unit: ['celsius'] } }], [weather]);
    const v = scoreCalls(t, [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }, { name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(v.valid).toBe(true);
  });

  it('rejects a wrong number of parallel calls and gives partial credit', () => {
    const v = scoreCalls(parallel, [paris, rect]);
    expect(v.valid).toBe(false);
    expect(v.errors[0]).toMatch(/wrong number of functions/);
    expect(v.components.function_choice).toBeCloseTo(2 / 3);
    expect(v.components.arguments).toBeCloseTo(2 / 3);
  });

  it('simple: exactly one call, so a duplicate call fails', () => {
    const t = task('simple', [{ calculate_area: { width: [1], height: [2], unit: ['m'] } }]);
    expect(scoreCalls(t, [rect]).valid).toBe(true);
    const twice = scoreCalls(t, [rect, rect]);
    expect(twice.valid).toBe(false);
    expect(twice.components.function_choice).toBe(0.5);
  });

  it('irrelevance: correct iff no call', () => {
    const t = task('irrelevance', []);
    expect(scoreCalls(t, []).components).toEqual({ function_choice: 1, arguments: 1, exact_match: 1 });
    expect(scoreCalls(t, [rect]).components).toEqual({ function_choice: 0, arguments: 0, exact_match: 0 });
  });

  it('relevance: correct iff some call', () => {
    const t = task('relevance', []);
    expect(scoreCalls(t, [rect]).valid).toBe(true);
    expect(scoreCalls(t, []).valid).toBe(false);
  });

  it('no call on a task that needs one scores 0 everywhere', () => {
    expect(scoreCalls(parallel, []).components).toEqual({ function_choice: 0, arguments: 0, exact_match: 0 });
  });
});

describe('maxWeightAssignment', () => {
  it('finds the optimum on rectangular matrices', () => {
    expect(maxWeightAssignment([[1, 0.9], [0.8, 0]]).total).toBeCloseTo(1.7);
    expect(maxWeightAssignment([[0.5, 1, 0]]).rowToCol).toEqual([1]);
    const tall = maxWeightAssignment([[1], [2], [0.5]]);
    expect(tall.total).toBe(2);
    expect(tall.rowToCol).toEqual([-1, 0, -1]);
    expect(maxWeightAssignment([]).total).toBe(0);
  });

  it('agrees with brute force on random 4×4 matrices', () => {
    let s = 7;
    const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) % 1000) / 1000;
    const perms = (n: number): number[][] => (n === 0 ? [[]] : perms(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)])));
    for (let trial = 0; trial < 50; trial++) {
      const w = Array.from({ length: 4 }, () => Array.from({ length: 4 }, rand));
      const best = Math.max(...perms(4).map((p) => p.reduce((acc, col, row) => acc + w[row][col], 0)));
      expect(maxWeightAssignment(w).total).toBeCloseTo(best, 9);
    }
  });
});
