// Array problems: rotation, chunking, de-duplication, k-th largest, two-sum, flattening, maximum
// subarray, moving a value to the end, running totals.
import type { Rng } from '../../../util/rng';
import { intArray, repeat, type ProblemTemplate } from './types';

const ORDINALS = ['', 'first', 'second', 'third', 'fourth'];

/** 1..n shuffled. */
function distinct(rng: Rng, n: number): number[] {
  return rng.shuffle(Array.from({ length: n }, (_, i) => i + 1));
}

const rotate: ProblemTemplate = {
  id: 'rotate-array',
  category: 'arrays',
  make(rng) {
    const left = rng.next() < 0.5;
    const entry = left ? rng.pick(['rotateLeft', 'rotateArrayLeft', 'shiftLeft']) : rng.pick(['rotateRight', 'rotateArrayRight', 'shiftRight']);
    const k = rng.int(3, 9);
    const steps = left ? `const s = k % n;` : `const s = (n - (k % n)) % n;`;
    const buggyBody = left ? `return arr.slice(${k}).concat(arr.slice(0, ${k}));` : `return arr.slice(-${k}).concat(arr.slice(0, -${k}));`;
    return {
      entry,
      params: ['arr'],
      statement: `Write ${entry}(arr) that returns a new array: \`arr\` rotated ${k} positions to the ${left ? 'left (the first element moves to the end, k times)' : 'right (the last element moves to the front, k times)'}. ${k} may be larger than the length of the array; an empty array gives [].`,
      reference: `function ${entry}(arr) {\n  const n = arr.length;\n  if (n === 0) return [];\n  const k = ${k};\n  ${steps}\n  return arr.slice(s).concat(arr.slice(0, s));\n}\n`,
      buggy: `function ${entry}(arr) {\n  ${buggyBody}\n}\n`,
      bugNote: `the rotation amount has to be taken modulo the array length when ${k} is larger than the array`,
      oracle: (arr: number[]) => {
        const n = arr.length;
        const out = new Array<number>(n);
        for (let i = 0; i < n; i++) {
          if (left) out[i] = arr[(i + k) % n];
          else out[(i + k) % n] = arr[i];
        }
        return out;
      },
      // Distinct values, and one example shorter than k, so a rotation that skips the modulo shows.
      publicInputs: [[distinct(rng, k + 2)], [distinct(rng, k - 1)], [[]]],
      hiddenInputs: [...repeat(8, () => [intArray(rng, rng.int(1, 12), -20, 20)]), [[5]]],
    };
  },
};

const chunk: ProblemTemplate = {
  id: 'chunk-array',
  category: 'arrays',
  make(rng) {
    const entry = rng.pick(['chunk', 'chunkArray', 'splitIntoGroups']);
    const c = rng.int(2, 5);
    return {
      entry,
      params: ['arr'],
      statement: `Write ${entry}(arr) that splits \`arr\` into consecutive groups of ${c} elements and returns the array of groups. The last group holds whatever is left and may be shorter. [] gives [].`,
      reference: `function ${entry}(arr) {\n  const groups = [];\n  for (let i = 0; i < arr.length; i += ${c}) groups.push(arr.slice(i, i + ${c}));\n  return groups;\n}\n`,
      buggy: `function ${entry}(arr) {\n  const groups = [];\n  for (let i = 0; i + ${c} <= arr.length; i += ${c}) groups.push(arr.slice(i, i + ${c}));\n  return groups;\n}\n`,
      bugNote: 'the last, shorter group is dropped',
      oracle: (arr: number[]) => arr.reduce<number[][]>((groups, x, i) => {
        if (i % c === 0) groups.push([]);
        groups[groups.length - 1].push(x);
        return groups;
      }, []),
      publicInputs: [[intArray(rng, 2 * c + 1, 0, 9)], [intArray(rng, c, 0, 9)], [[]]],
      hiddenInputs: repeat(8, () => [intArray(rng, rng.int(1, 13), -9, 9)]),
    };
  },
};

