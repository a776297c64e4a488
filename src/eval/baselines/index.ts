// Cheap baselines on the same split and tasks as the model, per task set: rules fit on the train
// split (textRules.ts), doing nothing, random, and a family's obvious shortcut (service: refuse
// everything; coding: submit a function that returns its first argument). Each runs through the
// real environment, so it is scored exactly as a model is.
import type { CodingTask } from '../../envs/coding/types';
import type { FunctionCallingTask } from '../../envs/functionCalling/types';
import type { Split } from '../../envs/splits';
import { taskSet, type TaskSet } from '../../envs/taskSets';
import type { Policy, TaskBase } from '../../envs/types';
import { formatToolCalls } from '../../tokenizer/toolCalls';
import { randomPolicy } from '../baselinePolicies';
import { evaluate, type PolicyFactory } from '../evaluate';
import { outcomesFromEpisodes, type Outcome } from '../report/outcomes';
import { summarizeOutcomes, type PolicySummary } from '../report/summary';
import { formatComparison } from '../report/table';
import { fitBfclKeywordRule, fitRoutingRules, type CallRule } from './textRules';

/** A baseline: its label, how it works, and its policy per task (after fitting on train tasks). */
export interface Baseline {
  label: string;
  note: string;
  policyFor: PolicyFactory;
}

/** The text the do-nothing agent sends every turn. */
export const DO_NOTHING_TEXT = 'OK.';
const NEVER_CALL_TEXT = "None of these tools can answer that, so I will not call any.";
const REFUSAL_TEXT = "I'm sorry, but I can't help with that under our policy.";

const constant = (text: string): PolicyFactory => () => async () => text;

/** A single-call rule as a policy: its calls in the first turn (or a text answer when it makes none), then "Done.". */
function rulePolicy(rule: CallRule): PolicyFactory {
  return (task) => {
    const calls = rule(task as FunctionCallingTask);
    return async (messages) => {
      if (messages.some((m) => m.role === 'assistant')) return 'Done.';
      return calls.length > 0 ? formatToolCalls(calls) : 'None of the offered tools fits this request.';
    };
  };
}

/** Submits `function entry(...args) { return args[0]; }` (passes tests whose answer is the input). */
function identitySubmission(task: TaskBase): Policy {
  const entry = (task as CodingTask).entry;
  return async () => formatToolCalls([{ name: 'submit', arguments: { code: `function ${entry}(...args) {\n  return args[0];\n}\n` } }]);
}

const DO_NOTHING: Baseline = { label: 'do nothing', note: `answers "${DO_NOTHING_TEXT}" every turn`, policyFor: constant(DO_NOTHING_TEXT) };
const RANDOM: Baseline = { label: 'random', note: 'each turn: a random offered tool with random arguments (60 %) or random words', policyFor: (_task, seed) => randomPolicy(seed) };

/** The baselines of a task set; rules are fit on `fitN` train tasks of `seed` (task sets without a train split use the BFCL mix's). */
export function baselinesFor(set: TaskSet, seed: number, fitN = 2000): Baseline[] {
  const trainOf = (s: TaskSet) => Array.from({ length: fitN }, (_, i) => s.envFamily.generateTask(seed, i, 'train') as FunctionCallingTask);
  if (set.family === 'function-calling' && set.level.startsWith('route')) {
    const rules = fitRoutingRules(trainOf(set));
    const args = 'argument: the span of words outside the train phrasing vocabulary that best fits the shape, length and position of train values (naive Bayes)';
    return [
      { label: 'majority tool (fit on train)', note: `always ${rules.majorityTool}; ${args}`, policyFor: rulePolicy(rules.majority) },
      { label: 'value-type rule (fit on train)', note: `the most frequent train tool for the request's true value type (an upper bound on type-only rules); ${args}`, policyFor: rulePolicy(rules.valueType) },
      { label: 'keyword rule (fit on train)', note: `the tool of the request's most telling train word (precision, then support); ${args}`, policyFor: rulePolicy(rules.keyword) },
      DO_NOTHING,
      RANDOM,
    ];
  }
  if (set.family === 'function-calling') {
    // the unseen-tools set has no train split: its rule is fit on the seen-tools mix's train split (it knows none of the held-out tools)
    const rule = fitBfclKeywordRule(trainOf(set.splits.includes('train') ? set : taskSet('function-calling', 'bfcl')));
    return [
      { label: 'keyword rule (fit on train)', note: 'per word of the request, the offered function train requests with that word asked for most (no call when none); sends no arguments', policyFor: rulePolicy(rule) },
      { label: 'never call', note: `answers "${NEVER_CALL_TEXT}" (right exactly on irrelevance tasks)`, policyFor: constant(NEVER_CALL_TEXT) },
      DO_NOTHING,
      RANDOM,
    ];
  }
  if (set.family === 'service') return [DO_NOTHING, { label: 'always refuse', note: 'refuses every request, citing the policy', policyFor: constant(REFUSAL_TEXT) }, RANDOM];
  return [DO_NOTHING, { label: 'return first argument', note: 'submits a function that returns its first argument', policyFor: identitySubmission }, RANDOM];
}

export interface BaselineRunOptions {
  split: Split;
  n: number;
  seed: number;
  /** Train tasks the rules are fit on (default 2000). */
  fitN?: number;
  /** Episodes in flight (default 4; coding runs a sandbox per submission). */
  concurrency?: number;
}

/** Runs every baseline of the set on tasks 0 … n−1 of the split; the summaries for formatComparison. */
export async function runBaselines(set: TaskSet, opts: BaselineRunOptions): Promise<PolicySummary[]> {
  const tasks = Array.from({ length: opts.n }, (_, i) => set.envFamily.generateTask(opts.seed, i, opts.split));
  const out: PolicySummary[] = [];
  for (const b of baselinesFor(set, opts.seed, opts.fitN)) {
    const report = await evaluate(set.envFamily, b.policyFor, { n: opts.n, seed: opts.seed, split: opts.split, keepEpisodes: true, concurrency: opts.concurrency ?? 4 });
    out.push(summarizeOutcomes(b.label, 'baseline', outcomesFromEpisodes(tasks, report.episodeList ?? []), b.note));
  }
  return out;
}

export interface ComparisonOptions extends BaselineRunOptions {
  /** The evaluated models: a label and one outcome per task of tasks 0 … n−1 of the split (outcomeOf()). */
  models: readonly { label: string; outcomes: readonly Outcome[] }[];
}

/** Models and baselines on the same split as one table (formatComparison), plus the summaries for JSON output. */
export async function compareWithBaselines(set: TaskSet, opts: ComparisonOptions): Promise<{ table: string; summaries: PolicySummary[] }> {
  for (const m of opts.models) {
    if (m.outcomes.length !== opts.n) throw new Error(`compareWithBaselines: model "${m.label}" has ${m.outcomes.length} outcomes for n = ${opts.n} tasks; evaluate it on the same tasks 0 … n−1 of the ${opts.split} split`);
  }
  const summaries = [...opts.models.map((m) => summarizeOutcomes(m.label, 'model', m.outcomes)), ...(await runBaselines(set, opts))];
  return { table: formatComparison({ split: opts.split, taskSet: `${set.family}/${set.level}`, seed: opts.seed }, summaries), summaries };
}
