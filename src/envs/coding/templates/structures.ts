// Data-structure problems: matrix transforms, an LRU cache, a min/max stack, a ring buffer,
// spiral order, grouping, interval merging. Operation lists are arrays like ['put', 1, 10].
import type { Rng } from '../../../util/rng';
import { intArray, repeat, word, type ProblemTemplate } from './types';

/** An r×c matrix of small integers. */
function matrix(rng: Rng, r: number, c: number): number[][] {
  return Array.from({ length: r }, () => intArray(rng, c, 0, 9));
}

const matrixTransform: ProblemTemplate = {
  id: 'matrix-transform',
  category: 'data-structures',
  make(rng) {
    const kind = rng.pick(['transpose', 'rotate-cw', 'rotate-ccw'] as const);
    const entry = { transpose: rng.pick(['transpose', 'transposeMatrix']), 'rotate-cw': rng.pick(['rotateClockwise', 'rotateRight90']), 'rotate-ccw': rng.pick(['rotateCounterClockwise', 'rotateLeft90']) }[kind];
    const what = { transpose: 'its transpose (row i of the result is column i of the input)', 'rotate-cw': 'the matrix rotated 90° clockwise', 'rotate-ccw': 'the matrix rotated 90° counter-clockwise' }[kind];
    const cell = { transpose: 'matrix[j][i]', 'rotate-cw': 'matrix[n - 1 - j][i]', 'rotate-ccw': 'matrix[j][n - 1 - i]' }[kind];
    const build = { transpose: 'matrix.map((row) => row[j])', 'rotate-cw': 'matrix.map((row) => row[j]).reverse()', 'rotate-ccw': 'matrix.map((row) => row[row.length - 1 - j])' }[kind];
    return {
      entry,
      params: ['matrix'],
      statement: `Write ${entry}(matrix) that takes a rectangular matrix (an array of equally long rows, not necessarily square) and returns ${what} as a new array of rows. [] gives [].`,
      reference: `function ${entry}(matrix) {\n  if (matrix.length === 0) return [];\n  return matrix[0].map((_, j) => ${build});\n}\n`,
      buggy: `function ${entry}(matrix) {\n  const n = matrix.length;\n  const out = [];\n  for (let i = 0; i < n; i++) {\n    out.push([]);\n    for (let j = 0; j < n; j++) out[i].push(${cell});\n  }\n  return out;\n}\n`,
      bugNote: 'the matrix need not be square: the result has as many rows as the input has columns',
      oracle: (m: number[][]) => {
        const r = m.length;
        if (r === 0) return [];
        const c = m[0].length;
        const out = Array.from({ length: c }, () => new Array<number>(r));
        for (let i = 0; i < r; i++) {
          for (let j = 0; j < c; j++) {
            if (kind === 'transpose') out[j][i] = m[i][j];
            else if (kind === 'rotate-cw') out[j][r - 1 - i] = m[i][j];
            else out[c - 1 - j][i] = m[i][j];
          }
        }
        return out;
      },
      publicInputs: [[[[1, 2, 3], [4, 5, 6]]], [matrix(rng, 2, 2)], [[]]],
      hiddenInputs: repeat(9, () => [matrix(rng, rng.int(1, 4), rng.int(1, 4))]),
    };
  },
};

