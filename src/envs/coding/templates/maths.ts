// Maths problems: primes, gcd/lcm, base conversion, Fibonacci modulo m, Roman numerals, sums of
// multiples, Collatz sequences.
import { intArray, repeat, type ProblemTemplate } from './types';

let primeTable: number[] | undefined;
/** Primes below 20 000 by the sieve of Eratosthenes (the oracle; the reference uses trial division). */
function primes(): number[] {
  if (primeTable) return primeTable;
  const limit = 20_000;
  const composite = new Uint8Array(limit);
  primeTable = [];
  for (let i = 2; i < limit; i++) {
    if (composite[i]) continue;
    primeTable.push(i);
    for (let j = i * i; j < limit; j += i) composite[j] = 1;
  }
  return primeTable;
}

const nthPrime: ProblemTemplate = {
  id: 'nth-prime',
  category: 'maths',
  make(rng) {
    const base = rng.pick([0, 1]);
    const entry = rng.pick(['nthPrime', 'primeAt', 'getNthPrime']);
    return {
      entry,
      params: ['n'],
      statement: `Write ${entry}(n) that returns the prime number at position n in the increasing list of primes 2, 3, 5, 7, 11, …, counting positions from ${base} (so ${entry}(${base}) is 2 and ${entry}(${base + 2}) is 5). n is at most 1000.`,
      reference: `function ${entry}(n) {\n  let count = ${base - 1};\n  for (let x = 2; ; x++) {\n    let prime = true;\n    for (let d = 2; d * d <= x; d++) {\n      if (x % d === 0) { prime = false; break; }\n    }\n    if (prime && ++count === n) return x;\n  }\n}\n`,
      buggy: `function ${entry}(n) {\n  let count = ${base - 1};\n  for (let x = 2; ; x++) {\n    let prime = true;\n    for (let d = 2; d * d < x; d++) {\n      if (x % d === 0) { prime = false; break; }\n    }\n    if (prime && ++count === n) return x;\n  }\n}\n`,
      bugNote: 'the divisor loop must include d * d === x, otherwise squares of primes such as 4 and 9 count as prime',
      oracle: (n: number) => primes()[n - base],
      publicInputs: [[base], [base + 5], [rng.int(10, 30)]],
      hiddenInputs: [...repeat(7, () => [rng.int(base, 400)]), [base + 1], [1000]],
    };
  },
};

function gcd2(a: number, b: number): number {
  for (let d = Math.min(a, b); d > 1; d--) if (a % d === 0 && b % d === 0) return d;
  return 1;
}

const gcdLcm: ProblemTemplate = {
  id: 'gcd-lcm',
  category: 'maths',
  make(rng) {
    const lcm = rng.next() < 0.5;
    const entry = lcm ? rng.pick(['lcmOfAll', 'leastCommonMultiple', 'lcmArray']) : rng.pick(['gcdOfAll', 'greatestCommonDivisor', 'gcdArray']);
    const gcdJs = 'const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));';
    const multiplesOf = (g: number, n: number) => Array.from({ length: n }, () => g * rng.int(1, 9));
    return {
      entry,
      params: ['nums'],
      statement: lcm
        ? `Write ${entry}(nums) that returns the least common multiple of all the positive integers in the non-empty array \`nums\` (the smallest positive number every element divides).`
        : `Write ${entry}(nums) that returns the greatest common divisor of all the positive integers in the non-empty array \`nums\` (the largest number dividing every element).`,
      reference: lcm
        ? `function ${entry}(nums) {\n  ${gcdJs}\n  return nums.reduce((acc, x) => (acc / gcd(acc, x)) * x);\n}\n`
        : `function ${entry}(nums) {\n  ${gcdJs}\n  return nums.reduce((acc, x) => gcd(acc, x));\n}\n`,
      buggy: lcm
        ? `function ${entry}(nums) {\n  return nums.reduce((acc, x) => acc * x, 1);\n}\n`
        : `function ${entry}(nums) {\n  ${gcdJs}\n  return nums.length === 1 ? nums[0] : gcd(nums[0], nums[1]);\n}\n`,
      bugNote: lcm ? 'multiplying counts shared factors twice; divide by the gcd at each step' : 'every element must take part, not only the first two',
      oracle: (nums: number[]) => {
        if (!lcm) return nums.reduce(gcd2);
        const top = Math.max(...nums);
        for (let m = top; ; m += top) if (nums.every((x) => m % x === 0)) return m;
      },
      publicInputs: lcm ? [[[4, 6]], [[3, 5, 10]], [[7]]] : [[[12, 24, 18]], [multiplesOf(rng.int(2, 6), 3)], [[7]]],
      hiddenInputs: repeat(9, () => [lcm ? intArray(rng, rng.int(1, 4), 1, 16) : multiplesOf(rng.int(1, 8), rng.int(1, 5))]),
    };
  },
};

