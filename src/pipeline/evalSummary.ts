// An eval stage's report: per task set the success rate with its Wilson 95 % interval, n and seeds,
// mean reward and components, per-tool / per-category rates, episode shape (turns, tokens,
// truncation), and the cheap baselines scored on the same tasks beside the model.
import { wilsonInterval } from '../eval/intervals';
import type { EvalStageConfig } from './config';
import type { EpisodeRecord } from './evaluation';

export interface RateWithInterval {
  n: number;
  successes: number;
  rate: number;
  /** Wilson 95 % interval of the rate. */
  low: number;
  high: number;
}

export interface TaskSetSummary extends RateWithInterval {
  /** "function-calling/route8". */
  taskSet: string;
  meanReward: number;
  components: Record<string, number>;
  /** Rate per breakdown key (tool, tool pair, category). */
  byKey: Record<string, RateWithInterval>;
  truncatedFraction: number;
  meanTurns: number;
  meanTokens: number;
  /** Success rate of each cheap baseline on the same tasks. */
  baselines: Record<string, RateWithInterval>;
}

export interface EvalSummary {
  label: string;
  split: EvalStageConfig['split'];
  seeds: number[];
  /** One entry per task set of the mix. */
  taskSets: TaskSetSummary[];
  /** "route8 test: 61.5 % [55.4, 67.2] (n = 256) · best baseline keyword 31.0 %". */
  headline: string;
}

export function rateOf(successes: number, n: number): RateWithInterval {
  const [low, high] = wilsonInterval(successes, n);
  return { n, successes, rate: n ? successes / n : 0, low, high };
}

function rateOfRecords(records: readonly EpisodeRecord[]): RateWithInterval {
  return rateOf(records.filter((r) => r.success).length, records.length);
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function pct(x: number, digits = 1): string {
  return `${(100 * x).toFixed(digits)} %`;
}

/** "61.5 % [55.4, 67.2]". */
export function formatRate(r: RateWithInterval): string {
  return `${pct(r.rate)} [${(100 * r.low).toFixed(1)}, ${(100 * r.high).toFixed(1)}]`;
}

export function summarizeEval(stage: Pick<EvalStageConfig, 'label' | 'split'>, seeds: readonly number[], records: readonly EpisodeRecord[], baselines: Record<string, readonly EpisodeRecord[]> = {}): EvalSummary {
  const sets = [...new Set(records.map((r) => r.taskSet))];
  const taskSets = sets.map((taskSet): TaskSetSummary => {
    const mine = records.filter((r) => r.taskSet === taskSet);
    const keys = [...new Set(mine.map((r) => r.key))].sort();
    const componentNames = [...new Set(mine.flatMap((r) => Object.keys(r.components)))];
    return {
      taskSet, ...rateOfRecords(mine),
      meanReward: mean(mine.map((r) => r.reward)),
      components: Object.fromEntries(componentNames.map((c) => [c, mean(mine.map((r) => r.components[c] ?? 0))])),
      byKey: Object.fromEntries(keys.map((k) => [k, rateOfRecords(mine.filter((r) => r.key === k))])),
      truncatedFraction: mean(mine.map((r) => (r.truncated ? 1 : 0))),
      meanTurns: mean(mine.map((r) => r.turns)),
      meanTokens: mean(mine.map((r) => r.tokens)),
      baselines: Object.fromEntries(Object.entries(baselines).map(([name, recs]) => [name, rateOfRecords(recs.filter((r) => r.taskSet === taskSet))])),
    };
  });
  const headline = taskSets.map((t) => {
    const best = Object.entries(t.baselines).sort((a, b) => b[1].rate - a[1].rate)[0];
    return `${t.taskSet} ${stage.split}: ${formatRate(t)} (n = ${t.n})${best ? ` · best baseline ${best[0]} ${pct(best[1].rate)}` : ''}`;
  }).join('; ');
  return { label: stage.label, split: stage.split, seeds: [...seeds], taskSets, headline };
}