const lruCache: ProblemTemplate = {
  id: 'lru-cache',
  category: 'data-structures',
  make(rng) {
    const missing = rng.pick([-1, null]);
    const entry = rng.pick(['lruCache', 'runLruCache', 'simulateLru']);
    const M = JSON.stringify(missing);
    const ops = () => Array.from({ length: rng.int(4, 14) }, () => (rng.next() < 0.5 ? ['put', rng.int(1, 5), rng.int(10, 99)] : ['get', rng.int(1, 5)]));
    return {
      entry,
      params: ['capacity', 'ops'],
      statement: `Write ${entry}(capacity, ops) that simulates a least-recently-used cache holding at most \`capacity\` keys. \`ops\` is a list of ["put", key, value] and ["get", key]. A get returns the key's value, or ${M} when the key is absent, and makes the key the most recently used. A put stores the value (replacing an old one) and makes the key the most recently used; when a new key would exceed the capacity, the least recently used key is evicted first. Return the array of the results of the gets, in order.`,
      reference: `function ${entry}(capacity, ops) {\n  const cache = new Map();\n  const results = [];\n  for (const [op, key, value] of ops) {\n    if (op === 'get') {\n      if (!cache.has(key)) { results.push(${M}); continue; }\n      const v = cache.get(key);\n      cache.delete(key);\n      cache.set(key, v);\n      results.push(v);\n    } else {\n      cache.delete(key);\n      cache.set(key, value);\n      if (cache.size > capacity) cache.delete(cache.keys().next().value);\n    }\n  }\n  return results;\n}\n`,
      buggy: `function ${entry}(capacity, ops) {\n  const cache = new Map();\n  const results = [];\n  for (const [op, key, value] of ops) {\n    if (op === 'get') results.push(cache.has(key) ? cache.get(key) : ${M});\n    else {\n      if (!cache.has(key) && cache.size === capacity) cache.delete(cache.keys().next().value);\n      cache.set(key, value);\n    }\n  }\n  return results;\n}\n`,
      bugNote: 'a get (and a put of an existing key) must make the key the most recently used, otherwise the wrong key is evicted',
      oracle: (capacity: number, list: [string, number, number?][]) => {
        let order: { key: number; value: number }[] = []; // least recently used first
        const results: (number | null)[] = [];
        for (const [op, key, value] of list) {
          const found = order.find((e) => e.key === key);
          order = order.filter((e) => e.key !== key);
          if (op === 'get') {
            results.push(found ? found.value : missing);
            if (found) order.push(found);
          } else {
            order.push({ key, value: value as number });
            if (order.length > capacity) order.shift();
          }
        }
        return results;
      },
      publicInputs: [[2, [['put', 1, 10], ['put', 2, 20], ['get', 1], ['put', 3, 30], ['get', 2], ['get', 1], ['get', 3]]], [rng.int(1, 3), ops()], [1, [['get', 7]]]],
      hiddenInputs: repeat(9, () => [rng.int(1, 3), ops()]),
    };
  },
};

const extremeStack: ProblemTemplate = {
  id: 'min-max-stack',
  category: 'data-structures',
  make(rng) {
    const isMin = rng.next() < 0.5;
    const q = isMin ? 'min' : 'max';
    const entry = isMin ? rng.pick(['minStack', 'runMinStack']) : rng.pick(['maxStack', 'runMaxStack']);
    const pick = isMin ? 'Math.min' : 'Math.max';
    const ops = () => Array.from({ length: rng.int(3, 12) }, () => { const r = rng.next(); return r < 0.45 ? ['push', rng.int(-9, 20)] : r < 0.65 ? ['pop'] : r < 0.85 ? [q] : ['top']; });
    return {
      entry,
      params: ['ops'],
      statement: `Write ${entry}(ops) that runs a stack through \`ops\`: ["push", x] pushes x; ["pop"] removes the top value and outputs it; ["top"] outputs the top value; ["${q}"] outputs the ${isMin ? 'smallest' : 'largest'} value currently on the stack. On an empty stack pop, top and ${q} output null. Return the array of outputs in order.`,
      reference: `function ${entry}(ops) {\n  const stack = []; // [value, ${q} of the stack up to here]\n  const out = [];\n  for (const [op, x] of ops) {\n    const last = stack[stack.length - 1];\n    if (op === 'push') stack.push([x, last ? ${pick}(last[1], x) : x]);\n    else if (op === 'pop') out.push(stack.length ? stack.pop()[0] : null);\n    else if (op === 'top') out.push(last ? last[0] : null);\n    else out.push(last ? last[1] : null);\n  }\n  return out;\n}\n`,
      buggy: `function ${entry}(ops) {\n  const stack = [];\n  let best = null;\n  const out = [];\n  for (const [op, x] of ops) {\n    if (op === 'push') { stack.push(x); best = best === null ? x : ${pick}(best, x); }\n    else if (op === 'pop') out.push(stack.length ? stack.pop() : null);\n    else if (op === 'top') out.push(stack.length ? stack[stack.length - 1] : null);\n    else out.push(stack.length ? best : null);\n  }\n  return out;\n}\n`,
      bugNote: `after a pop the ${q} must be the ${q} of what is left, so it has to be tracked per stack level`,
      oracle: (list: [string, number?][]) => {
        const stack: number[] = [];
        const out: (number | null)[] = [];
        for (const [op, x] of list) {
          if (op === 'push') stack.push(x as number);
          else if (stack.length === 0) out.push(null);
          else if (op === 'pop') out.push(stack.pop() as number);
          else if (op === 'top') out.push(stack[stack.length - 1]);
          else out.push(isMin ? Math.min(...stack) : Math.max(...stack));
        }
        return out;
      },
      publicInputs: [[[['push', 5], ['push', isMin ? 1 : 9], [q], ['pop'], [q], ['top']]], [ops()], [[['pop'], [q]]]],
      hiddenInputs: repeat(9, () => [ops()]),
    };
  },
};

