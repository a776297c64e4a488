// Which fields each stage kind shows in the pipeline editor (its main hyper-parameters), with the
// schema's names as paths and the help text keys.
import { CREDIT_SCHEMES, EVAL_SPLITS, MERGE_METHOD_NAMES, type StageConfig } from '../../pipeline/config';
import { parseNumber } from '../pipelineDraft';
import { weightPairs } from '../../pipeline/rewardWeights';
import type { FieldSpec } from './fields';

const opts = (xs: readonly string[]) => xs.map((x) => ({ value: x, label: x }));

export const STAGE_TITLES: Record<StageConfig['kind'], string> = { sft: 'SFT', grpo: 'GRPO', merge: 'Merge', eval: 'Evaluation' };

/** "1, 0.5" → [1, 0.5]; '' → undefined (the method's default); junk entries → NaN (the schema names them). */
export function parseWeightList(text: string): number[] | undefined {
  if (text.trim() === '') return undefined;
  return text.split(',').map((x) => parseNumber(x) ?? Number.NaN);
}

/** "exact_match=1, function_choice=0" → { exact_match: 1, function_choice: 0 }; '' → undefined (the environments' weights); text that is not such pairs stays text, which the schema refuses with the expected form. */
export function parseRewardWeights(text: string): Record<string, number> | string | undefined {
  if (text.trim() === '') return undefined;
  const { pairs, bad } = weightPairs(text);
  return bad !== undefined ? text : Object.fromEntries(pairs.map(([k, v]) => [k, parseNumber(v) ?? Number.NaN]));
}

/** { exact_match: 1, function_choice: 0 } → "exact_match=1, function_choice=0". */
export function formatRewardWeights(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  return Object.entries(value).map(([k, w]) => `${k}=${String(w)}`).join(', ');
}

/**
 * A training stage's own LoRA as text: '' → absent (the run-wide setting), 'off' → false (full
 * fine-tuning in this stage), '8' → {rank: 8}, '8/16' → {rank: 8, alpha: 16}. Other text stays text
 * (and a bad number NaN), which the schema refuses with the expected form.
 */
export function parseStageLora(text: string): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  if (/^(off|false|full)$/i.test(t)) return false;
  const m = /^([^/\s]+)\s*(?:\/\s*([^/\s]+))?$/.exec(t);
  if (!m) return t;
  const rank = parseNumber(m[1]) ?? Number.NaN;
  return m[2] === undefined ? { rank } : { rank, alpha: parseNumber(m[2]) ?? Number.NaN };
}

/** false → "off"; {rank: 8, alpha: 16} → "8/16"; {rank: 8} → "8". */
export function formatStageLora(value: unknown): string {
  if (value === false) return 'off';
  if (typeof value !== 'object' || value === null) return String(value);
  const { rank, alpha } = value as { rank?: unknown; alpha?: unknown };
  return alpha === undefined ? String(rank) : `${String(rank)}/${String(alpha)}`;
}

const stageLoraField = (path: string): FieldSpec => ({ path, label: 'LoRA (this stage)', kind: 'text', help: 'stageLora', hint: 'off, R or R/α (empty: the run\'s setting)', parse: parseStageLora, format: formatStageLora });

/** GRPO advantage scaling (GrpoStageConfig.advantage); '' = absent = std. */
export const ADVANTAGE_MODES = [
  { value: '', label: 'std: (r − mean) / std (GRPO)' },
  { value: 'mean', label: 'mean: r − mean (Dr. GRPO)' },
];

/** The GRPO rollout mode select: synchronous, or async with staleness k (stored as `staleness`). */
export const ROLLOUT_MODES = [
  { value: '', label: 'synchronous' },
  { value: '1', label: 'async, staleness 1' },
  { value: '2', label: 'async, staleness 2' },
  { value: '4', label: 'async, staleness 4' },
];

