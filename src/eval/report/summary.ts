// A policy's figures on one split: success with its Wilson interval, mean reward, each reward
// component with an interval, and the success per breakdown key (tool, category, template).
import { meanInterval, wilson, type Rate } from './interval';
import type { Outcome } from './outcomes';

export interface PolicySummary {
  /** What was evaluated ("after GRPO", "keyword rule (fit on train)", …). */
  label: string;
  kind: 'model' | 'baseline';
  /** A line saying how a baseline works (empty for models). */
  note: string;
  n: number;
  success: Rate;
  meanReward: number;
  /** Mean of each reward component with a 95 % interval. */
  components: Record<string, Rate>;
  /** Breakdown key → value → success rate (e.g. by.tool.weather). */
  by: Record<string, Record<string, Rate>>;
}

export function summarizeOutcomes(label: string, kind: 'model' | 'baseline', outcomes: readonly Outcome[], note = ''): PolicySummary {
  const n = outcomes.length;
  const names = [...new Set(outcomes.flatMap((o) => Object.keys(o.components)))].sort();
  const components = Object.fromEntries(names.map((c) => [c, meanInterval(outcomes.map((o) => o.components[c] ?? 0))]));
  const by: Record<string, Record<string, Rate>> = {};
  for (const key of [...new Set(outcomes.flatMap((o) => Object.keys(o.keys)))].sort()) {
    const groups = new Map<string, Outcome[]>();
    for (const o of outcomes) for (const v of o.keys[key] ?? []) groups.set(v, [...(groups.get(v) ?? []), o]);
    by[key] = Object.fromEntries([...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([v, os]) => [v, wilson(os.filter((o) => o.success).length, os.length)]));
  }
  return {
    label,
    kind,
    note,
    n,
    success: wilson(outcomes.filter((o) => o.success).length, n),
    meanReward: n === 0 ? 0 : outcomes.reduce((a, o) => a + o.reward, 0) / n,
    components,
    by,
  };
}