const ringBuffer: ProblemTemplate = {
  id: 'ring-buffer',
  category: 'data-structures',
  make(rng) {
    const entry = rng.pick(['ringBuffer', 'circularBuffer', 'runRingBuffer']);
    const ops = () => Array.from({ length: rng.int(3, 14) }, () => (rng.next() < 0.6 ? ['write', rng.int(1, 99)] : ['read']));
    return {
      entry,
      params: ['capacity', 'ops'],
      statement: `Write ${entry}(capacity, ops) that simulates a ring buffer holding at most \`capacity\` values. ["write", x] adds x; when the buffer is full, the OLDEST value is overwritten (dropped) to make room. ["read"] removes and outputs the oldest value, or null when the buffer is empty. Return the array of read outputs in order.`,
      reference: `function ${entry}(capacity, ops) {\n  const queue = [];\n  const out = [];\n  for (const [op, x] of ops) {\n    if (op === 'write') {\n      if (queue.length === capacity) queue.shift();\n      queue.push(x);\n    } else out.push(queue.length ? queue.shift() : null);\n  }\n  return out;\n}\n`,
      buggy: `function ${entry}(capacity, ops) {\n  const queue = [];\n  const out = [];\n  for (const [op, x] of ops) {\n    if (op === 'write') {\n      if (queue.length < capacity) queue.push(x);\n    } else out.push(queue.length ? queue.shift() : null);\n  }\n  return out;\n}\n`,
      bugNote: 'a write into a full buffer must drop the oldest value, not ignore the new one',
      oracle: (capacity: number, list: [string, number?][]) => {
        const slots = new Array<number>(capacity);
        let head = 0;
        let count = 0;
        const out: (number | null)[] = [];
        for (const [op, x] of list) {
          if (op === 'write') {
            slots[(head + count) % capacity] = x as number;
            if (count === capacity) head = (head + 1) % capacity;
            else count++;
          } else if (count === 0) out.push(null);
          else { out.push(slots[head]); head = (head + 1) % capacity; count--; }
        }
        return out;
      },
      publicInputs: [[2, [['write', 1], ['write', 2], ['write', 3], ['read'], ['read'], ['read']]], [rng.int(1, 4), ops()], [1, [['read']]]],
      hiddenInputs: repeat(9, () => [rng.int(1, 4), ops()]),
    };
  },
};