export function stageFields(kind: StageConfig['kind'], i: number): FieldSpec[] {
  const p = (k: string) => `stages.${i}.${k}`;
  if (kind === 'sft') {
    return [
      { path: p('steps'), label: 'Steps', kind: 'int', help: 'steps' },
      { path: p('batchSize'), label: 'Batch size', kind: 'int', help: 'batchSize' },
      { path: p('lr'), label: 'Learning rate', kind: 'num', help: 'lr' },
      { path: p('data.examples'), label: 'Expert conversations', kind: 'int', help: 'examples' },
      { path: p('data.drills'), label: 'Copy drills', kind: 'int', help: 'drills' },
      { path: p('data.drillEmails'), label: 'Email drills (share)', kind: 'num', help: 'drillEmails' },
      { path: p('data.randomValues'), label: 'Random argument values', kind: 'num', help: 'randomValues' },
      { path: p('data.wrappedRequests'), label: 'Wrapped requests', kind: 'num', help: 'wrappedRequests' },
      { path: p('data.editedRequests'), label: 'Edited requests', kind: 'num', help: 'editedRequests' },
      { path: p('data.framedRequests'), label: 'Framed requests', kind: 'num', help: 'framedRequests' },
      { path: p('data.randomUsers'), label: 'Renamed customers', kind: 'num', help: 'randomUsers' },
      { path: p('data.phrasings'), label: 'Demonstrated phrasings', kind: 'int', help: 'phrasings' },
      { path: p('warmupSteps'), label: 'Warm-up steps', kind: 'int', help: 'warmupSteps' },
      { path: p('minLrRatio'), label: 'Final lr ratio', kind: 'num', help: 'minLrRatio' },
      { path: p('specialists'), label: 'Specialists', kind: 'bool', help: 'specialists' },
      stageLoraField(p('lora')),
    ];
  }
  if (kind === 'grpo') {
    return [
      { path: p('steps'), label: 'Steps', kind: 'int', help: 'steps' },
      { path: p('tasksPerStep'), label: 'Tasks per step', kind: 'int', help: 'tasksPerStep' },
      { path: p('groupSize'), label: 'Group size G', kind: 'int', help: 'groupSize' },
      { path: p('lr'), label: 'Learning rate', kind: 'num', help: 'lr' },
      { path: p('klCoef'), label: 'KL β', kind: 'num', help: 'klCoef' },
      { path: p('temperature'), label: 'Temperature', kind: 'num', help: 'temperature' },
      { path: p('entropyCoef'), label: 'Entropy bonus', kind: 'num', help: 'entropyCoef', hint: 'empty: 0' },
      { path: p('advantage'), label: 'Advantage', kind: 'select', help: 'advantageScale', options: ADVANTAGE_MODES, parse: (v) => (v === '' ? undefined : v) },
      { path: p('randomValues'), label: 'Random argument values', kind: 'num', help: 'grpoRandomValues' },
      { path: p('credit'), label: 'Credit', kind: 'select', help: 'credit', options: opts(CREDIT_SCHEMES) },
      { path: p('rewardWeights'), label: 'Reward weights', kind: 'text', help: 'rewardWeights', hint: 'e.g. exact_match=1, function_choice=0 (empty: the environments\' weights)', parse: parseRewardWeights, format: formatRewardWeights },
      { path: p('staleness'), label: 'Rollouts', kind: 'select', help: 'staleness', options: ROLLOUT_MODES, parse: (v) => (v === '' ? undefined : Number(v)) },
      { path: p('samplingRounds'), label: 'Sampling rounds', kind: 'int', help: 'samplingRounds' },
      { path: p('evalEvery'), label: 'Validate every', kind: 'int', help: 'evalEvery' },
      { path: p('specialists'), label: 'Specialists', kind: 'bool', help: 'specialists' },
      stageLoraField(p('lora')),
    ];
  }
  if (kind === 'merge') {
    return [
      { path: p('method'), label: 'Method', kind: 'select', help: 'mergeMethod', options: opts(MERGE_METHOD_NAMES) },
      { path: p('weights'), label: 'Weights', kind: 'text', help: 'mergeWeights', hint: 'one per task set, e.g. 1, 1 (empty: 1 each)', parse: parseWeightList },
      { path: p('density'), label: 'Density', kind: 'num', help: 'density', hint: 'empty: the method\'s default' },
      { path: p('lambda'), label: 'Scale λ', kind: 'num', help: 'lambda', hint: 'empty: 1' },
      { path: p('t'), label: 'SLERP t', kind: 'num', help: 't', hint: 'empty: 0.5' },
      { path: p('epsilon'), label: 'RAM ε', kind: 'num', help: 'epsilon', hint: 'empty: 1e-5' },
    ];
  }
  return [
    { path: p('label'), label: 'Label', kind: 'text', help: 'label' },
    { path: p('split'), label: 'Split', kind: 'select', help: 'split', options: opts(EVAL_SPLITS) },
    { path: p('n'), label: 'Tasks per task set', kind: 'int', help: 'n' },
    { path: p('baselines'), label: 'Cheap baselines', kind: 'bool', help: 'baselines' },
  ];
}
