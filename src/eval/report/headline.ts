// Headline figures over seeds: a run's figure is reported as the mean and range over ≥ 3 seeds,
// with every seed's value and n listed (the same split and n for each seed).
import { formatRate, type Rate } from './interval';

export interface SeedFigure {
  seed: number;
  /** The figure of that seed (a rate with its interval). */
  rate: Rate;
}

export interface Headline {
  mean: number;
  min: number;
  max: number;
  seeds: number[];
  /** n per seed (equal when the runs used the same evaluation size). */
  n: number[];
}

/** Mean and range over seeds; throws with fewer than `minSeeds` (default 3), since one seed is an anecdote. */
export function acrossSeeds(figures: readonly SeedFigure[], minSeeds = 3): Headline {
  if (figures.length < minSeeds) throw new Error(`a headline figure needs ≥ ${minSeeds} seeds (got ${figures.length}: ${figures.map((f) => f.seed).join(', ') || 'none'}); run more seeds`);
  const seeds = figures.map((f) => f.seed);
  if (new Set(seeds).size !== seeds.length) throw new Error(`acrossSeeds: seed listed twice (${seeds.join(', ')}); give each seed once`);
  const values = figures.map((f) => f.rate.rate);
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, min: Math.min(...values), max: Math.max(...values), seeds, n: figures.map((f) => f.rate.n) };
}

/** "62.5 % (range 58.1–66.4 %; seeds 1, 2, 3; n = 256 each)". */
export function formatHeadline(h: Headline, digits = 1): string {
  const pct = (x: number) => (100 * x).toFixed(digits);
  const n = new Set(h.n).size === 1 ? `n = ${h.n[0]} each` : `n = ${h.n.join(', ')}`;
  return `${pct(h.mean)} % (range ${pct(h.min)}–${pct(h.max)} %; seeds ${h.seeds.join(', ')}; ${n})`;
}

/** One line per seed, for the record under a headline. */
export function formatSeedLines(figures: readonly SeedFigure[]): string[] {
  return figures.map((f) => `  seed ${f.seed}: ${formatRate(f.rate)} (n = ${f.rate.n})`);
}
