// Maths and unit-conversion APIs: factorial, quadratic roots, statistics, GCD, length and
// temperature conversion.
import { maybe, phrase, round, splitAmount, splitInt } from './pools';
import { listPhrase, ScenarioBuilder, tool, type CatalogueFunction } from './types';

const LENGTH_UNITS = ['meters', 'kilometers', 'miles', 'feet', 'inches', 'centimeters', 'yards'] as const;
const METERS_PER: Record<string, number> = { meters: 1, kilometers: 1000, miles: 1609.344, feet: 0.3048, inches: 0.0254, centimeters: 0.01, yards: 0.9144 };
const SCALES = ['celsius', 'fahrenheit', 'kelvin'] as const;

function factorial(n: number): number {
  let f = 1;
  for (let i = 2; i <= n; i++) f *= i;
  return f;
}

/** "2x^2 - 3x + 1" from coefficients (a ≠ 0). */
function polynomial(a: number, b: number, c: number): string {
  const term = (k: number, v: string, first: boolean): string => {
    if (k === 0) return '';
    const sign = k < 0 ? (first ? '-' : ' - ') : first ? '' : ' + ';
    const mag = Math.abs(k) === 1 && v !== '' ? '' : String(Math.abs(k));
    return `${sign}${mag}${v}`;
  };
  return `${term(a, 'x^2', true)}${term(b, 'x', false)}${term(c, '', false)}`;
}

const calculateFactorial: CatalogueFunction = {
  domain: 'maths',
  tool: tool('calculate_factorial', 'Calculate the factorial of a non-negative integer.', { number: { type: 'integer', description: 'The integer n in n!.' } }, ['number']),
  sample(rng, split) {
    const n = rng.int(3, 20);
    const request = phrase(rng, split, ['What is {n} factorial?', 'Calculate the factorial of {n}.', 'Multiply together every integer from 1 to {n}.', 'Compute {n}! for me.', 'Give me the value of {n} factorial.'], { n });
    return new ScenarioBuilder().required('number', n).done(request);
  },
  simulate(args) {
    const n = Math.min(170, Math.max(0, Math.floor(Number(args.number))));
    return { number: args.number, factorial: factorial(n) };
  },
};

const solveQuadratic: CatalogueFunction = {
  domain: 'maths',
  tool: tool(
    'solve_quadratic',
    'Find the roots of a*x^2 + b*x + c = 0.',
    {
      a: { type: 'number', description: 'Coefficient of x^2 (non-zero).' },
      b: { type: 'number', description: 'Coefficient of x.' },
      c: { type: 'number', description: 'Constant term.' },
      real_only: { type: 'boolean', description: 'Return only real roots.', default: true },
    },
    ['a', 'b', 'c'],
  ),
  sample(rng, split) {
    const a = rng.pick([1, 2, 3, -1, -2, 4]);
    const b = rng.int(-9, 9);
    const c = rng.int(-9, 9);
    const complex = maybe(rng, () => false);
    const extras = complex === null ? '' : ', including complex roots';
    const request = phrase(rng, split, [
      'Solve {poly} = 0{extras}.',
      'What are the roots of {poly}{extras}?',
      'Where does {poly} cross zero{extras}?',
      'Find the roots of the quadratic with a = {a}, b = {b} and c = {c}{extras}.',
      'Which x values make {poly} equal zero{extras}?',
    ], { poly: polynomial(a, b, c), a, b, c, extras });
    return new ScenarioBuilder().required('a', a).required('b', b).required('c', c).optional('real_only', complex, true).done(request);
  },
  simulate(args) {
    const a = Number(args.a);
    const b = Number(args.b);
    const c = Number(args.c);
    const d = b * b - 4 * a * c;
    if (d >= 0) return { roots: [round((-b + Math.sqrt(d)) / (2 * a), 4), round((-b - Math.sqrt(d)) / (2 * a), 4)] };
    if (args.real_only === false) {
      const re = round(-b / (2 * a), 4);
      const im = round(Math.sqrt(-d) / (2 * a), 4);
      return { roots: [`${re}+${im}i`, `${re}-${im}i`] };
    }
    return { roots: [], note: 'no real roots' };
  },
};

const calculateStatistics: CatalogueFunction = {
  domain: 'maths',
  tool: tool(
    'calculate_statistics',
    'Compute a summary statistic of a list of numbers.',
    {
      numbers: { type: 'array', items: { type: 'number' }, description: 'The data values.' },
      measure: { type: 'string', enum: ['mean', 'median', 'standard_deviation', 'variance'], description: 'Statistic to compute.', default: 'mean' },
    },
    ['numbers'],
  ),
  sample(rng, split) {
    const numbers = Array.from({ length: rng.int(3, 7) }, () => (rng.next() < 0.3 ? splitAmount(rng, split, 0, 100, 1) : splitInt(rng, split, 0, 100)));
    const measure = maybe(rng, () => rng.pick(['median', 'standard_deviation', 'variance', 'mean']));
    const spoken = listPhrase(numbers.map(String));
    const request =
      measure === null
        ? phrase(rng, split, ['What is the average of {nums}?', 'Compute the mean of these values: {nums}.', 'Average these numbers: {nums}.', 'Find the mean of {nums}.', 'What do {nums} average out to?'], { nums: spoken })
        : phrase(rng, split, ['What is the {measure} of {nums}?', 'Compute the {measure} of these numbers: {nums}.', 'Give me the {measure} for {nums}.', 'Find the {measure} of the data {nums}.', 'I need the {measure} of {nums}.'], { measure: measure.replace('_', ' '), nums: spoken });
    return new ScenarioBuilder().required('numbers', numbers, [numbers]).optional('measure', measure, 'mean').done(request);
  },
  simulate(args) {
    const xs = Array.isArray(args.numbers) ? args.numbers.map(Number) : [];
    const n = Math.max(1, xs.length);
    const mean = xs.reduce((s, x) => s + x, 0) / n;
    const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / n;
    const sorted = [...xs].sort((p, q) => p - q);
    const median = sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    const values: Record<string, number> = { mean, median, variance, standard_deviation: Math.sqrt(variance) };
    const measure = String(args.measure ?? 'mean');
    return { measure, value: round(values[measure] ?? mean, 4), count: xs.length };
  },
};