const spiral: ProblemTemplate = {
  id: 'spiral-order',
  category: 'data-structures',
  make(rng) {
    const entry = rng.pick(['spiralOrder', 'spiral', 'readSpiral']);
    return {
      entry,
      params: ['matrix'],
      statement: `Write ${entry}(matrix) that returns all elements of the rectangular matrix (array of equally long rows) in clockwise spiral order: along the top row to the right, down the right column, back along the bottom row, up the left column, then the same for the inner rectangle, and so on. [] gives [].`,
      reference: `function ${entry}(matrix) {\n  const out = [];\n  if (matrix.length === 0) return out;\n  let top = 0, bottom = matrix.length - 1, left = 0, right = matrix[0].length - 1;\n  while (top <= bottom && left <= right) {\n    for (let j = left; j <= right; j++) out.push(matrix[top][j]);\n    top++;\n    for (let i = top; i <= bottom; i++) out.push(matrix[i][right]);\n    right--;\n    if (top <= bottom) {\n      for (let j = right; j >= left; j--) out.push(matrix[bottom][j]);\n      bottom--;\n    }\n    if (left <= right) {\n      for (let i = bottom; i >= top; i--) out.push(matrix[i][left]);\n      left++;\n    }\n  }\n  return out;\n}\n`,
      buggy: `function ${entry}(matrix) {\n  const out = [];\n  if (matrix.length === 0) return out;\n  let top = 0, bottom = matrix.length - 1, left = 0, right = matrix[0].length - 1;\n  while (top <= bottom && left <= right) {\n    for (let j = left; j <= right; j++) out.push(matrix[top][j]);\n    top++;\n    for (let i = top; i <= bottom; i++) out.push(matrix[i][right]);\n    right--;\n    for (let j = right; j >= left; j--) out.push(matrix[bottom][j]);\n    bottom--;\n    for (let i = bottom; i >= top; i--) out.push(matrix[i][left]);\n    left++;\n  }\n  return out;\n}\n`,
      bugNote: 'after the top row and right column, the bottom row and left column may already be used up (single row or column left), so they must be checked',
      oracle: (m: number[][]) => {
        const r = m.length;
        const c = r ? m[0].length : 0;
        const seen = m.map((row) => row.map(() => false));
        const dirs = [[0, 1], [1, 0], [0, -1], [-1, 0]];
        const out: number[] = [];
        let [i, j, d] = [0, 0, 0];
        for (let k = 0; k < r * c; k++) {
          out.push(m[i][j]);
          seen[i][j] = true;
          const [ni, nj] = [i + dirs[d][0], j + dirs[d][1]];
          if (ni < 0 || ni >= r || nj < 0 || nj >= c || seen[ni][nj]) d = (d + 1) % 4;
          [i, j] = [i + dirs[d][0], j + dirs[d][1]];
        }
        return out;
      },
      publicInputs: [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3, 4]]], [matrix(rng, 3, 2)]],
      hiddenInputs: [...repeat(8, () => [matrix(rng, rng.int(1, 5), rng.int(1, 5))]), [[]]],
    };
  },
};

const groupBy: ProblemTemplate = {
  id: 'group-by',
  category: 'data-structures',
  make(rng) {
    const sorted = rng.next() < 0.5;
    const entry = rng.pick(['groupByTeam', 'groupNames', 'groupPairs']);
    const groups = ['red', 'blue', 'green', 'gold'];
    const pairs = () => Array.from({ length: rng.int(0, 8) }, () => [word(rng, 2, 5, 'abdeilmnorstu'), rng.pick(groups)]);
    return {
      entry,
      params: ['pairs'],
      statement: `Write ${entry}(pairs) that takes an array of [name, group] pairs and returns an object mapping each group that occurs to the array of its names${sorted ? ', sorted alphabetically' : ', in the order they appear in `pairs`'}. Duplicate names are kept.`,
      reference: sorted
        ? `function ${entry}(pairs) {\n  const out = {};\n  for (const [name, group] of pairs) (out[group] ??= []).push(name);\n  for (const group of Object.keys(out)) out[group].sort();\n  return out;\n}\n`
        : `function ${entry}(pairs) {\n  const out = {};\n  for (const [name, group] of pairs) {\n    if (!out[group]) out[group] = [];\n    out[group].push(name);\n  }\n  return out;\n}\n`,
      buggy: sorted
        ? `function ${entry}(pairs) {\n  const out = {};\n  for (const [name, group] of pairs) (out[group] ??= []).push(name);\n  return out;\n}\n`
        : `function ${entry}(pairs) {\n  const out = {};\n  for (const [name, group] of pairs) out[group] = [name];\n  return out;\n}\n`,
      bugNote: sorted ? 'the names in each group must be sorted' : 'names must be appended to their group, not replace it',
      oracle: (list: [string, string][]) => {
        const out: Record<string, string[]> = {};
        for (const g of new Set(list.map(([, group]) => group))) {
          const names = list.filter(([, group]) => group === g).map(([name]) => name);
          out[g] = sorted ? names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : names;
        }
        return out;
      },
      publicInputs: [[[['zoe', 'red'], ['adam', 'blue'], ['mia', 'red'], ['bob', 'red']]], [pairs()], [[]]],
      hiddenInputs: repeat(9, () => [pairs()]),
    };
  },
};

