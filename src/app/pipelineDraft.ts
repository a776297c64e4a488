// The pipeline config as the page edits it: new stages and task sets with sensible defaults, the
// context fitted to the task mix, validation messages keyed by field path ("stages.2.lr"), and a
// run's size relative to the default run (for autostart links and the time estimate). DOM-free.
import { PRESETS } from '../model/config';
import { countParameters } from '../model/parameters';
import { type PipelineConfig, specialistEntries, type StageConfig, stageRepeats, validatePipelineConfig } from '../pipeline/config';
import { FISHER_EXAMPLES } from '../train/merge/fisher';
import { MERGE_METHODS } from '../train/merge/methods';
import { contextForMix, EXAMPLE_PIPELINES } from '../pipeline/presets';
import { TASK_SETS } from '../envs/taskSets';
import { rewardWeightErrors } from '../pipeline/rewardWeights';
import type { TaskFamilyName } from '../envs/familyNames';

/** The page's default: the first example (the demo's pipeline). */
export const DEFAULT_PIPELINE: PipelineConfig = EXAMPLE_PIPELINES[0].config;

export const clone = <T>(x: T): T => structuredClone(x);

/** A new stage of `kind`, sized like the stages of the routing example. */
export function newStage(kind: StageConfig['kind'], cfg: PipelineConfig): StageConfig {
  if (kind === 'sft') return { kind, data: { source: 'synthetic', examples: 256, drills: 0 }, steps: 100, batchSize: 8, lr: 3e-3, warmupSteps: 10, minLrRatio: 1 };
  if (kind === 'grpo') {
    return { kind, steps: 10, tasksPerStep: 8, groupSize: 8, lr: 1e-3, warmupSteps: 5, minLrRatio: 1, klCoef: 0.1, credit: 'component', temperature: 1, samplingRounds: 3, evalEvery: 0 };
  }
  if (kind === 'merge') return { kind, method: 'ties', density: 0.5 };
  const evals = cfg.stages.filter((s) => s.kind === 'eval').length;
  return { kind, label: `evaluation ${evals + 1}`, split: 'test', n: 64, baselines: false };
}

/** Levels of a family (its task sets), with their one-line descriptions. */
export function levelsOf(family: TaskFamilyName): { level: string; description: string; train: boolean }[] {
  return TASK_SETS.filter((s) => s.family === family).map((s) => ({ level: s.level, description: s.description, train: s.splits.includes('train') }));
}

/** The context the task mix needs (presets.ts contextForMix), or null when a level is unknown. */
export function fittedContext(cfg: Pick<PipelineConfig, 'tasks'>): PipelineConfig['context'] | null {
  try {
    return contextForMix(cfg.tasks);
  } catch {
    return null;
  }
}

/** Problems by field path; '' holds those of the whole config. */
export type FieldErrors = Map<string, string>;

/**
 * Validates a draft: the schema's messages ("stages.1.lr: must be at most 1") by path, plus what the
 * page itself needs (levels that exist, train splits for training, a context the model holds).
 */
export function checkDraft(draft: unknown, unparsable: FieldErrors = new Map()): { config: PipelineConfig | null; errors: FieldErrors } {
  const errors: FieldErrors = new Map(unparsable);
  const r = validatePipelineConfig(draft);
  if (!r.ok) {
    for (const line of r.errors) {
      const i = line.indexOf(': ');
      const path = line.slice(0, i) === 'config' ? '' : line.slice(0, i);
      if (!errors.has(path)) errors.set(path, line.slice(i + 2));
    }
    return { config: null, errors };
  }
  const cfg = r.config;
  const training = cfg.stages.some((s) => s.kind !== 'eval');
  cfg.tasks.forEach((e, i) => {
    const set = TASK_SETS.find((s) => s.family === e.family && (e.level === undefined || s.level === e.level));
    if (!set) errors.set(`tasks.${i}.level`, `${e.family} has no level ${JSON.stringify(e.level)}: choose one of ${levelsOf(e.family).map((l) => l.level).join(', ')}`);
    else if (training && !set.splits.includes('train') && e.weight > 0) errors.set(`tasks.${i}.level`, `${set.level} has no train split (it holds out its tools for evaluation): give it weight 0 or evaluate it in a run without training stages`);
  });
  cfg.stages.forEach((s, i) => {
    if (s.kind === 'sft' && s.data.source === 'jsonl') errors.set(`stages.${i}.data`, `reads ${s.data.path}: the page trains on synthetic data only (npm run learn reads JSONL files)`);
  });
  if (errors.size === 0) {
    // shown at the stage's reward-weights field (one field holds all of a stage's components)
    for (const e of rewardWeightErrors(cfg)) {
      if (!errors.has(e.path)) errors.set(e.path, e.component === undefined ? e.message : `${e.component}: ${e.message}`);
    }
  }
  const positions = PRESETS[cfg.preset].maxPositionEmbeddings;
  if (cfg.context.maxTotalTokens > positions) errors.set('context.maxTotalTokens', `${cfg.context.maxTotalTokens} tokens is more than preset ${cfg.preset} holds (${positions} positions): choose a -q preset or shorter episodes`);
  return { config: errors.size ? null : cfg, errors };
}