const dedupe: ProblemTemplate = {
  id: 'dedupe',
  category: 'arrays',
  make(rng) {
    const keepLast = rng.next() < 0.4;
    const entry = rng.pick(['dedupe', 'uniqueValues', 'removeDuplicates']);
    return {
      entry,
      params: ['arr'],
      statement: keepLast
        ? `Write ${entry}(arr) that removes repeated values from \`arr\`, keeping only the LAST occurrence of each value; the kept elements stay in their original relative order. Return a new array.`
        : `Write ${entry}(arr) that removes repeated values from \`arr\`, keeping the first occurrence of each value; the kept elements stay in their original order. Return a new array.`,
      reference: keepLast
        ? `function ${entry}(arr) {\n  return arr.filter((x, i) => arr.lastIndexOf(x) === i);\n}\n`
        : `function ${entry}(arr) {\n  const seen = new Set();\n  const out = [];\n  for (const x of arr) {\n    if (!seen.has(x)) { seen.add(x); out.push(x); }\n  }\n  return out;\n}\n`,
      buggy: keepLast ? `function ${entry}(arr) {\n  return [...new Set(arr)];\n}\n` : `function ${entry}(arr) {\n  return [...new Set(arr)].sort((a, b) => a - b);\n}\n`,
      bugNote: keepLast ? 'the last occurrence of each value decides its position, not the first' : 'the original order must be kept, not sorted',
      oracle: (arr: number[]) => {
        const pos = new Map<number, number>();
        arr.forEach((x, i) => { if (keepLast || !pos.has(x)) pos.set(x, i); });
        return [...pos.entries()].sort((a, b) => a[1] - b[1]).map(([x]) => x);
      },
      publicInputs: [[[3, 1, 3, 2, 1]], [intArray(rng, 6, 1, 4)], [[]]],
      hiddenInputs: repeat(8, () => [intArray(rng, rng.int(1, 12), -3, 6)]),
    };
  },
};

const kthLargest: ProblemTemplate = {
  id: 'kth-largest',
  category: 'arrays',
  make(rng) {
    const k = rng.int(2, 4);
    const entry = rng.pick(['kthLargest', `${ORDINALS[k]}Largest`, 'nthLargestDistinct']);
    const withRepeatedMax = (): number[] => { const a = intArray(rng, 4, 0, 5); const m = 9; return rng.shuffle([...a, m, m, m]); };
    return {
      entry,
      params: ['nums'],
      statement: `Write ${entry}(nums) that returns the ${ORDINALS[k]} largest DISTINCT value in \`nums\` (equal values count once), or null when \`nums\` has fewer than ${k} distinct values.`,
      reference: `function ${entry}(nums) {\n  const distinct = [...new Set(nums)].sort((a, b) => b - a);\n  return distinct.length >= ${k} ? distinct[${k - 1}] : null;\n}\n`,
      buggy: `function ${entry}(nums) {\n  const sorted = [...nums].sort((a, b) => b - a);\n  return sorted.length >= ${k} ? sorted[${k - 1}] : null;\n}\n`,
      bugNote: 'equal values must be counted once before picking',
      oracle: (nums: number[]) => {
        let best: number | null = null;
        let rest = nums;
        for (let i = 0; i < k; i++) {
          if (rest.length === 0) return null;
          best = Math.max(...rest);
          const b = best;
          rest = rest.filter((x) => x !== b);
        }
        return best;
      },
      publicInputs: [[withRepeatedMax()], [intArray(rng, 6, 10, 40)], [[7, 7]]],
      hiddenInputs: [...repeat(8, () => [intArray(rng, rng.int(0, 10), -5, 12)]), [[1, 2, 3, 4, 5]]],
    };
  },
};