const mergeIntervals: ProblemTemplate = {
  id: 'merge-intervals',
  category: 'data-structures',
  make(rng) {
    const touching = rng.next() < 0.5;
    const entry = rng.pick(['mergeIntervals', 'mergeRanges', 'unionIntervals']);
    const cmp = touching ? '<=' : '<';
    // Without touching, zero-length intervals would make the answer depend on input order at equal starts.
    const intervals = () => Array.from({ length: rng.int(0, 6) }, () => { const s = rng.int(0, 20); return [s, s + rng.int(touching ? 0 : 1, 6)]; });
    return {
      entry,
      params: ['intervals'],
      statement: `Write ${entry}(intervals) that merges overlapping intervals. Each interval is [start, end] with start ≤ end; the input is in no particular order. Two intervals merge when they overlap${touching ? ' or touch (one ends where the other starts, like [1, 3] and [3, 5])' : ' by more than a point: [1, 3] and [3, 5] stay separate, [1, 3] and [2, 5] merge'}. Return the merged intervals sorted by start.`,
      reference: `function ${entry}(intervals) {\n  const sorted = intervals.map((iv) => iv.slice()).sort((a, b) => a[0] - b[0]);\n  const out = [];\n  for (const iv of sorted) {\n    const last = out[out.length - 1];\n    if (last && iv[0] ${cmp} last[1]) last[1] = Math.max(last[1], iv[1]);\n    else out.push(iv);\n  }\n  return out;\n}\n`,
      buggy: `function ${entry}(intervals) {\n  const out = [];\n  for (const iv of intervals) {\n    const last = out[out.length - 1];\n    if (last && iv[0] ${cmp} last[1]) last[1] = Math.max(last[1], iv[1]);\n    else out.push(iv.slice());\n  }\n  return out;\n}\n`,
      bugNote: 'the intervals have to be sorted by start before merging neighbours',
      oracle: (list: [number, number][]) => {
        let merged = list.map(([s, e]) => [s, e]);
        const joins = (a: number[], b: number[]) => (touching ? a[0] <= b[1] && b[0] <= a[1] : a[0] < b[1] && b[0] < a[1]);
        for (let changed = true; changed;) {
          changed = false;
          outer: for (let i = 0; i < merged.length; i++) {
            for (let j = i + 1; j < merged.length; j++) {
              if (joins(merged[i], merged[j])) {
                merged[i] = [Math.min(merged[i][0], merged[j][0]), Math.max(merged[i][1], merged[j][1])];
                merged = merged.filter((_, k) => k !== j);
                changed = true;
                break outer;
              }
            }
          }
        }
        return merged.sort((a, b) => a[0] - b[0]);
      },
      publicInputs: [[[[8, 10], [1, 3], [2, 6], [15, 18]]], [[[1, 3], [3, 5]]], [[]]],
      hiddenInputs: repeat(9, () => [intervals()]),
    };
  },
};

export const STRUCTURE_TEMPLATES: ProblemTemplate[] = [matrixTransform, lruCache, extremeStack, ringBuffer, spiral, groupBy, mergeIntervals];