const toBase: ProblemTemplate = {
  id: 'to-base',
  category: 'maths',
  make(rng) {
    const b = rng.pick([2, 3, 5, 7, 8, 12, 16]);
    const upper = b > 10 && rng.next() < 0.5;
    const digits = (upper ? '0123456789ABCDEF' : '0123456789abcdef').slice(0, b);
    const entry = rng.pick([`toBase${b}`, b === 2 ? 'toBinary' : b === 16 ? 'toHex' : `formatBase${b}`, 'convertToBase']);
    return {
      entry,
      params: ['n'],
      statement: `Write ${entry}(n) that returns the integer \`n\` written in base ${b} with the digits "${digits}", without leading zeros; 0 is "0" and a negative number gets a leading "-".`,
      reference: `function ${entry}(n) {\n  const digits = ${JSON.stringify(digits)};\n  if (n === 0) return '0';\n  let m = Math.abs(n);\n  let out = '';\n  while (m > 0) {\n    out = digits[m % ${b}] + out;\n    m = Math.floor(m / ${b});\n  }\n  return n < 0 ? '-' + out : out;\n}\n`,
      buggy: `function ${entry}(n) {\n  const digits = ${JSON.stringify(digits)};\n  let out = '';\n  while (n > 0) {\n    out = digits[n % ${b}] + out;\n    n = Math.floor(n / ${b});\n  }\n  return out;\n}\n`,
      bugNote: 'zero and negative numbers produce an empty string',
      oracle: (n: number) => (upper ? n.toString(b).toUpperCase() : n.toString(b)),
      publicInputs: [[0], [rng.int(b + 1, 200)], [-rng.int(1, 100)]],
      hiddenInputs: [...repeat(8, () => [rng.int(-5000, 100000)]), [b - 1], [b]],
    };
  },
};

const fibMod: ProblemTemplate = {
  id: 'fibonacci-mod',
  category: 'maths',
  make(rng) {
    const m = rng.pick([10, 97, 1000, 1_000_000_007]);
    const entry = rng.pick(['fibMod', 'fibonacciModulo', 'fibLastDigits']);
    return {
      entry,
      params: ['n'],
      statement: `With F(0) = 0, F(1) = 1 and F(k) = F(k-1) + F(k-2), write ${entry}(n) that returns F(n) modulo ${m} for 0 ≤ n ≤ 100000 (the Fibonacci numbers themselves get far too large for exact floating point).`,
      reference: `function ${entry}(n) {\n  let a = 0;\n  let b = 1;\n  for (let i = 0; i < n; i++) {\n    const next = (a + b) % ${m};\n    a = b;\n    b = next;\n  }\n  return a;\n}\n`,
      buggy: `function ${entry}(n) {\n  let a = 1;\n  let b = 1;\n  for (let i = 0; i < n; i++) {\n    const next = (a + b) % ${m};\n    a = b;\n    b = next;\n  }\n  return a;\n}\n`,
      bugNote: 'the sequence must start from F(0) = 0, not 1',
      oracle: (n: number) => {
        let a = 0n;
        let b = 1n;
        for (let i = 0; i < n; i++) [a, b] = [b, a + b];
        return Number(a % BigInt(m));
      },
      publicInputs: [[0], [10], [rng.int(20, 60)]],
      hiddenInputs: [...repeat(7, () => [rng.int(0, 3000)]), [1], [2]],
    };
  },
};