const twoSum: ProblemTemplate = {
  id: 'two-sum',
  category: 'arrays',
  make(rng) {
    const entry = rng.pick(['twoSum', 'findPairWithSum', 'pairIndices']);
    const withPair = (): unknown[] => {
      const a = intArray(rng, rng.int(2, 9), -10, 20);
      const i = rng.int(0, a.length - 2);
      const j = rng.int(i + 1, a.length - 1);
      return [a, a[i] + a[j]];
    };
    return {
      entry,
      params: ['nums', 'target'],
      statement: `Write ${entry}(nums, target) that returns [i, j] with i < j and nums[i] + nums[j] === target (two different positions). If several pairs work, return the one with the smallest j, and for that j the smallest i. Return null when no pair exists.`,
      reference: `function ${entry}(nums, target) {\n  const firstIndex = new Map();\n  for (let j = 0; j < nums.length; j++) {\n    const need = target - nums[j];\n    if (firstIndex.has(need)) return [firstIndex.get(need), j];\n    if (!firstIndex.has(nums[j])) firstIndex.set(nums[j], j);\n  }\n  return null;\n}\n`,
      buggy: `function ${entry}(nums, target) {\n  for (let i = 0; i < nums.length; i++) {\n    for (let j = i; j < nums.length; j++) {\n      if (nums[i] + nums[j] === target) return [i, j];\n    }\n  }\n  return null;\n}\n`,
      bugNote: 'an element cannot be paired with itself, and the pair with the smallest j comes first',
      oracle: (nums: number[], target: number) => {
        for (let j = 1; j < nums.length; j++) for (let i = 0; i < j; i++) if (nums[i] + nums[j] === target) return [i, j];
        return null;
      },
      publicInputs: [[[3, 2, 4], 6], withPair(), [[1, 2], 7]],
      hiddenInputs: [...repeat(7, () => (rng.next() < 0.8 ? withPair() : [intArray(rng, 4, 0, 5), 50])), [[5, 5], 10], [[], 0]],
    };
  },
};

/** A random nested array of small integers, at most `depth` levels deep. */
function nested(rng: Rng, depth: number): unknown[] {
  return Array.from({ length: rng.int(0, 4) }, () => (depth > 1 && rng.next() < 0.35 ? nested(rng, depth - 1) : rng.int(0, 9)));
}

const flatten: ProblemTemplate = {
  id: 'flatten',
  category: 'arrays',
  make(rng) {
    const depth = rng.pick([1, 2, Infinity]);
    const entry = depth === Infinity ? rng.pick(['flattenDeep', 'flattenAll']) : rng.pick(['flatten', 'flattenLevels']);
    const flat = (a: unknown[], d: number): unknown[] => a.flatMap((x) => (Array.isArray(x) && d > 0 ? flat(x, d - 1) : [x]));
    return {
      entry,
      params: ['arr'],
      statement: depth === Infinity
        ? `Write ${entry}(arr) that flattens the nested array \`arr\` completely: the result holds every number of \`arr\`, at any depth, in left-to-right order.`
        : `Write ${entry}(arr) that flattens the nested array \`arr\` by ${depth === 1 ? 'exactly one level' : 'up to two levels'}: arrays nested ${depth === 1 ? 'one level' : 'one or two levels'} deep are spliced into their parent, deeper arrays stay arrays.`,
      reference: `function ${entry}(arr) {\n  return arr.flat(${depth === Infinity ? 'Infinity' : depth});\n}\n`,
      buggy: `function ${entry}(arr) {\n  return arr.flat(${depth === Infinity ? '' : 'Infinity'});\n}\n`,
      bugNote: depth === Infinity ? 'flat() with no argument only removes one level of nesting' : `only ${depth} level${depth === 1 ? '' : 's'} may be removed; deeper arrays must stay`,
      oracle: (arr: unknown[]) => flat(arr, depth),
      publicInputs: [[[1, [2, [3, [4]]], 5]], [[[1, 2], [3], 4]], [[]]],
      hiddenInputs: repeat(8, () => [nested(rng, 4)]),
    };
  },
};

const maxSubarray: ProblemTemplate = {
  id: 'max-subarray',
  category: 'arrays',
  make(rng) {
    const entry = rng.pick(['maxSubarraySum', 'bestRunSum', 'largestContiguousSum']);
    return {
      entry,
      params: ['nums'],
      statement: `Write ${entry}(nums) that returns the largest sum of a non-empty contiguous run of elements of \`nums\` (nums has at least one element; the elements may all be negative).`,
      reference: `function ${entry}(nums) {\n  let best = nums[0];\n  let current = nums[0];\n  for (let i = 1; i < nums.length; i++) {\n    current = Math.max(nums[i], current + nums[i]);\n    best = Math.max(best, current);\n  }\n  return best;\n}\n`,
      buggy: `function ${entry}(nums) {\n  let best = 0;\n  let current = 0;\n  for (const x of nums) {\n    current = Math.max(0, current + x);\n    best = Math.max(best, current);\n  }\n  return best;\n}\n`,
      bugNote: 'starting from 0 is wrong when every element is negative: the run must be non-empty',
      oracle: (nums: number[]) => {
        let best = -Infinity;
        for (let i = 0; i < nums.length; i++) {
          let s = 0;
          for (let j = i; j < nums.length; j++) { s += nums[j]; best = Math.max(best, s); }
        }
        return best;
      },
      publicInputs: [[[-2, 1, -3, 4, -1, 2, 1, -5, 4]], [intArray(rng, 4, -9, -1)], [[rng.int(1, 9)]]],
      hiddenInputs: repeat(9, (i) => [intArray(rng, rng.int(1, 10), -9, i < 2 ? -1 : 9)]),
    };
  },
};

