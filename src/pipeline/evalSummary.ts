// An eval stage's report, per task set of the mix: the model's success with its Wilson 95 %
// interval, mean reward and components, success per tool / category (src/eval/report), the episode
// shape (turns, tokens, truncation), and — when asked — the cheap baselines of src/eval/baselines
// on exactly the same tasks (same split, n and seeds), with the comparison table to print.
import type { Split } from '../envs/splits';
import { taskSet, type TaskSet } from '../envs/taskSets';
import { baselineOutcomes } from '../eval/baselines';
import { formatComparison, formatRate, type Outcome, type PolicySummary, summarizeOutcomes } from '../eval/report';
import type { TaskMixEntry } from '../envs/taskMix';
import type { EvalStageConfig } from './config';
import type { EpisodeRecord } from './evaluation';
import { episodeEndsAndFaults } from '../train/rl/rlMetrics';

export interface TaskSetEval {
  /** "function-calling/route8". */
  taskSet: string;
  model: PolicySummary;
  /** The cheap baselines on the same tasks (empty when the stage did not ask for them). */
  baselines: PolicySummary[];
  truncatedFraction: number;
  meanTurns: number;
  meanTokens: number;
  /** Share of episodes per end reason and per fault (`end/<reason>`, `faults/<name>`, as in the RL metrics). */
  endsAndFaults: Record<string, number>;
  /**
   * Task id → whether the model solved it, in the order played: two evaluations of the same tasks
   * (the GRPO arm and the SFT-only arm) pair task by task (src/pipeline/armDifference.ts).
   */
  successByTask: Record<string, boolean>;
  /** Models and baselines as one printable table. */
  table: string;
}

export interface EvalSummary {
  label: string;
  split: Split;
  seeds: number[];
  taskSets: TaskSetEval[];
  /** "function-calling/route8 test: 61.5 % [55.4, 67.2] (n = 256) · best baseline keyword rule (fit on train) 31.0 %". */
  headline: string;
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Baseline outcomes of every baseline of `set`, pooled over `seeds` (tasks 0 … n−1 of each). */
export async function pooledBaselines(set: TaskSet, split: Split, n: number, seeds: readonly number[]): Promise<PolicySummary[]> {
  const pooled = new Map<string, { note: string; outcomes: Outcome[] }>();
  for (const seed of seeds) {
    for (const b of await baselineOutcomes(set, { split, n, seed })) {
      const p = pooled.get(b.label) ?? { note: b.note, outcomes: [] };
      p.outcomes.push(...b.outcomes);
      pooled.set(b.label, p);
    }
  }
  return [...pooled].map(([label, p]) => summarizeOutcomes(label, 'baseline', p.outcomes, p.note));
}

/** The report of an eval stage; `withBaselines` runs the baselines of every task set on the same tasks. */
export async function summarizeEval(stage: Pick<EvalStageConfig, 'label' | 'split' | 'n'>, mix: readonly TaskMixEntry[], seeds: readonly number[], records: readonly EpisodeRecord[], withBaselines: boolean): Promise<EvalSummary> {
  const taskSets: TaskSetEval[] = [];
  for (const entry of mix) {
    const set = taskSet(entry.family, entry.level);
    const name = `${set.family}/${set.level}`;
    const mine = records.filter((r) => r.taskSet === name);
    const model = summarizeOutcomes(stage.label, 'model', mine.map((r) => r.outcome));
    const baselines = withBaselines ? await pooledBaselines(set, stage.split, stage.n, seeds) : [];
    taskSets.push({
      taskSet: name, model, baselines,
      truncatedFraction: mean(mine.map((r) => (r.truncated ? 1 : 0))), meanTurns: mean(mine.map((r) => r.turns)), meanTokens: mean(mine.map((r) => r.tokens)),
      endsAndFaults: episodeEndsAndFaults(mine),
      successByTask: Object.fromEntries(mine.map((r) => [r.outcome.taskId, r.outcome.success])),
      table: formatComparison({ split: stage.split, taskSet: name, seed: seeds[0] }, [model, ...baselines]) + (seeds.length > 1 ? `\n(seeds ${seeds.join(', ')} pooled)` : ''),
    });
  }
  const headline = taskSets.map((t) => {
    const best = [...t.baselines].sort((a, b) => b.success.rate - a.success.rate)[0];
    return `${t.taskSet} ${stage.split}: ${formatRate(t.model.success)} (n = ${t.model.n})${best ? ` · best baseline ${best.label} ${formatRate(best.success)}` : ''}`;
  }).join('; ');
  return { label: stage.label, split: stage.split, seeds: [...seeds], taskSets, headline };
}