const greatestCommonDivisor: CatalogueFunction = {
  domain: 'maths',
  tool: tool(
    'greatest_common_divisor',
    'Compute the greatest common divisor of two integers.',
    { a: { type: 'integer', description: 'First integer.' }, b: { type: 'integer', description: 'Second integer.' } },
    ['a', 'b'],
  ),
  sample(rng, split) {
    const k = rng.int(2, 12);
    const a = k * splitInt(rng, split, 2, 31);
    const b = k * splitInt(rng, split, 2, 31);
    const request = phrase(rng, split, ['What is the greatest common divisor of {a} and {b}?', 'Find the GCD of {a} and {b}.', 'What is the largest number dividing both {a} and {b}?', 'Compute gcd({a}, {b}).', 'Give me the highest common factor of {a} and {b}.'], { a, b });
    return new ScenarioBuilder().required('a', a).required('b', b).done(request);
  },
  simulate(args) {
    let a = Math.abs(Math.floor(Number(args.a)));
    let b = Math.abs(Math.floor(Number(args.b)));
    while (b > 0) [a, b] = [b, a % b];
    return { gcd: a };
  },
};

const convertLength: CatalogueFunction = {
  domain: 'units',
  tool: tool(
    'convert_length',
    'Convert a length between units.',
    {
      value: { type: 'number', description: 'The length to convert.' },
      from_unit: { type: 'string', enum: [...LENGTH_UNITS], description: 'Unit of the value.' },
      to_unit: { type: 'string', enum: [...LENGTH_UNITS], description: 'Unit to convert to.' },
    },
    ['value', 'from_unit', 'to_unit'],
  ),
  sample(rng, split) {
    const [from, to] = rng.shuffle(LENGTH_UNITS).slice(0, 2);
    const value = rng.next() < 0.5 ? splitInt(rng, split, 1, 500) : splitAmount(rng, split, 0.5, 100, 1);
    const request = phrase(rng, split, ['Convert {v} {from} to {to}.', 'How many {to} is {v} {from}?', 'Change {v} {from} into {to}.', 'Please express {v} {from} in {to}.', 'What is {v} {from} when measured in {to}?'], { v: value, from, to });
    return new ScenarioBuilder().required('value', value).required('from_unit', from).required('to_unit', to).done(request);
  },
  simulate(args) {
    const meters = Number(args.value) * (METERS_PER[String(args.from_unit)] ?? 1);
    return { value: args.value, from_unit: args.from_unit, to_unit: args.to_unit, result: round(meters / (METERS_PER[String(args.to_unit)] ?? 1), 4) };
  },
};

const convertTemperature: CatalogueFunction = {
  domain: 'units',
  tool: tool(
    'convert_temperature',
    'Convert a temperature between Celsius, Fahrenheit and Kelvin.',
    {
      value: { type: 'number', description: 'The temperature to convert.' },
      from_scale: { type: 'string', enum: [...SCALES], description: 'Scale of the value.' },
      to_scale: { type: 'string', enum: [...SCALES], description: 'Scale to convert to.' },
    },
    ['value', 'from_scale', 'to_scale'],
  ),
  sample(rng, split) {
    const [from, to] = rng.shuffle(SCALES).slice(0, 2);
    const value = from === 'kelvin' ? splitInt(rng, split, 250, 320) : splitInt(rng, split, -20, 110);
    const request = phrase(rng, split, [
      'Convert {v} degrees {from} to {to}.',
      'What is {v} degrees {from} in {to}?',
      'Turn {v} degrees {from} into {to}.',
      'How much is {v} {from} expressed in {to}?',
      'Express a temperature of {v} degrees {from} in {to}.',
    ], { v: value, from, to });
    return new ScenarioBuilder().required('value', value).required('from_scale', from).required('to_scale', to).done(request);
  },
  simulate(args) {
    const v = Number(args.value);
    const celsius = args.from_scale === 'fahrenheit' ? (v - 32) / 1.8 : args.from_scale === 'kelvin' ? v - 273.15 : v;
    const out = args.to_scale === 'fahrenheit' ? celsius * 1.8 + 32 : args.to_scale === 'kelvin' ? celsius + 273.15 : celsius;
    return { value: args.value, from_scale: args.from_scale, to_scale: args.to_scale, result: round(out, 2) };
  },
};

export const MATHS_UNITS_FUNCTIONS: readonly CatalogueFunction[] = [calculateFactorial, solveQuadratic, calculateStatistics, greatestCommonDivisor, convertLength, convertTemperature];