const moveToEnd: ProblemTemplate = {
  id: 'move-to-end',
  category: 'arrays',
  make(rng) {
    const v = rng.pick([0, -1, 7]);
    const entry = v === 0 ? rng.pick(['moveZeros', 'zerosToEnd']) : rng.pick(['moveValueToEnd', `move${v < 0 ? 'MinusOne' : 'Sevens'}ToEnd`]);
    const withV = () => intArray(rng, rng.int(2, 9), -2, 8).map((x) => (rng.next() < 0.35 ? v : x));
    return {
      entry,
      params: ['arr'],
      statement: `Write ${entry}(arr) that returns a new array with every ${v} of \`arr\` moved to the end, while all other elements keep their original relative order.`,
      reference: `function ${entry}(arr) {\n  const others = arr.filter((x) => x !== ${v});\n  return others.concat(new Array(arr.length - others.length).fill(${v}));\n}\n`,
      buggy: `function ${entry}(arr) {\n  const a = arr.slice();\n  let j = a.length - 1;\n  for (let i = 0; i < j; i++) {\n    if (a[i] === ${v}) {\n      while (j > i && a[j] === ${v}) j--;\n      [a[i], a[j]] = [a[j], a[i]];\n      j--;\n    }\n  }\n  return a;\n}\n`,
      bugNote: 'swapping with the end breaks the order of the other elements',
      oracle: (arr: number[]) => {
        const out: number[] = [];
        let count = 0;
        for (const x of arr) if (x === v) count++; else out.push(x);
        for (let i = 0; i < count; i++) out.push(v);
        return out;
      },
      publicInputs: [[[v, 1, v, 3, 12]], [withV()], [[]]],
      hiddenInputs: repeat(8, () => [withV()]),
    };
  },
};

const runningTotals: ProblemTemplate = {
  id: 'running-totals',
  category: 'arrays',
  make(rng) {
    const op = rng.pick(['sum', 'max', 'min'] as const);
    const entry = { sum: rng.pick(['runningSum', 'prefixSums']), max: rng.pick(['runningMax', 'prefixMax']), min: rng.pick(['runningMin', 'prefixMin']) }[op];
    const js = { sum: 'acc + x', max: 'Math.max(acc, x)', min: 'Math.min(acc, x)' }[op];
    const words = { sum: 'the sum', max: 'the largest', min: 'the smallest' }[op];
    const apply = (acc: number, x: number) => (op === 'sum' ? acc + x : op === 'max' ? Math.max(acc, x) : Math.min(acc, x));
    return {
      entry,
      params: ['nums'],
      statement: `Write ${entry}(nums) that returns an array of the same length whose element i is ${words} of nums[0..i] (inclusive). [] gives [].`,
      reference: `function ${entry}(nums) {\n  const out = [];\n  let acc;\n  nums.forEach((x, i) => {\n    acc = i === 0 ? x : ${js};\n    out.push(acc);\n  });\n  return out;\n}\n`,
      buggy: `function ${entry}(nums) {\n  const out = [];\n  let acc = nums[0];\n  for (let i = 1; i < nums.length; i++) {\n    const x = nums[i];\n    acc = ${js};\n    out.push(acc);\n  }\n  return out;\n}\n`,
      bugNote: 'the first element must be in the output too',
      oracle: (nums: number[]) => nums.map((_, i) => nums.slice(0, i + 1).reduce(apply)),
      publicInputs: [[intArray(rng, 5, -5, 9)], [[rng.int(-3, 3)]], [[]]],
      hiddenInputs: repeat(8, () => [intArray(rng, rng.int(1, 10), -20, 20)]),
    };
  },
};

export const ARRAY_TEMPLATES: ProblemTemplate[] = [rotate, chunk, dedupe, kthLargest, twoSum, flatten, maxSubarray, moveToEnd, runningTotals];