/** Strict number from form text: '' → undefined (the schema says it is required), junk → NaN. */
export function parseNumber(text: string): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t) ? Number(t) : Number.NaN;
}

/**
 * Work of one stage, in token-passes × parameters: SFT 3 × steps × batch × row tokens (forward and
 * backward); GRPO and evaluation per episode token 15 and 8 (sampling decodes token by token, which
 * costs far more per token than a training pass: on llvmpipe the demo's 10 GRPO steps take about as
 * long as its 150 SFT steps). Rough, but one rule for every run, so ratios between runs mean something.
 */
export function stageWork(cfg: PipelineConfig, s: StageConfig, repeats = 1): number {
  const T = cfg.context.maxTotalTokens;
  const tokens = s.kind === 'sft' ? 3 * s.steps * s.batchSize * Math.max(T, 768)
    : s.kind === 'grpo' ? 15 * s.steps * s.tasksPerStep * s.groupSize * T
      // a few passes over the weights on the CPU (seconds); fisher first runs a forward and backward per Fisher conversation of each specialist
      : s.kind === 'merge' ? (MERGE_METHODS[s.method]?.needsImportance ? 3 * FISHER_EXAMPLES * specialistEntries(cfg).length * T : 0)
        : 8 * s.n * (s.seeds?.length ?? 1) * cfg.tasks.length * T;
  return repeats * tokens * countParameters(PRESETS[cfg.preset]);
}

/** Work of a whole run (stageWork summed; specialist stages once per specialist). */
export function runWork(cfg: PipelineConfig): number {
  const repeats = stageRepeats(cfg);
  return cfg.stages.reduce((a, s, i) => a + stageWork(cfg, s, repeats[i]), 0);
}

/** The run's work ÷ the default run's. */
export function runSizeVsDefault(cfg: PipelineConfig): number {
  return runWork(cfg) / runWork(DEFAULT_PIPELINE);
}

/** An autostart link for a run larger than this many default runs waits for the person to press Start. */
export const AUTOSTART_MAX_SIZE = 4;

/** Why an autostart link's run must wait for Start (a sentence for the page), or null when it may start. */
export function autostartHold(cfg: PipelineConfig): string | null {
  const size = runSizeVsDefault(cfg);
  if (size <= AUTOSTART_MAX_SIZE) return null;
  const times = size < 1000 ? size.toFixed(0) : size.toExponential(1);
  return `This link asks for a long run (preset ${cfg.preset}, ${describeStages(cfg)}: about ${times}× the default run, which can take hours). It was not started on its own: check the settings and press Start.`;
}

/** "SFT 150 steps → eval (test) → GRPO 10 steps × 8 tasks × 8 → eval (test)". */
export function describeStages(cfg: PipelineConfig): string {
  if (cfg.stages.length === 0) return 'no stages';
  const each = (s: { specialists?: boolean }) => (s.specialists ? ' per specialist' : '');
  return cfg.stages.map((s) => (s.kind === 'sft' ? `SFT ${s.steps} steps${each(s)}` : s.kind === 'grpo' ? `GRPO ${s.steps} steps × ${s.tasksPerStep} tasks × ${s.groupSize}${each(s)}` : s.kind === 'merge' ? `merge (${s.method})` : `eval (${s.split}, n ${s.n})`)).join(' → ');
}