const ROMAN_DIGITS = [
  ['', 'M', 'MM', 'MMM'],
  ['', 'C', 'CC', 'CCC', 'CD', 'D', 'DC', 'DCC', 'DCCC', 'CM'],
  ['', 'X', 'XX', 'XXX', 'XL', 'L', 'LX', 'LXX', 'LXXX', 'XC'],
  ['', 'I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX'],
];
/** Digit-by-digit Roman numeral (the oracle; the reference uses a greedy value table). */
function roman(n: number): string {
  const d = String(n).padStart(4, '0');
  return ROMAN_DIGITS.map((table, i) => table[Number(d[i])]).join('');
}

let romanTable: Map<string, number> | undefined;
/** Every numeral 1..3999 → its value (inverting the oracle instead of parsing). */
function romanValues(): Map<string, number> {
  romanTable ??= new Map(Array.from({ length: 3999 }, (_, i) => [roman(i + 1), i + 1]));
  return romanTable;
}

const romanNumerals: ProblemTemplate = {
  id: 'roman-numerals',
  category: 'maths',
  make(rng) {
    const toRoman = rng.next() < 0.5;
    const entry = toRoman ? rng.pick(['toRoman', 'intToRoman', 'romanize']) : rng.pick(['fromRoman', 'romanToInt', 'parseRoman']);
    const table = `[[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']]`;
    const plainTable = `[[1000, 'M'], [500, 'D'], [100, 'C'], [50, 'L'], [10, 'X'], [5, 'V'], [1, 'I']]`;
    const values = `{ I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 }`;
    const numbers = () => rng.int(1, 3999);
    return {
      entry,
      params: [toRoman ? 'n' : 'numeral'],
      statement: toRoman
        ? `Write ${entry}(n) that returns the standard Roman numeral for 1 ≤ n ≤ 3999, using the subtractive forms IV, IX, XL, XC, CD and CM (4 is "IV", 1994 is "MCMXCIV").`
        : `Write ${entry}(numeral) that returns the value of a valid standard Roman numeral (1 to 3999), including the subtractive forms IV, IX, XL, XC, CD and CM ("MCMXCIV" is 1994).`,
      reference: toRoman
        ? `function ${entry}(n) {\n  let out = '';\n  for (const [value, symbol] of ${table}) {\n    while (n >= value) { out += symbol; n -= value; }\n  }\n  return out;\n}\n`
        : `function ${entry}(numeral) {\n  const values = ${values};\n  let total = 0;\n  for (let i = 0; i < numeral.length; i++) {\n    const v = values[numeral[i]];\n    const next = values[numeral[i + 1]] || 0;\n    total += v < next ? -v : v;\n  }\n  return total;\n}\n`,
      buggy: toRoman
        ? `function ${entry}(n) {\n  let out = '';\n  for (const [value, symbol] of ${plainTable}) {\n    while (n >= value) { out += symbol; n -= value; }\n  }\n  return out;\n}\n`
        : `function ${entry}(numeral) {\n  const values = ${values};\n  let total = 0;\n  for (const ch of numeral) total += values[ch];\n  return total;\n}\n`,
      bugNote: toRoman ? 'the subtractive forms (IV, IX, XL, …) are missing' : 'a smaller symbol before a larger one must be subtracted',
      oracle: toRoman ? (n: number) => roman(n) : (numeral: string) => romanValues().get(numeral) ?? null,
      publicInputs: (toRoman ? [4, 1994, rng.int(1, 3)] : ['IV', 'MCMXCIV', roman(rng.int(1, 3))]).map((x) => [x]),
      hiddenInputs: repeat(9, () => [toRoman ? numbers() : roman(numbers())]),
    };
  },
};

