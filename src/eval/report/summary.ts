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
  /**
   * The components of BROKEN_DOWN_COMPONENTS that occur, by breakdown key → value → mean with its
   * interval (e.g. componentBy.function_choice.tool.define: did the model pick the right tool for
   * define requests). An episode counts under every value of the key it carries (a two-call task
   * under both tools), with the episode's component.
   */
  componentBy?: Record<string, Record<string, Record<string, Rate>>>;
}

/**
 * Components worth seeing per tool / category: function choice says where routing fails even when
 * whole-call success is 0 everywhere (a model that does not copy values yet).
 */
export const BROKEN_DOWN_COMPONENTS = ['function_choice'] as const;

type Groups = Map<string, Map<string, Outcome[]>>;

/** Breakdown key → value → the outcomes carrying it, keys and values sorted. */
function groupByKeys(outcomes: readonly Outcome[]): Groups {
  const out: Groups = new Map();
  for (const key of [...new Set(outcomes.flatMap((o) => Object.keys(o.keys)))].sort()) {
    const groups = new Map<string, Outcome[]>();
    for (const o of outcomes) for (const v of o.keys[key] ?? []) groups.set(v, [...(groups.get(v) ?? []), o]);
    out.set(key, new Map([...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1))));
  }
  return out;
}

function mapGroups(groups: Groups, f: (os: Outcome[]) => Rate): Record<string, Record<string, Rate>> {
  return Object.fromEntries([...groups.entries()].map(([key, vs]) => [key, Object.fromEntries([...vs.entries()].map(([v, os]) => [v, f(os)]))]));
}

export function summarizeOutcomes(label: string, kind: 'model' | 'baseline', outcomes: readonly Outcome[], note = ''): PolicySummary {
  const n = outcomes.length;
  const names = [...new Set(outcomes.flatMap((o) => Object.keys(o.components)))].sort();
  const components = Object.fromEntries(names.map((c) => [c, meanInterval(outcomes.map((o) => o.components[c] ?? 0))]));
  const groups = groupByKeys(outcomes);
  const by = mapGroups(groups, (os) => wilson(os.filter((o) => o.success).length, os.length));
  const componentBy = Object.fromEntries(
    BROKEN_DOWN_COMPONENTS.filter((c) => names.includes(c)).map((c) => [c, mapGroups(groups, (os) => meanInterval(os.map((o) => o.components[c] ?? 0)))]),
  );
  return {
    label,
    kind,
    note,
    n,
    success: wilson(outcomes.filter((o) => o.success).length, n),
    meanReward: n === 0 ? 0 : outcomes.reduce((a, o) => a + o.reward, 0) / n,
    components,
    by,
    componentBy,
  };
}