const sumMultiples: ProblemTemplate = {
  id: 'sum-multiples',
  category: 'maths',
  make(rng) {
    const [a, b] = rng.pick([[3, 5], [2, 7], [4, 6], [3, 7], [5, 8], [6, 9]] as const);
    const entry = rng.pick(['sumOfMultiples', `sumMultiplesOf${a}Or${b}`, 'multiplesSum']);
    const lcm = (a * b) / gcd2(a, b);
    const triangle = (k: number, below: number) => { const c = Math.floor((below - 1) / k); return (k * c * (c + 1)) / 2; };
    return {
      entry,
      params: ['n'],
      statement: `Write ${entry}(n) that returns the sum of all positive integers below \`n\` (strictly less than n) that are multiples of ${a} or of ${b}. Each such number counts once, even when it is a multiple of both. n ≥ 0; the answer for n ≤ 1 is 0.`,
      reference: `function ${entry}(n) {\n  let sum = 0;\n  for (let i = 1; i < n; i++) {\n    if (i % ${a} === 0 || i % ${b} === 0) sum += i;\n  }\n  return sum;\n}\n`,
      buggy: `function ${entry}(n) {\n  let sum = 0;\n  for (let i = ${a}; i < n; i += ${a}) sum += i;\n  for (let i = ${b}; i < n; i += ${b}) sum += i;\n  return sum;\n}\n`,
      bugNote: `numbers that are multiples of both ${a} and ${b} were counted twice`,
      oracle: (n: number) => (n <= 1 ? 0 : triangle(a, n) + triangle(b, n) - triangle(lcm, n)),
      publicInputs: [[10], [2 * lcm + 1], [0]],
      hiddenInputs: [...repeat(8, () => [rng.int(1, 5000)]), [lcm]],
    };
  },
};

const collatz: ProblemTemplate = {
  id: 'collatz',
  category: 'maths',
  make(rng) {
    const steps = rng.next() < 0.5;
    const entry = steps ? rng.pick(['collatzSteps', 'stepsToOne']) : rng.pick(['collatzPeak', 'highestCollatzValue']);
    const rule = 'repeatedly replace n by n / 2 when n is even and by 3n + 1 when n is odd, until n is 1';
    const peak = (n: number): number => (n === 1 ? 1 : Math.max(n, peak(n % 2 === 0 ? n / 2 : 3 * n + 1)));
    const count = (n: number): number => (n === 1 ? 0 : 1 + count(n % 2 === 0 ? n / 2 : 3 * n + 1));
    return {
      entry,
      params: ['n'],
      statement: steps
        ? `Starting from a positive integer n, ${rule}. Write ${entry}(n) that returns how many replacements that takes (0 for n = 1).`
        : `Starting from a positive integer n, ${rule}. Write ${entry}(n) that returns the largest value seen along the way, counting the starting n itself (1 for n = 1).`,
      reference: steps
        ? `function ${entry}(n) {\n  let count = 0;\n  while (n !== 1) {\n    n = n % 2 === 0 ? n / 2 : 3 * n + 1;\n    count++;\n  }\n  return count;\n}\n`
        : `function ${entry}(n) {\n  let best = n;\n  while (n !== 1) {\n    n = n % 2 === 0 ? n / 2 : 3 * n + 1;\n    if (n > best) best = n;\n  }\n  return best;\n}\n`,
      buggy: steps
        ? `function ${entry}(n) {\n  let count = 1;\n  while (n !== 1) {\n    n = n % 2 === 0 ? n / 2 : 3 * n + 1;\n    count++;\n  }\n  return count;\n}\n`
        : `function ${entry}(n) {\n  let best = 0;\n  while (n !== 1) {\n    n = n % 2 === 0 ? n / 2 : 3 * n + 1;\n    if (n > best) best = n;\n  }\n  return best;\n}\n`,
      bugNote: steps ? 'the count is one too high: it counts the numbers in the sequence instead of the replacements' : 'the starting value itself must be included',
      oracle: steps ? count : peak,
      publicInputs: [[1], [steps ? 6 : 8], [rng.int(2, 30)]],
      hiddenInputs: repeat(9, () => [rng.int(1, 2000)]),
    };
  },
};

export const MATHS_TEMPLATES: ProblemTemplate[] = [nthPrime, gcdLcm, toBase, fibMod, romanNumerals, sumMultiples, collatz];
